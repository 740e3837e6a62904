// A patch of 10,000 hunks on a 500,000-line file, through the real `weft app-server` and the mock model,
// while the same client keeps asking for `thread/list`: the patch lands whole, its diffs reach the client
// cut to WEFT_DIFF_MAX_CHARS with the totals beside them, and the other requests are answered all along
// (while the patch is planned, written and diffed). The bound here is generous, for a loaded machine; the
// 50 ms target is measured by `npm run bench -- big-patch`.
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WEFT_DIFF_MAX_CHARS } from '../../src-preload/protocol';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient, type RpcMessage } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const LINES = 500_000;
const HUNKS = 10_000;
/** Far above what the patch costs any other request (tens of ms), far below the stall it used to cause (minutes). */
const SLOWEST_LIST_MS = 3_000;

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let client: StdioRpcClient | null = null;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace();
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
});

afterEach(async () => {
  // A server still busy (a failed run) is killed rather than waited for.
  if (client !== null) {
    client.child.kill('SIGKILL');
    await client.exited;
  }
  client = null;
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

/** The big file, the patch changing every 50th line of it, and the file as the patch leaves it. */
function bigCase(): { original: string; patch: string; expected: string } {
  const lines: string[] = [];
  for (let i = 0; i < LINES; i++) lines.push(`line ${i} of the big file: value = ${(i * 7919) % 100_003};`);
  const changed = [...lines];
  const patch = ['*** Begin Patch', '*** Update File: big.txt'];
  const step = LINES / HUNKS;
  for (let h = 0; h < HUNKS; h++) {
    const at = 25 + h * step;
    patch.push('@@');
    for (let c = at - 3; c < at; c++) patch.push(` ${lines[c]}`);
    patch.push(`-${lines[at]}`, `+${lines[at]} // changed ${h}`);
    for (let c = at + 1; c <= at + 3; c++) patch.push(` ${lines[c]}`);
    changed[at] = `${lines[at]} // changed ${h}`;
  }
  patch.push('*** End Patch');
  return { original: `${lines.join('\n')}\n`, patch: patch.join('\n'), expected: `${changed.join('\n')}\n` };
}

interface ListRun {
  /** Each `thread/list` answer, in the order they came. */
  answers: RpcMessage[];
  slowestMs: number;
}

/**
 * Sends `thread/list` again as soon as the last one is answered (10 ms apart) until `done` settles.
 * Rejects as soon as one has waited SLOWEST_LIST_MS, so a server that stops answering fails the test then
 * rather than when it wakes up again.
 */
async function listUntil(rpc: StdioRpcClient, done: Promise<unknown>): Promise<ListRun> {
  let finished = false;
  let wake = (): void => undefined;
  const settle = (): void => {
    finished = true;
    wake();
  };
  done.then(settle, settle);
  const answers: RpcMessage[] = [];
  let slowestMs = 0;
  while (!finished) {
    const sent = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const overdue = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`a thread/list waited ${SLOWEST_LIST_MS} ms and was still not answered`)),
        SLOWEST_LIST_MS,
      );
    });
    const call = rpc.call('thread/list', { limit: 5 });
    // Should it lose the race, its own guard rejects it later: nobody waits for it then.
    call.catch(() => undefined);
    try {
      const answer = await Promise.race([call, overdue]);
      expect(answer.error).toBeUndefined();
      answers.push(answer);
    } finally {
      clearTimeout(timer);
    }
    slowestMs = Math.max(slowestMs, performance.now() - sent);
    if (finished) break;
    await new Promise<void>((resolve) => {
      const pause = setTimeout(resolve, 10);
      wake = () => {
        clearTimeout(pause);
        resolve();
      };
    });
  }
  return { answers, slowestMs };
}

