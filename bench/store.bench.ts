// The thread store at scale: 10,000 generated threads of realistic sizes (20–200 KB, a few of several MB,
// about 1 GB in all) written straight to a temporary WEFT_HOME, then: a cold index build (and how long the
// event loop is ever held during it), list / cwd-filtered list / full-text search in a long-lived process,
// start-up + first list as a whole process, and read / resume of one 50 MB thread of 20,000 items (in a
// fresh process each, with its peak RSS).
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ThreadStore } from '../src-main/store';
import { rolloutPath } from '../src-main/store/paths';
import { measureProcess, median, type BenchRow } from './measure';

interface BenchResult {
  title: string;
  rows: BenchRow[];
  notes?: string[];
}

const THREADS = 10_000;
const BIG_THREADS = 5;
const HUGE_ITEMS = 20_000;
const HUGE_BYTES = 50 * 1024 * 1024;
const CWDS = 40;
const RARE_WORD = 'quasarline';

// ---- deterministic content ------------------------------------------------------------------------------

let seed = 12345;
function rand(): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'ta',
  'ven',
  'sol',
  'dor',
  'pi',
  'qua',
  'zen',
  'bri',
  'tor',
  'fel',
  'gan',
];
const COMMON = [
  'the',
  'parser',
  'test',
  'fix',
  'build',
  'error',
  'file',
  'function',
  'module',
  'config',
  'server',
  'client',
  'update',
  'type',
  'value',
];
const VOCAB: string[] = [...COMMON];
for (let i = 0; VOCAB.length < 3000; i++)
  VOCAB.push(pick(SYLLABLES) + pick(SYLLABLES) + (i % 3 === 0 ? pick(SYLLABLES) : ''));

/** Text with a Zipf-like spread of words: a few very common, a long tail. */
function words(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(VOCAB[Math.floor(VOCAB.length * rand() ** 3)] ?? 'x');
  return out.join(' ');
}

/** Command outputs of various sizes, JSON-encoded once. */
const OUTPUTS: string[] = [];
for (let i = 0; i < 64; i++) {
  const lines: string[] = [];
  const size = 300 + Math.floor(12_000 * rand() ** 2);
  for (let len = 0; len < size;) {
    const l = `src/${pick(VOCAB)}/${pick(VOCAB)}.ts:${Math.floor(rand() * 900)}: ${words(6)}`;
    lines.push(l);
    len += l.length + 1;
  }
  OUTPUTS.push(JSON.stringify(lines.join('\n')));
}
const BASE_INSTRUCTIONS = JSON.stringify(words(900));

const line = (ts: string, type: string, payload: string): string =>
  `{"timestamp":"${ts}","type":"${type}","payload":${payload}}\n`;

