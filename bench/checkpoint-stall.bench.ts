// How long other requests wait while checkpoints of a big workspace are taken, previewed, forked and
// reverted: the host serves every thread from one process, so a synchronous stretch there is a frozen
// window for every thread. A `weft app-server` subprocess (mock Responses server, real sandbox) is asked
// `thread/list` / `thread/loaded/list` every 10 ms by its client while (1) a command writes 20 files of
// 8 MiB and is checkpointed; (2) a command changes 3,000 files of 8 KB, and that turn is previewed,
// forked with its files (a copy) and reverted; (3) a command deletes them all. The value is the slowest
// answer (wall clock) during each step. With WEFT_BASELINE_BIN (the `bin/weft.js` of another build, e.g. the previous main) the same
// steps run against it too, alternating, so both see the machine's load alike.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startMockResponsesServer, type MockResponsesServer } from '../test/support/mock-responses-server';
import { StdioRpcClient } from '../test/support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../test/support/sse';
import { writeMockHome, writeSmallFiles } from './mock-project';
import type { BenchRow } from './measure';

const TARGET = '≤ 50 ms';
const BIG_FILES = 20;
const MANY_FILES = 3000;

interface Ping {
  sent: number;
  answered: number;
}

interface Step {
  /** Slowest answer to a ping sent during the step. */
  maxWaitMs: number;
  tookMs: number;
  pings: number;
}

const answer = (text: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evAssistantMessage(text), evCompleted()],
});
const command = (id: string, cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd, yield_time_ms: 30_000 }), evCompleted()],
});

async function scenario(bin: string, server: MockResponsesServer, scratch: string): Promise<Record<string, Step>> {
  const home = join(scratch, 'home');
  const ws = join(scratch, 'ws');
  mkdirSync(ws, { recursive: true });
  writeMockHome(home, server.url, 2);
  writeSmallFiles(join(ws, 'many'), MANY_FILES);
  const rpc = StdioRpcClient.start({ WEFT_HOME: home, MOCK_API_KEY: 'x' }, ws, bin, profiling());
  const pings: Ping[] = [];
  const inFlight = new Map<Promise<unknown>, number>();
  let n = 0;
  let timer: NodeJS.Timeout | null = null;
  try {
    await rpc.initialize();
    const turn = async (threadId: string, text: string): Promise<string> => {
      const from = rpc.received.length;
      const { turn: started } = await rpc.request<{ turn: { id: string } }>('turn/start', {
        threadId,
        input: [{ type: 'text', text }],
      });
      const done = await rpc.notification('turn/completed', (p) => JSON.stringify(p).includes(started.id), from);
      if (!JSON.stringify(done).includes('"status":"completed"'))
        throw new Error(`turn failed: ${JSON.stringify(done).slice(-400)}`);
      return started.id;
    };
    const { thread } = await rpc.request<{ thread: { id: string } }>('thread/start', { cwd: ws });
    server.enqueueMany([command('c0', 'true'), answer('looked')]);
    await turn(thread.id, 'look');
    timer = setInterval(() => {
      const sent = performance.now();
      const call = rpc
        .call(n++ % 2 === 0 ? 'thread/list' : 'thread/loaded/list', {})
        .then(() => pings.push({ sent, answered: performance.now() }))
        .finally(() => inFlight.delete(call));
      inFlight.set(call, sent);
    }, 10);
    const steps: Record<string, Step> = {};
    const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const start = performance.now();
      const result = await work();
      const end = performance.now();
      await Promise.all([...inFlight].filter(([, sent]) => sent <= end).map(([call]) => call));
      const inside = pings.filter((p) => p.sent >= start && p.sent <= end);
      steps[name] = {
        maxWaitMs: Math.round(Math.max(0, ...inside.map((p) => p.answered - p.sent))),
        tookMs: Math.round(end - start),
        pings: inside.length,
      };
      return result;
    };
    server.enqueueMany([
      command(
        'c1',
        `mkdir big; for i in $(seq 1 ${BIG_FILES}); do head -c 6291456 /dev/urandom | base64 -w0 > big/f$i.txt; done`,
      ),
      answer('written'),
    ]);
    // The files stay until the command's checkpoint is taken (all of their content is stored); a turn of
    // its own removes them, so the steps after it work on the 3,000 small files only.
    await step('big', () => turn(thread.id, 'write big files'));
    server.enqueueMany([command('c1b', 'rm -r big'), answer('removed')]);
    await turn(thread.id, 'remove big files');
    server.enqueueMany([command('c2', 'for f in many/*/*.txt; do echo changed >> "$f"; done'), answer('changed')]);
    const changed = await step('checkpoint', () => turn(thread.id, 'change every file'));
    await step('preview', () =>
      rpc.request('weft/checkpoints/preview', { threadId: thread.id, beforeTurnId: changed }),
    );
    await step('fork', () =>
      rpc.request('thread/fork', { threadId: thread.id, weftTurnId: changed, weftWorktree: true }),
    );
    await step('revert', () =>
      rpc.request('thread/revert', { threadId: thread.id, beforeTurnId: changed, weftRestoreFiles: true }),
    );
    // A turn's diff of 3,000 deleted files: each one's earlier content comes back from the store.
    server.enqueueMany([command('c3', 'rm many/*/*.txt'), answer('deleted')]);
    await step('delete', () => turn(thread.id, 'delete every file'));
    return steps;
  } finally {
    if (timer !== null) clearInterval(timer);
    await Promise.allSettled(inFlight.keys());
    await rpc.close();
  }
}

