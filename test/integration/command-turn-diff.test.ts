// What commands change is part of the turn's diff, and what a command left running in the background
// changes belongs to the turn that started it: through the real app host, the real openai SDK against the
// mock Responses server and the real bubblewrap sandbox.
import { existsSync, readdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockModelConfig, startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { InProcessClient, completedTurn, startInProcessHost, type InProcessHost, ok } from '../support/in-process-host';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { waitFor } from '../support/wait';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let app: InProcessHost | null = null;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'keep.txt': 'kept\n', 'other.txt': 'before\n' });
  home = await makeWeftHome(mockModelConfig(server.url));
});

afterEach(async () => {
  await app?.close();
  app = null;
  await server.close();
  await ws.cleanup();
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

async function start(): Promise<InProcessClient> {
  app = await startInProcessHost({
    weftHome: home.dir,
    cwd: ws.dir,
    env: { ...process.env, WEFT_HOME: home.dir, MOCK_API_KEY: 'x' },
  });
  return app.client;
}

/** Runs one turn to its end; returns its id and the messages the client got while it ran. */
async function turn(client: InProcessClient, threadId: string, text: string): Promise<{ id: string; seen: object[] }> {
  const from = client.received.length;
  const done = await completedTurn(client, threadId, text);
  expect(done.turn.status).toBe('completed');
  return { id: done.turn.id, seen: client.received.slice(from) };
}

describe('a command that changes files', () => {
  it('is in the turn diff sent before turn/completed, and in the turn read after a restart', async () => {
    let client = await start();
    server.enqueueMany([
      command('c1', 'echo shellmade > shell-made.txt && printf "after\\n" > other.txt'),
      answer('done'),
    ]);
    const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });
    const { id, seen } = await turn(client, thread.id, 'make a file');
    expect(readFileSync(join(ws.dir, 'shell-made.txt'), 'utf8')).toBe('shellmade\n');
    const methods = seen.flatMap((m) => ('method' in m && typeof m.method === 'string' ? [m.method] : []));
    const diffAt = methods.lastIndexOf('turn/diff/updated');
    expect(diffAt).toBeGreaterThanOrEqual(0);
    expect(diffAt).toBeLessThan(methods.indexOf('turn/completed'));
    const sent = client.notifications('turn/diff/updated').at(-1)?.params;
    // Files in path order; blob ids masked (the deleted side of a new file is all zeros).
    const expected = [
      'diff --git a/other.txt b/other.txt',
      'index OID..OID 100644',
      '--- a/other.txt',
      '+++ b/other.txt',
      '@@ -1 +1 @@',
      '-before',
      '+after',
      'diff --git a/shell-made.txt b/shell-made.txt',
      'new file mode 100644',
      'index 0000000000000000000000000000000000000000..OID',
      '--- /dev/null',
      '+++ b/shell-made.txt',
      '@@ -0,0 +1 @@',
      '+shellmade',
      '',
    ].join('\n');
    const masked = (diff: unknown): string =>
      String(diff).replace(/index ([0-9a-f]{40})\.\.([0-9a-f]{40})/g, (_all, a: string) =>
        a === '0'.repeat(40) ? `index ${a}..OID` : 'index OID..OID',
      );
    expect({ ...sent, diff: masked(sent?.diff) }).toEqual({ threadId: thread.id, turnId: id, diff: expected });

    await app?.close();
    app = null;
    client = await start();
    const read = await ok<{ thread: { turns: { id: string; weftDiff?: string | null }[] } }>(client, 'thread/read', {
      threadId: thread.id,
      includeTurns: true,
    });
    const readTurn = read.thread.turns.find((t) => t.id === id);
    expect(masked(readTurn?.weftDiff)).toEqual(expected);
  });
});

describe('a connection that asked for lazy turn diffs', () => {
  it('is told that the diff changed and how many files it holds, and reads the text with weft/turn/diff', async () => {
    const client = await start();
    const host = app?.host;
    if (host === undefined) throw new Error('no host');
    let lazy: InProcessClient | null = null;
    lazy = new InProcessClient(host.host.connect({ label: 'lazy', send: (message) => lazy?.deliver(message) }));
    await ok(lazy, 'initialize', {
      clientInfo: { name: 'page', version: '0' },
      capabilities: { weftLazyTurnDiff: true },
    });
    server.enqueueMany([
      command('c1', 'echo shellmade > shell-made.txt && printf "after\\n" > other.txt'),
      answer('done'),
    ]);
    const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });
    await ok(lazy, 'thread/resume', { threadId: thread.id });
    const lazyDone = waitFor(lazy.subscribe, (m) => 'method' in m && m.method === 'turn/completed', {
      label: 'turn/completed (lazy)',
    });
    const { id } = await turn(client, thread.id, 'make a file');
    await lazyDone;

    const sent = client.notifications('turn/diff/updated').at(-1)?.params as { diff: string } | undefined;
    expect(sent?.diff).toContain('diff --git a/shell-made.txt b/shell-made.txt');
    expect(lazy.notifications('turn/diff/updated')).toEqual([]);
    expect(lazy.notifications('weft/turn/diffChanged').map((n) => n.params)).toEqual([
      { threadId: thread.id, turnId: id, files: 2 },
    ]);
    expect(await ok(lazy, 'weft/turn/diff', { threadId: thread.id, turnId: id })).toEqual({ diff: sent?.diff });

    // Not loaded any more: the diff saved with the turn. A turn the thread does not have is a bad request.
    await app?.close();
    app = null;
    const again = await start();
    expect(await ok(again, 'weft/turn/diff', { threadId: thread.id, turnId: id })).toEqual({ diff: sent?.diff });
    const unknown = await again.call('weft/turn/diff', { threadId: thread.id, turnId: 'turn-nope' });
    expect(unknown.error).toEqual({ code: -32602, message: `thread ${thread.id} has no turn turn-nope` });
  });
});

