// The host serves every thread from one process: taking, previewing, reverting and forking checkpoints of
// big workspaces must not hold it. Through the real `weft app-server` binary (mock Responses server, real
// sandbox), a client asks `thread/list` / `thread/loaded/list` every 10 ms while (1) a command writes
// 20 files of 8 MiB and is checkpointed, (2) a command changes 3,000 files of 8 KB, that turn is
// previewed, forked with its files and reverted. Answers must keep coming during the work, none waiting
// long. The bound (500 ms) is generous for a loaded 2-core machine; before the work moved off the event
// loop the waits were 2-6 s.
import { readdirSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockModelConfig, startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient, type RpcMessage } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const MAX_WAIT_MS = 500;
const BIG_FILES = 20;
const MANY_FILES = 3000;

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let client: StdioRpcClient | null = null;
let stopPinging: (() => Promise<void>) | null = null;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'README.md': 'a project\n' });
  home = await makeWeftHome(mockModelConfig(server.url, 2));
});

afterEach(async () => {
  await stopPinging?.();
  stopPinging = null;
  await client?.close();
  client = null;
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

const answer = (text: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evAssistantMessage(text), evCompleted()],
});
const command = (id: string, cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd, yield_time_ms: 30_000 }), evCompleted()],
});

/** One answered ping: when it was sent and answered (ms, performance.now()). */
interface Ping {
  sent: number;
  answered: number;
}

/**
 * Asks `thread/list` and `thread/loaded/list` in turn every 10 ms until stopped; `pings` holds every
 * answered one. A stalled server answers late, so the wait of each is what a window would have felt.
 */
function startPinging(rpc: StdioRpcClient): {
  pings: Ping[];
  answeredUpTo(time: number): Promise<void>;
  stop(): Promise<void>;
} {
  const pings: Ping[] = [];
  const inFlight = new Map<Promise<unknown>, number>();
  let n = 0;
  const timer = setInterval(() => {
    const sent = performance.now();
    const call = rpc
      .call(n++ % 2 === 0 ? 'thread/list' : 'thread/loaded/list', n % 2 === 0 ? { limit: 5 } : {})
      .then((reply: RpcMessage) => {
        expect(reply.error).toBeUndefined();
        pings.push({ sent, answered: performance.now() });
      })
      .finally(() => inFlight.delete(call));
    inFlight.set(call, sent);
  }, 10);
  const stop = async (): Promise<void> => {
    clearInterval(timer);
    await Promise.allSettled(inFlight.keys());
  };
  stopPinging = stop;
  return {
    pings,
    answeredUpTo: async (time) => {
      await Promise.all([...inFlight].filter(([, sent]) => sent <= time).map(([call]) => call));
    },
    stop,
  };
}

/** The longest wait of the pings sent in [from, to], and how many were answered inside it. */
function during(pings: Ping[], from: number, to: number): { maxWaitMs: number; answeredInside: number } {
  let maxWaitMs = 0;
  let answeredInside = 0;
  for (const ping of pings) {
    if (ping.sent >= from && ping.sent <= to) maxWaitMs = Math.max(maxWaitMs, ping.answered - ping.sent);
    if (ping.answered > from && ping.answered < to) answeredInside += 1;
  }
  return { maxWaitMs: Math.round(maxWaitMs), answeredInside };
}

async function startServer(): Promise<StdioRpcClient> {
  client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
  await client.initialize();
  return client;
}

/** Runs a turn to its end; resolves with its id. */
async function runTurn(rpc: StdioRpcClient, threadId: string, text: string): Promise<string> {
  const from = rpc.received.length;
  const { turn } = await rpc.request<{ turn: { id: string } }>('turn/start', {
    threadId,
    input: [{ type: 'text', text }],
  });
  const done = await rpc.notification('turn/completed', (p) => JSON.stringify(p).includes(turn.id), from);
  expect(done, JSON.stringify(done).slice(-600)).toMatchObject({ turn: { id: turn.id, status: 'completed' } });
  return turn.id;
}