/** One rollout in Weft's format, about `bytes` long (or `items` items when given). */
export function rollout(
  id: string,
  created: number,
  cwd: string,
  bytes: number,
  opts: { rare?: boolean; items?: number; outputs?: string[] } = {},
): string {
  const parts: string[] = [];
  let size = 0;
  const push = (s: string): void => {
    parts.push(s);
    size += s.length;
  };
  let t = created;
  const ts = (): string => new Date((t += 1500)).toISOString();
  push(
    line(
      ts(),
      'session_meta',
      `{"id":"${id}","forked_from_id":null,"timestamp":"${new Date(created).toISOString()}","cwd":${JSON.stringify(cwd)},"originator":"weft","cli_version":"0.1.0","source":"appServer","model_provider":"openai","base_instructions":{"text":${BASE_INSTRUCTIONS}},"git":{"commit_hash":"0123456789abcdef","branch":"main","repository_url":null}}`,
    ),
  );
  const outputs = opts.outputs ?? OUTPUTS;
  let items = 0;
  for (let turn = 0; opts.items !== undefined ? items < opts.items : size < bytes; turn++) {
    const turnId = `${id.slice(0, 8)}-t${turn}`;
    const started = Math.floor(t / 1000);
    push(
      line(
        ts(),
        'event_msg',
        `{"type":"turn_started","turn_id":"${turnId}","weft_turn":{"id":"${turnId}","status":"inProgress","error":null,"startedAt":${started},"completedAt":null,"durationMs":null}}`,
      ),
    );
    push(
      line(
        ts(),
        'turn_context',
        `{"turn_id":"${turnId}","cwd":${JSON.stringify(cwd)},"approval_policy":"on-request","sandbox_policy":{"type":"workspace-write","writable_roots":[],"network_access":false},"model":"gpt-5.1-codex","effort":"medium","summary":"auto"}`,
      ),
    );
    const ask = JSON.stringify(
      `${turn === 0 && opts.rare ? `${RARE_WORD} ` : ''}${words(8 + Math.floor(rand() * 40))}`,
    );
    push(
      line(ts(), 'response_item', `{"type":"message","role":"user","content":[{"type":"input_text","text":${ask}}]}`),
    );
    push(
      line(
        ts(),
        'event_msg',
        `{"type":"weft_item_completed","turn_id":"${turnId}","item":{"type":"userMessage","id":"${turnId}-u","content":[{"type":"text","text":${ask}}]}}`,
      ),
    );
    push(
      line(
        ts(),
        'event_msg',
        `{"type":"user_message","weft_mirror":true,"message":${ask},"images":null,"local_images":[]}`,
      ),
    );
    items++;
    push(
      line(
        ts(),
        'response_item',
        `{"type":"reasoning","summary":[{"type":"summary_text","text":"Looking into it"}],"encrypted_content":"gAAAA${'x'.repeat(200)}"}`,
      ),
    );
    push(
      line(
        ts(),
        'event_msg',
        `{"type":"weft_item_completed","turn_id":"${turnId}","item":{"type":"reasoning","id":"${turnId}-r","summary":["Looking into it"],"content":[]}}`,
      ),
    );
    items++;
    const commands = 1 + Math.floor(rand() * 4);
    for (let c = 0; c < commands; c++) {
      const callId = `${turnId}-c${c}`;
      const out = pick(outputs);
      push(
        line(
          ts(),
          'response_item',
          `{"type":"function_call","name":"exec_command","arguments":"{\\"cmd\\":\\"npm test\\"}","call_id":"${callId}"}`,
        ),
      );
      push(
        line(
          ts(),
          'event_msg',
          `{"type":"weft_item_completed","turn_id":"${turnId}","item":{"type":"commandExecution","id":"${callId}","command":"npm test","cwd":${JSON.stringify(cwd)},"processId":null,"status":"completed","commandActions":[],"aggregatedOutput":${out},"exitCode":0,"durationMs":812}}`,
        ),
      );
      push(line(ts(), 'response_item', `{"type":"function_call_output","call_id":"${callId}","output":${out}}`));
      items++;
    }
    const answer = JSON.stringify(words(30 + Math.floor(rand() * 200)));
    push(
      line(
        ts(),
        'response_item',
        `{"type":"message","role":"assistant","content":[{"type":"output_text","text":${answer}}],"phase":"final_answer"}`,
      ),
    );
    push(
      line(
        ts(),
        'event_msg',
        `{"type":"weft_item_completed","turn_id":"${turnId}","item":{"type":"agentMessage","id":"${turnId}-a","text":${answer},"phase":"final_answer"}}`,
      ),
    );
    push(
      line(ts(), 'event_msg', `{"type":"agent_message","weft_mirror":true,"message":${answer},"phase":"final_answer"}`),
    );
    items++;
    const total = 1000 * (turn + 1);
    push(
      line(
        ts(),
        'event_msg',
        `{"type":"token_count","info":{"total_token_usage":{"input_tokens":${total},"cached_input_tokens":0,"output_tokens":100,"reasoning_output_tokens":10,"total_tokens":${total + 100}},"last_token_usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":100,"reasoning_output_tokens":10,"total_tokens":1100},"model_context_window":272000},"rate_limits":null}`,
      ),
    );
    const done = Math.floor(t / 1000);
    push(
      line(
        ts(),
        'event_msg',
        `{"type":"turn_complete","turn_id":"${turnId}","last_agent_message":null,"weft_turn":{"id":"${turnId}","status":"completed","error":null,"startedAt":${started},"completedAt":${done},"durationMs":${(done - started) * 1000}}}`,
      ),
    );
  }
  return parts.join('');
}

