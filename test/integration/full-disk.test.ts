// A full disk under WEFT_HOME must never pass silently: the turn fails (or says the thread is not being
// saved), `weft exec` exits non-zero, nothing claims the thread is saved, the lines are kept and written
// once space returns, and failing is quick. The disk is a real tmpfs, filled to the last block.
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ThreadStore } from '../../src-main/store';
import { loadFile } from '../../src-main/store/loader';
import { canMountFullDisk, fillerOf, spawnOnFullDisk } from '../support/full-disk';
import { StdioRpcClient } from '../support/rpc-client';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { answerTurn } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const WEFT = resolve(__dirname, '../../bin/weft.js');
const available = await canMountFullDisk();

let server: MockResponsesServer;
let ws: TempWorkspace;
let seed: WeftHome;
let mountPoint: string;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'alpha\n' });
  seed = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  // An existing index, as on any machine that has run Weft before.
  await ThreadStore.open(seed.dir, { repair: false }).close();
  // The disk that fills is the one holding the threads.
  mountPoint = join(seed.dir, 'sessions');
  await mkdir(mountPoint, { recursive: true });
});

afterEach(async () => {
  await server.close();
  await ws.cleanup();
  await seed.cleanup();
});

function runExec(
  args: string[],
  fill = true,
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawnOnFullDisk([process.execPath, WEFT, 'exec', ...args], {
    mountPoint,
    fill,
    cwd: ws.dir,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', WEFT_HOME: seed.dir, MOCK_API_KEY: 'x' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end();
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

describe.runIf(available)('a full disk under WEFT_HOME', () => {
  it('fails the turn quickly, exits non-zero and never says the thread is saved', async () => {
    server.enqueue(answerTurn('all done'));
    const result = await runExec(['say hi']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(
      /weft: This thread is not being saved: could not save thread [0-9a-f-]+ to .*ENOSPC: no space left on device/,
    );
    expect(result.stderr).not.toMatch(/the thread is saved/i);
    // At exit the refused lines go to a rescue file outside the full disk, and the user is told where.
    const rescued =
      /The thread \(\d+ line\(s\) after its first\) was saved to (\S+weft-unsaved-[0-9a-f-]+\.jsonl) instead; move that file to \S+\/sessions\/\S+\.jsonl once the disk has room/.exec(
        result.stderr,
      );
    expect(rescued, result.stderr).not.toBeNull();
    const rescueFile = rescued?.[1] ?? '';
    const lines = (await readFile(rescueFile, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; payload: { type?: string; item?: { type?: string } } });
    await rm(rescueFile, { force: true });
    expect(lines[0]?.type).toBe('session_meta');
    expect(
      lines.filter((l) => l.payload.type === 'item_completed' && l.payload.item?.type === 'UserMessage'),
    ).toHaveLength(1);
    expect(lines.filter((l) => l.payload.type === 'task_complete')).toHaveLength(1);
    // Failing costs no waiting: about as long as the same run with room on the disk.
    server.enqueue(answerTurn('all done'));
    const healthy = await runExec(['say hi'], false);
    expect(healthy.code).toBe(0);
    expect(result.ms - healthy.ms).toBeLessThan(3000);
  });

  it('tells app-server clients the thread is not being saved, then writes every kept line once space returns', async () => {
    server.enqueueMany([answerTurn('first answer'), answerTurn('second answer')]);
    const child = spawnOnFullDisk([process.execPath, WEFT, 'app-server'], {
      mountPoint,
      cwd: ws.dir,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', WEFT_HOME: seed.dir, MOCK_API_KEY: 'x' },
    });
    const client = StdioRpcClient.attach(child);
    try {
      await client.initialize();
      const { thread } = await client.request<{ thread: { id: string; path: string } }>('thread/start', {
        cwd: ws.dir,
      });
      const first = await client.request<{ turn: { id: string } }>('turn/start', {
        threadId: thread.id,
        input: [{ type: 'text', text: 'first question' }],
      });
      const failed = await client.notification(
        'turn/completed',
        (p) => (p['turn'] as { id: string }).id === first.turn.id,
      );
      expect(failed['turn']).toMatchObject({
        status: 'failed',
        error: {
          message: expect.stringMatching(
            /^This thread is not being saved: could not save thread .*no space left on device/,
          ) as unknown,
        },
      });
      expect(client.notifications('error')).toEqual([
        {
          threadId: thread.id,
          turnId: first.turn.id,
          willRetry: false,
          error: (failed['turn'] as { error: unknown }).error,
        },
      ]);
      expect(client.notifications('warning')).toEqual([
        { threadId: thread.id, message: expect.stringContaining('line(s) are kept in memory') as unknown },
      ]);

      // Space returns: the kept lines are written without anything else happening in the thread.
      const from = client.received.length;
      await rm(fillerOf(child.pid ?? 0, mountPoint));
      const again = await client.notification(
        'warning',
        (p) => String(p['message']).includes('is being saved again'),
        from,
      );
      expect(again).toEqual({
        threadId: thread.id,
        message: `thread ${thread.id} is being saved again: every line it recorded is now in ${thread.path}`,
      });
      const second = await client.request<{ turn: { id: string } }>('turn/start', {
        threadId: thread.id,
        input: [{ type: 'text', text: 'second question' }],
      });
      const done = await client.notification(
        'turn/completed',
        (p) => (p['turn'] as { id: string }).id === second.turn.id,
      );
      expect(done['turn']).toMatchObject({ status: 'completed', error: null });

      const onDisk = loadFile(join(`/proc/${child.pid ?? 0}/root`, thread.path));
      expect(
        onDisk.turns.map((t) => [
          t.id,
          t.items.filter((i) => i.type === 'agentMessage').map((i) => (i.type === 'agentMessage' ? i.text : '')),
        ]),
      ).toEqual([
        [first.turn.id, ['first answer']],
        [second.turn.id, ['second answer']],
      ]);
    } finally {
      await client.close();
    }
  });
});
