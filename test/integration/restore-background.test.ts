// Undo and Redo through the real app host (mock Responses server, real bubblewrap sandbox) while commands the
// model started keep running after its turn: they are stopped before any file is touched, and the
// result names them. And a turn that also made a file with a back-slash in its name can be undone.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockModelConfig, startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { startInProcessHost, type InProcessClient, type InProcessHost, ok } from '../support/in-process-host';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { waitFor } from '../support/wait';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';
import { picture } from '../unit/checkpoints/helpers';
import { isPlaceholderFolder } from '../../src-main/safety/sandbox/placeholders';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let outside: TempWorkspace;
let app: InProcessHost | null = null;

const FILES: Record<string, string> = { 'a.txt': 'alpha\n' };
for (let i = 0; i < 60; i++) FILES[`d/f${i}`] = `file ${i}\n`;

// Renames the restore's staging folder aside the moment it appears and puts a symlink to a folder
// outside the workspace in its place (see restore-race.test.ts). The last argument only marks it.
const THIEF = `
import os, sys
outside = sys.argv[1]
print('watching', flush=True)
while True:
    for name in os.listdir('.'):
        if name.startswith('.weft-restore-') and not name.endswith('.aside') and not os.path.islink(name):
            try:
                os.rename(name, name + '.aside')
                os.symlink(outside, name)
            except OSError:
                pass
`;
const havePython = spawnSync('python3', ['-c', 'pass']).status === 0;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace(FILES);
  outside = await makeTempWorkspace({ 'thief.py': THIEF });
  home = await makeWeftHome(mockModelConfig(server.url));
});

afterEach(async () => {
  await app?.close();
  app = null;
  await server.close();
  await ws.cleanup();
  await outside.cleanup();
  await home.cleanup();
});

const answer = (text: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evAssistantMessage(text), evCompleted()],
});
const command = (id: string, cmd: string, yieldMs?: number) => ({
  kind: 'sse' as const,
  events: [
    evCreated(),
    evFunctionCall(id, 'exec_command', yieldMs === undefined ? { cmd } : { cmd, yield_time_ms: yieldMs }),
    evCompleted(),
  ],
});

async function turn(client: InProcessClient, threadId: string, text: string, extra: object = {}): Promise<string> {
  const { turn: started } = await ok<{ turn: { id: string } }>(client, 'turn/start', {
    threadId,
    input: [{ type: 'text', text }],
    ...extra,
  });
  const done = (await waitFor(
    client.subscribe,
    (m) => 'method' in m && m.method === 'turn/completed' && JSON.stringify(m).includes(started.id),
    { label: 'turn/completed' },
  )) as { params: { turn: { status: string } } };
  expect(done.params.turn.status).toBe('completed');
  return started.id;
}

/** Processes (not zombies) whose command line holds `marker`. */
function processesMarked(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(marker)) found.push(Number(entry));
    } catch {
      /* exited meanwhile */
    }
  }
  return found;
}

type Files = {
  restored: string[];
  notRestored: { path: string; reason: string }[];
  stoppedCommands: { sessionId: number; command: string }[];
  notes: string[];
};

