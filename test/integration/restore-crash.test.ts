// `kill -9` of a real `weft app-server` in the middle of an Undo that puts 3,000 files back. The next app
// server finishes the restore and the revert of the thread before it answers anything: the first answer
// it gives already comes after a workspace that is whole, without a staging folder, and a thread without
// the reverted turn.
import { watch } from 'node:fs';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockModelConfig, startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';
import { picture } from '../unit/checkpoints/helpers';

const COUNT = 3000;
/** The server is killed once this many files came back (well before all of them). */
const KILL_AFTER = 300;

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
const clients: StdioRpcClient[] = [];

beforeEach(async () => {
  server = await startMockResponsesServer();
  const files: Record<string, string> = { 'a.txt': 'alpha\n' };
  for (let i = 0; i < COUNT; i++) files[`d/f${i}`] = `file ${i}\n`;
  ws = await makeTempWorkspace(files);
  home = await makeWeftHome(mockModelConfig(server.url));
});

afterEach(async () => {
  for (const client of clients.splice(0)) {
    client.child.kill('SIGKILL');
    await client.exited;
  }
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

function start(): StdioRpcClient {
  const client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
  clients.push(client);
  return client;
}

describe('an app server killed with SIGKILL in the middle of an Undo', () => {
  it('leaves, once the next one starts, the files restored and the turn reverted', { timeout: 120_000 }, async () => {
    const original = picture(ws.dir);
    const first = start();
    await first.initialize();
    server.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          evFunctionCall('c1', 'exec_command', { cmd: 'rm d/f* && echo changed > a.txt' }),
          evCompleted(),
        ],
      },
      { kind: 'sse', events: [evCreated(), evAssistantMessage('deleted them'), evCompleted()] },
    ]);
    const { thread } = await first.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    const { turn } = await first.request<{ turn: { id: string } }>('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'delete the folder' }],
    });
    // The first look stores all 3,000 files and the turn's diff reads them back: about a second alone,
    // more than the usual 20 s guard once on a two-core machine running the whole suite.
    await first.notification('turn/completed', (p) => JSON.stringify(p).includes(turn.id), 0, 60_000);
    expect(readdirSync(ws.path('d'))).toEqual([]);

    // Kill the server once KILL_AFTER files are back in d.
    let seen = 0;
    const watcher = watch(ws.path('d'), () => {
      seen += 1;
      if (seen === KILL_AFTER) first.child.kill('SIGKILL');
    });
    first.send({
      id: 'revert',
      method: 'thread/revert',
      params: { threadId: thread.id, beforeTurnId: turn.id, weftRestoreFiles: true },
    });
    const exit = await first.exited;
    watcher.close();
    expect(exit).toBeNull();
    expect(first.received.some((m) => m.id === 'revert')).toBe(false);
    // Killed mid-way: some files are back, not all, and the rest are still staged.
    const torn = readdirSync(ws.path('d')).length;
    expect(torn).toBeGreaterThan(0);
    expect(torn).toBeLessThan(COUNT);
    expect(readdirSync(ws.dir).filter((name) => name.startsWith('.weft-restore-')).length).toBeGreaterThan(0);

    const next = start();
    await next.initialize();
    // Nothing else was asked yet: the state the first answer came after.
    expect(picture(ws.dir)).toEqual(original);
    expect(readdirSync(join(home.dir, 'checkpoints', 'restores'))).toEqual([]);
    const read = await next.request<{ thread: { turns: unknown[] } }>('thread/read', {
      threadId: thread.id,
      includeTurns: true,
    });
    expect(read.thread.turns).toEqual([]);
  });
});