describe('a patch of 10,000 hunks on a 500,000-line file', () => {
  it('lands whole while other requests keep being answered, and reaches the client cut with its totals', async () => {
    const { original, patch, expected } = bigCase();
    await writeFile(ws.path('big.txt'), original);
    server.enqueueMany([
      { kind: 'sse', events: [evCreated(), evFunctionCall('p1', 'apply_patch', { input: patch }), evCompleted()] },
      { kind: 'sse', events: [evCreated(), evAssistantMessage('done'), evCompleted()] },
    ]);
    const rpc = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
    client = rpc;
    await rpc.initialize();
    const { thread } = await rpc.request<{ thread: { id: string } }>('thread/start', {
      cwd: ws.dir,
      approvalPolicy: 'never',
    });
    const from = rpc.received.length;
    await rpc.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'change every 50th line' }] });
    const completed = rpc.notification('turn/completed', () => true, from);
    completed.catch(() => undefined);
    const lists = await listUntil(rpc, completed);
    expect((await completed)['turn']).toMatchObject({ status: 'completed' });

    expect(await readFile(ws.path('big.txt'), 'utf8')).toBe(expected);

    const isPatch = (m: RpcMessage, method: string): boolean =>
      m.method === method && (m.params as { item?: { type?: string } }).item?.type === 'fileChange';
    const started = rpc.received.findIndex((m) => isPatch(m, 'item/started'));
    const done = rpc.received.find((m) => isPatch(m, 'item/completed'));
    const diffAt = rpc.received.findIndex((m) => m.method === 'turn/diff/updated');
    expect(started).toBeGreaterThan(0);
    expect(diffAt).toBeGreaterThan(started);

    // The item's diff and the turn's diff: at most the cap, ending in a marker; the totals beside them.
    const item = (done?.params as { item: Record<string, unknown> }).item;
    expect(item).toMatchObject({ status: 'completed', weftOutcome: 'applied' });
    const [change] = item['changes'] as { path: string; diff: string; weftDiffCut?: Record<string, number> }[];
    expect(change?.weftDiffCut).toEqual({
      files: 1,
      hunks: HUNKS,
      shownHunks: expect.any(Number) as number,
      added: HUNKS,
      removed: HUNKS,
    });
    const shownHunks = change?.weftDiffCut?.['shownHunks'] ?? 0;
    expect(shownHunks).toBeGreaterThan(0);
    expect(shownHunks).toBeLessThan(HUNKS);
    expect(change?.diff.length).toBeLessThanOrEqual(WEFT_DIFF_MAX_CHARS);
    expect(change?.diff.match(/^@@ /gm)).toHaveLength(shownHunks);
    expect(change?.diff).toMatch(/\n~ Weft left out .+\n$/);
    const turnDiff = rpc.received[diffAt]?.params as { diff: string; weftDiffCut?: Record<string, number> };
    expect(turnDiff.diff.length).toBeLessThanOrEqual(WEFT_DIFF_MAX_CHARS);
    expect(turnDiff.weftDiffCut).toMatchObject({ files: 1, hunks: HUNKS, added: HUNKS, removed: HUNKS });

    // Other requests were answered while the patch was written and diffed, none of them late.
    const between = lists.answers.filter((answer) => {
      const at = rpc.received.indexOf(answer);
      return at > started && at < diffAt;
    });
    expect(between.length).toBeGreaterThanOrEqual(3);
    expect(lists.slowestMs).toBeLessThan(SLOWEST_LIST_MS);

    // Read back from disk by a new server: the turn's diff as it was recorded, cut, with its totals.
    await rpc.close();
    const again = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
    client = again;
    await again.initialize();
    const read = await again.request<{ thread: { turns: Record<string, unknown>[] } }>('thread/read', {
      threadId: thread.id,
      includeTurns: true,
    });
    const [saved] = read.thread.turns;
    expect(saved?.['weftDiff']).toBe(turnDiff.diff);
    expect(saved?.['weftDiffCut']).toEqual(turnDiff.weftDiffCut);
  }, 120_000);
});