describe.skipIf(process.platform !== 'linux' || !havePython)(
  'commands the model left running in the background',
  () => {
    it('are stopped before Undo touches a file, and the result names them; a refused Redo touches nothing', async () => {
      const original = picture(ws.dir);
      app = await startInProcessHost({
        weftHome: home.dir,
        cwd: ws.dir,
        env: { ...process.env, WEFT_HOME: home.dir, MOCK_API_KEY: 'x' },
      });
      const { client } = app;
      const thief = `python3 ${join(outside.dir, 'thief.py')} ${outside.dir} weft-thief-marker`;
      const sleeper = 'exec -a weft-sleeper-marker sleep 86399';
      server.enqueueMany([
        command('c1', 'rm d/f* && echo changed > a.txt'),
        command('c2', thief, 250),
        answer('first done'),
      ]);
      const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });
      const first = await turn(client, thread.id, 'change things and watch');
      // The turn ends once the command has run its first 250 ms; under load the sandbox may still be
      // starting python then.
      await expect.poll(() => processesMarked('weft-thief-marker'), { timeout: 15_000 }).toHaveLength(1);
      // The running command's sandbox mount points (`.agents`, `.weft` holding only leases) are not work.
      const mountPoint = (rel: string): boolean =>
        isPlaceholderFolder(rel.slice(rel.lastIndexOf('/') + 1), () => readdirSync(join(ws.dir, rel)));
      const afterTurn = picture(ws.dir, mountPoint);
      expect(Object.keys(picture(ws.dir)).filter((rel) => mountPoint(rel))).toEqual(['.agents', '.weft']);

      const reverted = await ok<{ weftFiles: Files }>(client, 'thread/revert', {
        threadId: thread.id,
        beforeTurnId: first,
        weftRestoreFiles: true,
      });
      expect(processesMarked('weft-thief-marker')).toEqual([]);
      expect(reverted.weftFiles.stoppedCommands).toEqual([{ sessionId: expect.any(Number), command: thief }]);
      expect(reverted.weftFiles.notes).toEqual([
        `Stopped 1 command the agent left running, so it could not change files during the restore: ${thief}`,
      ]);
      expect(reverted.weftFiles.notRestored).toEqual([]);
      expect(readdirSync(outside.dir)).toEqual(['thief.py']);
      expect(picture(ws.dir)).toEqual(original);

      // A later turn leaves a command running. The conversation went on after the undo, so Redo is refused
      // before anything is touched: the command keeps running and no file changes. (Outside the sandbox:
      // its mount points for `.agents` and `.weft` would be a change of files.)
      server.enqueueMany([command('s1', sleeper, 250), answer('sleeping')]);
      await turn(client, thread.id, 'sleep in the background', { sandboxPolicy: { type: 'dangerFullAccess' } });
      await expect.poll(() => processesMarked('weft-sleeper-marker'), { timeout: 15_000 }).toHaveLength(1);
      const before = picture(ws.dir);
      const refused = await client.call('weft/checkpoints/redo', { threadId: thread.id, weftForce: true });
      expect(refused.error).toEqual({
        code: -32600,
        message:
          'The conversation went on after the undo: its turns cannot come back, so its files are not redone either.',
      });
      expect(processesMarked('weft-sleeper-marker')).toHaveLength(1);
      expect(picture(ws.dir)).toEqual(before);
      expect(afterTurn).not.toEqual(before);
    });
  },
);

describe('a turn that also made a file with a back-slash in its name', () => {
  it('is undone: the preview lists it, the revert restores everything', async () => {
    writeFileSync(ws.path('a.txt'), 'alpha\n');
    const original = picture(ws.dir);
    app = await startInProcessHost({
      weftHome: home.dir,
      cwd: ws.dir,
      env: { ...process.env, WEFT_HOME: home.dir, MOCK_API_KEY: 'x' },
    });
    const { client } = app;
    server.enqueueMany([command('c1', "echo destroyed > a.txt && echo odd > 'weird\\name'"), answer('done')]);
    const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });
    const only = await turn(client, thread.id, 'break things');
    expect(readFileSync(join(ws.dir, 'weird\\name'), 'utf8')).toBe('odd\n');

    const preview = await ok<{ files: { path: string; change: string; unrestorable: string | null }[] }>(
      client,
      'weft/checkpoints/preview',
      { threadId: thread.id, beforeTurnId: only },
    );
    expect(preview.files.map((f) => [f.path, f.change, f.unrestorable])).toEqual([
      ['a.txt', 'update', null],
      ['weird\\name', 'delete', null],
    ]);
    const reverted = await ok<{ thread: { turns: unknown[] }; weftFiles: Files }>(client, 'thread/revert', {
      threadId: thread.id,
      beforeTurnId: only,
      weftRestoreFiles: true,
    });
    // The sandbox's mount points for the protected `.agents` and `.weft` were never the turn's work.
    expect(reverted.weftFiles.restored.sort()).toEqual(['a.txt', 'weird\\name']);
    expect(reverted.weftFiles.notRestored).toEqual([]);
    expect(reverted.thread.turns).toEqual([]);
    expect(picture(ws.dir)).toEqual(original);
  });
});