export function uuidv7At(ms: number, n: number): string {
  const hex =
    ms.toString(16).padStart(12, '0') +
    '7' +
    n.toString(16).padStart(3, '0').slice(-3) +
    '8' +
    Math.floor(rand() * 2 ** 48)
      .toString(16)
      .padStart(15, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

interface Generated {
  bytes: number;
  hugeId: string;
  cwd: string;
}

function generate(home: string): Generated {
  const now = Date.UTC(2026, 10, 1);
  let bytes = 0;
  let hugeId = '';
  const cwds = Array.from({ length: CWDS }, (_, i) => `/home/dev/projects/project-${i}`);
  for (let i = 0; i < THREADS; i++) {
    const created = now - Math.floor((THREADS - i) * 3_000_000 * (0.5 + rand()));
    const id = uuidv7At(created, i);
    const cwd = cwds[Math.floor(CWDS * rand() ** 2)] ?? '/';
    let text: string;
    if (i === THREADS - 100) {
      hugeId = id;
      // ~2.5 KB command outputs: 20,000 items in ~50 MB.
      const mid = OUTPUTS.filter((o) => o.length > 1200 && o.length < 3500);
      text = rollout(id, created, cwd, HUGE_BYTES, { items: HUGE_ITEMS, outputs: mid.length > 0 ? mid : OUTPUTS });
    } else {
      const big = i % Math.floor(THREADS / BIG_THREADS) === 7;
      const size = big ? 3_000_000 + Math.floor(rand() * 2_000_000) : Math.floor(20_000 * 10 ** rand());
      text = rollout(id, created, cwd, size, { rare: i % 500 === 3 });
    }
    const path = rolloutPath(home, new Date(created), id);
    mkdirSync(resolve(path, '..'), { recursive: true });
    writeFileSync(path, text);
    bytes += Buffer.byteLength(text);
  }
  return { bytes, hugeId, cwd: cwds[0] ?? '/' };
}

// ---- measuring ---------------------------------------------------------------------------------------

function timeMedian(runs: number, fn: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < runs + 3; i++) {
    const t0 = performance.now();
    fn();
    if (i >= 3) times.push(performance.now() - t0);
  }
  return median(times);
}

const PROBE = `
import { ThreadStore } from './src-main/store';
const [mode, home, id] = process.argv.slice(2);
const report = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
if (mode === 'startup') {
  const store = ThreadStore.open(home);
  const page = store.list({ limit: 25 });
  report({ n: page.data.length, sinceStartMs: performance.now() });
  process.exit(0);
}
const store = ThreadStore.open(home, { repair: false });
const rssBefore = process.memoryUsage().rss;
const c0 = process.cpuUsage();
const t0 = performance.now();
let turns = 0, items = 0, history = 0;
if (mode === 'read') {
  const r = store.read(id, { includeTurns: true, turnsLimit: 50 });
  turns = r.thread.turns.length; items = r.thread.turns.reduce((n, t) => n + t.items.length, 0);
} else if (mode === 'read-all') {
  const r = store.read(id, { includeTurns: true });
  turns = r.thread.turns.length; items = r.thread.turns.reduce((n, t) => n + t.items.length, 0);
} else {
  // What thread/resume does: the thread and its newest turns; the history is read by the first turn.
  const opened = await store.openForAppendAsync(id, { turnsLimit: 50 });
  const s = opened.state;
  turns = s.turns.length; items = s.turns.reduce((n, t) => n + t.items.length, 0);
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const resumedPeakMiB = process.resourceUsage().maxRSS / 1024;
  const h0 = performance.now();
  const later = await s.loadHistory();
  const historyMs = performance.now() - h0;
  report({ ms, cpuMs: (c.user + c.system) / 1000, turns, items, history: later.items.length, historyMs, resumedPeakMiB, rssBeforeMiB: rssBefore / 1048576, peakRssMiB: process.resourceUsage().maxRSS / 1024 });
  process.exit(0);
}
const ms = performance.now() - t0;
const c = process.cpuUsage(c0);
report({ ms, cpuMs: (c.user + c.system) / 1000, turns, items, history, rssBeforeMiB: rssBefore / 1048576, peakRssMiB: process.resourceUsage().maxRSS / 1024 });
process.exit(0);
`;

async function probe(
  root: string,
  args: string[],
): Promise<{ wallMs: number; peakRssMiB: number; out: Record<string, number> }> {
  const r = await measureProcess([process.execPath, join(root, 'bench/.work/store-probe.mjs'), ...args], { cwd: root });
  if (r.exitCode !== 0) throw new Error(`store probe ${args[0]} failed: ${r.stderr}`);
  const parsed: unknown = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}');
  const out: Record<string, number> = {};
  if (typeof parsed === 'object' && parsed !== null)
    for (const [k, v] of Object.entries(parsed)) if (typeof v === 'number') out[k] = v;
  return { wallMs: r.wallMs, peakRssMiB: r.peakRssMiB, out };
}

