// Forking or reading a big thread (about 70 MB of rollout) through `weft app-server` never holds the
// server's event loop: the lists sent every 10 ms meanwhile are answered while the fork or read is under
// way, none of them kept waiting long. The bound is generous (the 50 ms target is the bench's, on a quiet
// machine): it holds on a loaded machine, and a synchronous pass over the file breaks it several times.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBigRollout, type BigRollout } from '../support/big-rollout';
import { startListProbe, stdioChannel, type ProbeAnswer } from '../support/list-probe';
import { StdioRpcClient, type RpcMessage } from '../support/rpc-client';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

/** The longest a list may wait while a fork or read runs. */
const BOUND_MS = 400;
/** Lists answered while the fork or read was under way, at least. */
const INTERLEAVED = 5;

let home: WeftHome;
let ws: TempWorkspace;
/** For the fork: many items (the fork indexes and outlines them all) in about 4,500 turns. */
let dense: BigRollout;
/** For the read: long turns (mostly model history), 1,300 of them, 8,000 items (about 3 MB of answer). */
let long: BigRollout;
let client: StdioRpcClient;

beforeAll(async () => {
  home = await makeWeftHome();
  ws = await makeTempWorkspace({ 'README.md': 'hello\n' });
  const bytes = 70 << 20;
  dense = await writeBigRollout(home.dir, {
    cwd: ws.dir,
    bytes,
    reasoningBytes: 8 << 10,
    outputBytes: 256,
    commands: 3,
  });
  long = await writeBigRollout(home.dir, {
    cwd: ws.dir,
    bytes,
    reasoningBytes: 48 << 10,
    outputBytes: 512,
    commands: 2,
  });
  client = StdioRpcClient.start({ WEFT_HOME: home.dir }, ws.dir);
  await client.initialize();
  // The first start indexes the threads (in the background): measure once they are listed.
  const first = await client.request<{ data: { id: string }[]; weftIndexing?: boolean }>('thread/list', {});
  if (first.weftIndexing === true) await client.notification('weft/threads/indexed');
  const listed = await client.request<{ data: { id: string }[] }>('thread/list', {});
  expect(listed.data.map((t) => t.id).sort()).toEqual([dense.id, long.id].sort());
}, 120_000);

afterAll(async () => {
  await client.close();
  await ws.cleanup();
  await home.cleanup();
});

interface Probed {
  answer: RpcMessage;
  /** Lists sent while the request was under way (until its answer began to arrive), with their waits. */
  lists: ProbeAnswer[];
  /** Of those, how many were answered before the request was. */
  interleaved: number;
}

/** Sends `method` while lists go out every 10 ms; returns its answer and the lists sent meanwhile. */
async function probed(method: string, params: unknown): Promise<Probed> {
  const probe = startListProbe(stdioChannel(client.child));
  const id = `probed-${method}`;
  const sentAt = performance.now();
  client.send({ id, method, params });
  const answer = await client.waitFor((m) => m.id === id && m.method === undefined, method);
  const all = await probe.stop();
  const answeredAt = probe.answerStarted(id) ?? Number.POSITIVE_INFINITY;
  const lists = all.filter((a) => a.sentAt >= sentAt && a.sentAt < answeredAt);
  return { answer, lists, interleaved: lists.filter((a) => a.answeredAt < answeredAt).length };
}

const summary = (p: Probed): string =>
  `${p.lists.length} lists sent, ${p.interleaved} answered before the request; slowest waits ${p.lists
    .map((a) => Math.round(a.ms))
    .sort((a, b) => b - a)
    .slice(0, 5)
    .join(', ')} ms`;

describe('a 70 MB thread', () => {
  it('is forked while other requests are answered', async () => {
    const p = await probed('thread/fork', { threadId: dense.id });
    expect(p.answer.error).toBeUndefined();
    const result = p.answer.result as { thread: { id: string; forkedFromId: string | null; turns: unknown[] } };
    expect(result.thread.forkedFromId).toBe(dense.id);
    expect(result.thread.turns.length).toBe(100);
    const slowest = Math.max(...p.lists.map((a) => a.ms));
    expect(p.interleaved, summary(p)).toBeGreaterThanOrEqual(INTERLEAVED);
    expect(slowest, summary(p)).toBeLessThanOrEqual(BOUND_MS);
    // The fork is indexed: it lists beside its source.
    const listed = await client.request<{ data: { id: string }[] }>('thread/list', {});
    expect(listed.data.map((t) => t.id).sort()).toEqual([dense.id, long.id, result.thread.id].sort());
  }, 120_000);

  it('is read with all its turns while other requests are answered', async () => {
    const p = await probed('thread/read', { threadId: long.id, includeTurns: true });
    expect(p.answer.error).toBeUndefined();
    const result = p.answer.result as { thread: { id: string; turns: { id: string }[] } };
    expect(result.thread.turns.map((t) => t.id)).toEqual(long.turnIds);
    const slowest = Math.max(...p.lists.map((a) => a.ms));
    expect(p.interleaved, summary(p)).toBeGreaterThanOrEqual(INTERLEAVED);
    expect(slowest, summary(p)).toBeLessThanOrEqual(BOUND_MS);
  }, 120_000);
});