/** Resolves once `path` exists, holding `content` when given (watching its folder, never polling with sleeps). */
function fileAppears(path: string, content?: string): Promise<void> {
  return new Promise((resolve) => {
    const there = (): boolean => {
      if (content === undefined) return existsSync(path);
      try {
        return readFileSync(path, 'utf8') === content;
      } catch {
        return false;
      }
    };
    const watcher = watch(dirname(path), () => {
      if (there()) done();
    });
    const done = (): void => {
      watcher.close();
      resolve();
    };
    if (there()) done();
  });
}

const bgFiles = (): string[] =>
  readdirSync(ws.dir)
    .filter((name) => name.startsWith('bg-'))
    .sort();

interface Preview {
  files: { path: string; change: string; background?: string | null }[];
}
interface Reverted {
  weftFiles: { restored: string[]; notes: string[] };
}

describe.skipIf(process.platform !== 'linux')('a command left running after its turn', () => {
  it('writes files that belong to its turn: undoing the next turn keeps them, undoing its own removes them', async () => {
    const signal = await makeTempWorkspace({});
    try {
      const client = await start();
      // Turn 1 leaves a command running that writes 50 files once the test says so, after the turn ended.
      const go = join(signal.dir, 'go');
      const background = `while [ ! -e ${go} ]; do sleep 0.02; done; for i in $(seq 1 50); do echo $i > bg-$i.txt; done`;
      server.enqueueMany([command('b1', background, 100), answer('started')]);
      const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });
      const first = await turn(client, thread.id, 'start the writer');
      expect(bgFiles()).toEqual([]);
      writeFileSync(go, '');
      // Its last file holds what it wrote (created empty first, it is written a moment later).
      await fileAppears(join(ws.dir, 'bg-50.txt'), '50\n');
      server.enqueueMany([command('c2', 'printf "changed\\n" > other.txt'), answer('changed')]);
      const second = await turn(client, thread.id, 'change other.txt');
      expect(bgFiles()).toHaveLength(50);

      const preview = await ok<Preview>(client, 'weft/checkpoints/preview', {
        threadId: thread.id,
        beforeTurnId: second.id,
      });
      expect(preview.files.map((f) => [f.path, f.change])).toEqual([['other.txt', 'update']]);
      const undoSecond = await ok<Reverted>(client, 'thread/revert', {
        threadId: thread.id,
        beforeTurnId: second.id,
        weftRestoreFiles: true,
      });
      expect(undoSecond.weftFiles.restored).toEqual(['other.txt']);
      expect(readFileSync(join(ws.dir, 'other.txt'), 'utf8')).toBe('before\n');
      expect(bgFiles()).toHaveLength(50);

      const undoFirst = await ok<Reverted>(client, 'thread/revert', {
        threadId: thread.id,
        beforeTurnId: first.id,
        weftRestoreFiles: true,
      });
      expect(undoFirst.weftFiles.restored.filter((p) => p.startsWith('bg-'))).toHaveLength(50);
      expect(bgFiles()).toEqual([]);
      expect(readFileSync(join(ws.dir, 'keep.txt'), 'utf8')).toBe('kept\n');
    } finally {
      await signal.cleanup();
    }
  });

  it("names what it wrote while a later turn's command ran, in the preview and in the undo's result", async () => {
    const client = await start();
    // Turn 2's command changes other.txt, lets turn 1's command go, and waits for the last of its files:
    // the two write at the same time, and no look can tell whose each file is.
    const background = 'while [ ! -e go ]; do sleep 0.02; done; for i in $(seq 1 50); do echo $i > bg-$i.txt; done';
    server.enqueueMany([command('b1', background, 100), answer('started')]);
    const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });
    await turn(client, thread.id, 'start the writer');
    server.enqueueMany([
      command('c2', 'printf "changed\\n" > other.txt && touch go && while [ ! -e bg-50.txt ]; do sleep 0.02; done'),
      answer('changed'),
    ]);
    const second = await turn(client, thread.id, 'change other.txt');
    expect(bgFiles()).toHaveLength(50);

    const preview = await ok<Preview>(client, 'weft/checkpoints/preview', {
      threadId: thread.id,
      beforeTurnId: second.id,
    });
    const named = `changed while a background command of an earlier turn was running: ${background}`;
    const deletes = preview.files.filter((f) => f.change === 'delete');
    expect(deletes.map((f) => f.path).sort()).toEqual(['go', ...bgFiles()].sort());
    for (const file of preview.files) expect([file.path, file.background]).toEqual([file.path, named]);
    const undoSecond = await ok<Reverted>(client, 'thread/revert', {
      threadId: thread.id,
      beforeTurnId: second.id,
      weftRestoreFiles: true,
    });
    const removed = undoSecond.weftFiles.restored.filter((path) => path.startsWith('bg-')).sort();
    expect(removed).toHaveLength(50);
    expect(undoSecond.weftFiles.notes).toContain(
      `${removed.length + 2} files were changed while a background command of an earlier turn was running (${background}); they were restored too: ${['go', 'other.txt', ...removed].sort().join(', ')}`,
    );
  });
});
