// How long the core ever holds the event loop: in the desktop app it runs in Electron's main process, so
// any synchronous stretch freezes every window for that long. A 5 ms setInterval probe records, between two
// ticks, the wall-clock gap and the CPU time the process used (process.cpuUsage); perf_hooks'
// monitorEventLoopDelay gives the percentiles. The CPU figure is the stall our code caused: on this
// shared machine the wall-clock gap also counts time the process waited for a core. Over (1) a turn of 10,000
// items from a mock model, (2) thread/resume of a 50 MB rollout, both through the real app
// host with every message serialized as a transport would. The same probes are run just before over an idle
// loop for as long: on this shared, loaded machine the process also waits for a core, and that wait shows
// up as delay that no code of ours caused.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ModelClient, ModelEvent } from '../src-main/model/types';
import { createAppHost } from '../src-main/server/app-host';
import { rolloutPath } from '../src-main/store/paths';
import { rollout, uuidv7At } from './store.bench';
import type { BenchRow } from './measure';

const ITEMS = 10_000;
const TARGET = '≤ 50 ms';

interface ProbeResult {
  /** Longest wall-clock gap between two 5 ms ticks (includes time the process waited for a core). */
  maxMs: number;
  p99Ms: number;
  /** Most CPU time the process used between two ticks: the loop's longest stretch of our own work. */
  cpuMaxMs: number;
}

interface Probe {
  stop(): ProbeResult;
}

function startProbe(): Probe {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let cpuMax = 0;
  let wallMax = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    cpuMax = Math.max(cpuMax, (cpu.user + cpu.system) / 1000);
    wallMax = Math.max(wallMax, now - last);
    last = now;
    lastCpu = process.cpuUsage();
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      h.disable();
      return { maxMs: Math.max(h.max / 1e6, wallMax - 5), p99Ms: h.percentile(99) / 1e6, cpuMaxMs: cpuMax };
    },
  };
}

async function idleFor(ms: number): Promise<ProbeResult> {
  const probe = startProbe();
  await new Promise((r) => setTimeout(r, ms));
  return probe.stop();
}

/** A model that answers one request with `ITEMS` output items (reasoning and commentary messages), in bursts as SSE chunks arrive. */
function manyItemsModel(): ModelClient {
  return {
    async *stream(): AsyncGenerator<ModelEvent> {
      yield { type: 'created' };
      for (let i = 0; i < ITEMS; i++) {
        const item =
          i % 2 === 0
            ? {
                type: 'reasoning' as const,
                id: `rs_${i}`,
                summary: [{ type: 'summary_text' as const, text: `Step ${i}: looking at the next file` }],
                encrypted_content: 'gAAAA'.padEnd(200, 'x'),
              }
            : {
                type: 'message' as const,
                id: `msg_${i}`,
                role: 'assistant' as const,
                content: [
                  {
                    type: 'output_text' as const,
                    text: `Checked part ${i} of the module; moving on to the next one.`,
                    annotations: [],
                  },
                ],
                phase: 'commentary',
              };
        yield { type: 'outputItemAdded', item, outputIndex: i };
        yield { type: 'outputItemDone', item, outputIndex: i };
        if (i % 20 === 19) await new Promise((r) => setImmediate(r));
      }
      yield { type: 'completed', responseId: 'resp_1', usage: null };
    },
  };
}

async function host(home: string, cwd: string, modelClient?: ModelClient) {
  const app = await createAppHost({
    weftHome: home,
    cwd,
    env: { ...process.env, OPENAI_API_KEY: 'bench' },
    log: () => undefined,
    modelClient,
  });
  const waiters = new Map<number, (m: { result?: unknown; error?: unknown }) => void>();
  const listeners = new Set<(m: { method?: string; params?: unknown }) => void>();
  const connection = app.host.connect({
    label: 'bench',
    send: (message) => {
      // What a transport does with every message (serialize it), on the same thread.
      const m = JSON.parse(JSON.stringify(message)) as {
        id?: number;
        method?: string;
        params?: unknown;
        result?: unknown;
        error?: unknown;
      };
      if (m.id !== undefined && m.method === undefined) waiters.get(m.id)?.(m);
      else for (const l of listeners) l(m);
    },
  });
  let next = 1;
  const call = (method: string, params: unknown): Promise<{ result?: unknown; error?: unknown }> =>
    new Promise((r) => {
      const id = next++;
      waiters.set(id, r);
      connection.receive({ id, method, params });
    });
  await call('initialize', { clientInfo: { name: 'bench', version: '0' } });
  return { app, connection, call, listeners };
}