/** WEFT_STALL_PROFILE=DIR: each app server writes a CPU profile there (to find what held it). */
function profiling(): string[] {
  const dir = process.env['WEFT_STALL_PROFILE'];
  return dir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

export default async function run(): Promise<{ title: string; rows: BenchRow[]; notes: string[] }> {
  const here = process.cwd();
  const current = join(here, 'bin', 'weft.js');
  const baseline = process.env['WEFT_BASELINE_BIN'];
  const builds: [string, string][] = [['this build', current]];
  if (baseline !== undefined && baseline !== '') builds.push(['baseline', resolve(baseline)]);
  const runs = Number(process.env['WEFT_STALL_RUNS'] ?? '2');
  const results = new Map<string, Record<string, Step>[]>();
  const server = await startMockResponsesServer();
  const loadBefore = loadavg()[0]?.toFixed(1) ?? '?';
  try {
    for (let r = 0; r < runs; r++) {
      for (const [label, bin] of builds) {
        const scratch = mkdtempSync(join(tmpdir(), 'weft-cp-stall-'));
        try {
          const steps = await scenario(bin, server, scratch);
          results.set(label, [...(results.get(label) ?? []), steps]);
        } finally {
          rmSync(scratch, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await server.close();
  }
  const names: [string, string][] = [
    ['big', `command writing ${BIG_FILES} × 8 MiB, checkpointed`],
    ['checkpoint', `command changing ${MANY_FILES.toLocaleString('en')} files of 8 KB, checkpointed`],
    ['preview', `weft/checkpoints/preview of that turn`],
    ['fork', `thread/fork with its files (a copy of the folder)`],
    ['revert', `thread/revert with its files`],
    ['delete', `command deleting the ${MANY_FILES.toLocaleString('en')} files, checkpointed, with the turn's diff`],
  ];
  const rows: BenchRow[] = [];
  for (const [key, what] of names) {
    for (const [label] of builds) {
      const measured = (results.get(label) ?? []).map((steps) => steps[key]).filter((s) => s !== undefined);
      if (measured.length === 0) continue;
      const worst = Math.max(...measured.map((s) => s.maxWaitMs));
      rows.push({
        name: `${what}: slowest thread/list answer (${label})`,
        value: worst,
        unit: 'ms',
        target: TARGET,
        note: `per run ${measured.map((s) => `${s.maxWaitMs} ms (step ${s.tookMs} ms, ${s.pings} pings)`).join('; ')}`,
      });
    }
  }
  return {
    title: 'Requests during big checkpoints (app server)',
    rows,
    notes: [
      `A \`weft app-server\` subprocess and one client asking thread/list and thread/loaded/list every 10 ms; the value is the slowest answer to a ping sent during the step (wall clock, worst of ${runs} runs). Load ${loadBefore}→${loadavg()[0]?.toFixed(1) ?? '?'} on ${'2'} cores shared with other work: a wall-clock figure includes time the process waited for a core.`,
      baseline !== undefined && baseline !== ''
        ? `"baseline" is WEFT_BASELINE_BIN=${baseline}, run alternately with this build.`
        : 'Set WEFT_BASELINE_BIN to the bin/weft.js of another build to measure it alongside.',
    ],
  };
}