export default async function run(): Promise<BenchResult> {
  const root = process.cwd();
  const loadBefore = loadavg()[0] ?? 0;
  const home = mkdtempSync(join(tmpdir(), 'weft-bench-store-'));
  try {
    await build({
      stdin: { contents: PROBE, resolveDir: root, loader: 'ts', sourcefile: 'store-probe.ts' },
      outfile: join(root, 'bench/.work/store-probe.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      external: ['better-sqlite3'],
      logLevel: 'warning',
    });
    const genStart = performance.now();
    const gen = generate(home);
    const genSeconds = (performance.now() - genStart) / 1000;

    // Cold build, with lists answered while it runs and the event loop watched.
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const buildStart = performance.now();
    const buildCpu = process.cpuUsage();
    const store = ThreadStore.open(home, { onWarning: () => undefined });
    const firstListStart = performance.now();
    store.list({ limit: 25 });
    const firstListMs = performance.now() - firstListStart;
    let listsDuringBuild = 0;
    let slowestListDuringBuild = 0;
    const ticker = setInterval(() => {
      const t0 = performance.now();
      store.list({ limit: 25 });
      slowestListDuringBuild = Math.max(slowestListDuringBuild, performance.now() - t0);
      listsDuringBuild++;
    }, 50);
    await store.whenIndexed();
    const buildSeconds = (performance.now() - buildStart) / 1000;
    const buildCpuUsage = process.cpuUsage(buildCpu);
    const buildCpuSeconds = (buildCpuUsage.user + buildCpuUsage.system) / 1e6;
    clearInterval(ticker);
    delay.disable();
    const maxStallMs = delay.max / 1e6;

    const all = store.list({ limit: 100 });
    const listMs = timeMedian(200, () => store.list({ limit: 25 }));
    const cwdMs = timeMedian(200, () => store.list({ limit: 25, cwd: gen.cwd }));
    const updatedMs = timeMedian(200, () => store.list({ limit: 25, sortKey: 'updated_at' }));
    const rareHits = store.list({ limit: 100, searchTerm: RARE_WORD }).data.length;
    const rareMs = timeMedian(100, () => store.list({ limit: 25, searchTerm: RARE_WORD }));
    const commonHits = store.list({ limit: 100, searchTerm: 'parser test' }).data.length;
    const commonMs = timeMedian(50, () => store.list({ limit: 25, searchTerm: 'parser test' }));
    const prefixMs = timeMedian(50, () => store.list({ limit: 25, searchTerm: 'fix buil' }));
    let cursor: string | null = null;
    for (let i = 0; i < 200; i++) cursor = store.list({ limit: 25, cursor }).nextCursor;
    const deepMs = timeMedian(200, () => store.list({ limit: 25, cursor }));
    await store.close();

    const startups: number[] = [];
    const startupsInProcess: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await probe(root, ['startup', home]);
      if (i === 0) continue;
      startups.push(r.wallMs);
      startupsInProcess.push(r.out['sinceStartMs'] ?? 0);
      bare.push((await measureProcess([process.execPath, '-e', '0'])).wallMs);
    }
    const read = await probe(root, ['read', home, gen.hugeId]);
    const resume = await probe(root, ['resume', home, gen.hugeId]);
    const readAll = await probe(root, ['read-all', home, gen.hugeId]);

    const gb = (gen.bytes / 1e9).toFixed(2);
    return {
      title: 'Thread store (10,000 threads)',
      rows: [
        {
          name: 'list: first page (25)',
          value: listMs,
          unit: 'ms',
          target: '≤ 5 ms',
          note: `of ${THREADS} threads, median of 200`,
        },
        { name: 'list: first page filtered by cwd', value: cwdMs, unit: 'ms', target: '≤ 10 ms' },
        { name: 'list: first page sorted by updated_at', value: updatedMs, unit: 'ms', target: '≤ 5 ms' },
        {
          name: 'list: page 201 (by cursor)',
          value: deepMs,
          unit: 'ms',
          target: 'same as page 1',
          note: 'keyset paging: cost does not grow with depth or thread count',
        },
        { name: 'search: rare word', value: rareMs, unit: 'ms', target: '≤ 20 ms', note: `${rareHits} threads match` },
        {
          name: 'search: two common words',
          value: commonMs,
          unit: 'ms',
          target: '≤ 20 ms',
          note: `${commonHits === 100 ? '100+' : commonHits} threads match`,
        },
        { name: 'search: word + prefix', value: prefixMs, unit: 'ms', target: '≤ 20 ms' },
        {
          name: 'cold index build',
          value: buildSeconds,
          unit: 's',
          target: '≤ 5 s',
          note: `${THREADS} rollouts, ${gb} GB; CPU ${buildCpuSeconds.toFixed(1)} s`,
        },
        {
          name: 'cold build: longest event-loop stall',
          value: maxStallMs,
          unit: 'ms',
          target: 'never blocking',
          note: `${listsDuringBuild} lists answered during the build, slowest ${slowestListDuringBuild.toFixed(1)} ms`,
        },
        {
          name: 'cold build: first list right after open',
          value: firstListMs,
          unit: 'ms',
          note: 'answers from what is indexed so far',
        },
        {
          name: 'start-up + first list (whole process)',
          value: median(startups),
          unit: 'ms',
          target: '≤ 150 ms',
          note: `bare \`node -e 0\` on this machine: ${median(bare).toFixed(0)} ms`,
        },
        {
          name: 'start-up + first list (inside the process)',
          value: median(startupsInProcess),
          unit: 'ms',
          note: 'performance.now() at the list result: Node start + loading the store + open + list',
        },
        {
          name: 'read with turns, 50 MB thread (newest 50 turns)',
          value: read.out['ms'] ?? -1,
          unit: 'ms',
          target: '≤ 400 ms',
          note: `${read.out['items']} items of ${HUGE_ITEMS}; CPU ${(read.out['cpuMs'] ?? 0).toFixed(0)} ms`,
        },
        {
          name: 'read with turns: peak RSS of the process',
          value: read.peakRssMiB,
          unit: 'MiB',
          target: '≤ 150 MiB',
          note: `${(read.out['rssBeforeMiB'] ?? 0).toFixed(0)} MiB before the read`,
        },
        {
          name: 'resume 50 MB thread (newest 50 turns; history located)',
          value: resume.out['ms'] ?? -1,
          unit: 'ms',
          target: '≤ 250 ms',
          note: `${resume.out['items']} items; CPU ${(resume.out['cpuMs'] ?? 0).toFixed(0)} ms; what thread/resume does`,
        },
        {
          name: 'resume: peak RSS of the process',
          value: Number((resume.out['resumedPeakMiB'] ?? -1).toFixed(1)),
          unit: 'MiB',
          target: '≤ 120 MiB',
        },
        {
          name: 'then the first turn reads the history',
          value: Number((resume.out['historyMs'] ?? -1).toFixed(0)),
          unit: 'ms',
          note: `${resume.out['history']} history items; peak RSS after it ${resume.peakRssMiB.toFixed(0)} MiB`,
        },
        {
          name: 'read all 20,000 items at once (unpaged)',
          value: readAll.out['ms'] ?? -1,
          unit: 'ms',
          note: `peak RSS ${readAll.peakRssMiB.toFixed(0)} MiB; what paging avoids`,
        },
      ],
      notes: [
        `Generated ${THREADS} rollouts (${gb} GB: 20–200 KB each, ${BIG_THREADS} of 3–5 MB, one of 50 MB / ${HUGE_ITEMS} items) in ${genSeconds.toFixed(1)} s; ${all.data.length} listed after the build.`,
        'List and search timings are medians inside one long-lived process after the build; the whole-process rows spawn a fresh Node.',
        'The cold build runs in slices of about 8 ms between which the event loop is free; lists are answered from what is indexed so far.',
        `Machine load (1-minute average) ${loadBefore.toFixed(1)} before and ${(loadavg()[0] ?? 0).toFixed(1)} after the run, on ${availableParallelism()} cores: wall times include waiting for a core; CPU times do not.`,
      ],
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