export default async function run(): Promise<{ title: string; rows: BenchRow[]; notes: string[] }> {
  const root = mkdtempSync(join(tmpdir(), 'weft-stall-'));
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  const load = (): string => loadavg()[0]?.toFixed(1) ?? '?';
  try {
    const cwd = join(root, 'project');
    mkdirSync(cwd, { recursive: true });

    // ---- a 10,000-item turn ----
    const loadBeforeTurn = load();
    const h1 = await host(join(root, 'home1'), cwd, manyItemsModel());
    const started = (await h1.call('thread/start', { cwd })) as { result?: { thread: { id: string } } };
    const threadId = started.result?.thread.id ?? '';
    let items = 0;
    const done = new Promise<void>((r) => {
      h1.listeners.add((m) => {
        if (m.method === 'item/completed') items++;
        if (m.method === 'turn/completed') r();
      });
    });
    const idleTurn = await idleFor(3000);
    const t0 = performance.now();
    const probe = startProbe();
    await h1.call('turn/start', { threadId, input: [{ type: 'text', text: 'go through every part' }] });
    await done;
    const turn = probe.stop();
    const turnMs = performance.now() - t0;
    h1.connection.close();
    await h1.app.close();
    rows.push({
      name: `${ITEMS.toLocaleString('en')}-item turn (mock model): longest stall, CPU time in one loop turn`,
      value: turn.cpuMaxMs,
      unit: 'ms',
      target: TARGET,
      note: `wall-clock max ${turn.maxMs.toFixed(0)} ms (idle loop beside it ${idleTurn.maxMs.toFixed(0)} ms), p99 ${turn.p99Ms.toFixed(1)} ms; ${items} items in ${(turnMs / 1000).toFixed(1)} s; load ${loadBeforeTurn}→${load()}`,
    });

    // ---- resume of a 50 MB thread ----
    const home2 = join(root, 'home2');
    const created = Date.UTC(2026, 10, 1);
    const id = uuidv7At(created, 1);
    const path = rolloutPath(home2, new Date(created), id);
    mkdirSync(resolve(path, '..'), { recursive: true });
    const text = rollout(id, created, cwd, 50 * 1024 * 1024);
    writeFileSync(path, text);
    const mb = Buffer.byteLength(text) / 1048576;
    const loadBeforeResume = load();
    const h2 = await host(home2, cwd);
    const idleResume = await idleFor(3000);
    const r0 = performance.now();
    const probe2 = startProbe();
    const resumed = await h2.call('thread/resume', { threadId: id });
    const resume = probe2.stop();
    const resumeMs = performance.now() - r0;
    if (resumed.error) throw new Error(`thread/resume failed: ${JSON.stringify(resumed.error)}`);
    h2.connection.close();
    await h2.app.close();
    rows.push({
      name: `thread/resume of a ${mb.toFixed(0)} MB thread: longest stall, CPU time in one loop turn`,
      value: resume.cpuMaxMs,
      unit: 'ms',
      target: TARGET,
      note: `wall-clock max ${resume.maxMs.toFixed(0)} ms (idle loop beside it ${idleResume.maxMs.toFixed(0)} ms), p99 ${resume.p99Ms.toFixed(1)} ms; answered in ${resumeMs.toFixed(0)} ms; load ${loadBeforeResume}→${load()}`,
    });
    notes.push(
      'In-process app host (store, thread manager, dispatcher) with one client whose messages are serialized as a transport would; the model is a mock streaming items in bursts of 20 per macrotask.',
    );
    notes.push(
      'The value is the most CPU time the process spent between two 5 ms ticks of the probe (all threads of the process, so an fsync or GC helper running then counts too: an upper bound of the stall our code caused). "Idle loop beside it": the wall-clock probe over 3 s of doing nothing just before, the part of a wall-clock figure that is the machine (2 cores shared by many processes).',
    );
    return { title: 'Main-thread stalls (the core in the main process)', rows, notes };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