describe.skipIf(process.platform !== 'linux')('checkpoints of big workspaces do not hold the host', () => {
  it('20 files of 8 MiB: answers keep coming while the command is checkpointed', async () => {
    const rpc = await startServer();
    const { thread } = await rpc.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    // Incompressible-ish content (base64 of random bytes), exactly 8 MiB a file (the per-file limit).
    const write = `for i in $(seq 1 ${BIG_FILES}); do head -c 6291456 /dev/urandom | base64 -w0 > big$i.txt; done; echo all-written`;
    server.enqueueMany([command('c1', write), answer('written')]);
    const pinging = startPinging(rpc);
    const from = rpc.received.length;
    const turnId = await runTurn(rpc, thread.id, 'write big files');
    await pinging.stop();
    // The checkpoint runs between the command's last output and the end of its item.
    const written = rpc.received.findIndex(
      (m, i) =>
        i >= from && m.method === 'item/commandExecution/outputDelta' && JSON.stringify(m).includes('all-written'),
    );
    expect(written).toBeGreaterThanOrEqual(0);
    const item = rpc.received.findIndex(
      (m, i) => i > written && m.method === 'item/completed' && JSON.stringify(m).includes('commandExecution'),
    );
    expect(item).toBeGreaterThan(written);
    // Pings both sent and answered between the two: the host answered while it checkpointed.
    const window = { from: rpc.receivedAt[written] ?? 0, to: rpc.receivedAt[item] ?? 0 };
    const inside = pinging.pings.filter((p) => p.sent > window.from && p.answered < window.to);
    expect(inside.length).toBeGreaterThan(0);
    const waits = pinging.pings.map((p) => p.answered - p.sent);
    expect(Math.round(Math.max(...waits))).toBeLessThan(MAX_WAIT_MS);

    // The checkpoint is whole: every file is restorable.
    const preview = await rpc.request<{ files: { path: string; change: string; unrestorable?: string | null }[] }>(
      'weft/checkpoints/preview',
      { threadId: thread.id, beforeTurnId: turnId },
    );
    expect(preview.files.map((f) => [f.path, f.change, f.unrestorable ?? null]).sort()).toEqual(
      Array.from({ length: BIG_FILES }, (_, i) => [`big${i + 1}.txt`, 'delete', null]).sort(),
    );
  }, 120_000);

  it('3,000 files of 8 KB: the checkpoint, preview, fork and revert keep answering', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < MANY_FILES; i++) files[`many/d${i % 30}/f${i}.txt`] = `${i}`.padEnd(8191, '.') + '\n';
    await ws.cleanup();
    ws = await makeTempWorkspace(files);
    const rpc = await startServer();
    const { thread } = await rpc.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    // A first turn takes the baseline of the workspace (the first look stores every file once).
    server.enqueueMany([command('c0', 'true'), answer('looked')]);
    await runTurn(rpc, thread.id, 'look');
    server.enqueueMany([command('c1', 'for f in many/*/*.txt; do echo changed >> "$f"; done'), answer('changed')]);
    const pinging = startPinging(rpc);
    const phases: Record<string, { maxWaitMs: number; answeredInside: number; tookMs: number }> = {};
    const phase = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const start = performance.now();
      const result = await work();
      const end = performance.now();
      // Every ping sent during the phase is counted in it, answered.
      await pinging.answeredUpTo(end);
      phases[name] = { ...during(pinging.pings, start, end), tookMs: Math.round(end - start) };
      return result;
    };
    const turnId = await phase('checkpoint', () => runTurn(rpc, thread.id, 'change every file'));
    const preview = await phase('preview', () =>
      rpc.request<{ files: unknown[] }>('weft/checkpoints/preview', { threadId: thread.id, beforeTurnId: turnId }),
    );
    expect(preview.files).toHaveLength(MANY_FILES);
    const fork = await phase('fork', () =>
      rpc.request<{ thread: { cwd: string } }>('thread/fork', {
        threadId: thread.id,
        weftTurnId: turnId,
        weftWorktree: true,
      }),
    );
    const reverted = await phase('revert', () =>
      rpc.request<{ weftFiles: { restored: string[]; notRestored: unknown[] } }>('thread/revert', {
        threadId: thread.id,
        beforeTurnId: turnId,
        weftRestoreFiles: true,
      }),
    );
    await pinging.stop();
    expect(reverted.weftFiles.restored).toHaveLength(MANY_FILES);
    expect(reverted.weftFiles.notRestored).toEqual([]);
    expect(readdirSync(`${fork.thread.cwd}/many/d0`)).toHaveLength(MANY_FILES / 30);
    expect(await ws.read('many/d0/f0.txt')).toBe(`${'0'.padEnd(8191, '.')}\n`);
    // Every phase: no answer waited long; a phase that took a while was answered through.
    for (const [name, measured] of Object.entries(phases)) {
      expect({ name, slow: measured.maxWaitMs >= MAX_WAIT_MS }, JSON.stringify(phases)).toEqual({
        name,
        slow: false,
      });
      if (measured.tookMs > 300)
        expect(measured.answeredInside, `${name}: ${JSON.stringify(measured)}`).toBeGreaterThan(0);
    }
  }, 180_000);
});
