// Weft and Codex 0.169 side by side, in the same run, on the same inputs: `exec` (a plain answer; one tool
// call) as whole processes against the mock Responses server, `apply-patch` (2,000 hunks on a
// 200,000-line file; 500 new files), app-server start + initialize + first `thread/list` over 10,000
// threads, and `thread/resume` of a 50 MB thread. Runs alternate Weft, Codex, Weft, Codex… so that the
// machine's load falls on both alike; the ratio (Weft / Codex) is what to read on a shared machine.
//
// Codex is found through CODEX_BIN (the `codex` command installed with npm). Without it only Weft runs.
// Codex's apply_patch is its native binary called as `apply_patch` (the name it re-invokes itself by).
// Codex homes live under CODEX_BENCH_DIR (default bench/.work/side-by-side): Codex's sandbox refuses
// commands whose home is under /tmp.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { ThreadStore } from '../src-main/store';
import { rolloutFileName, rolloutPath } from '../src-main/store/paths';
import { startMockResponsesServer, type ScriptStep } from '../test/support/mock-responses-server';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall, evOutputTextDelta } from '../test/support/sse';
import { rollout as codexRollout, uuidv7At as codexId } from './codex-import.bench';
import { measureProcess, median, percentile, type BenchRow } from './measure';
import { rollout as weftRollout, uuidv7At as weftId } from './store.bench';

const ROOT = process.cwd();
const WEFT = resolve(ROOT, 'bin/weft.js');
const CODEX = process.env['CODEX_BIN'] ?? null;
const RUNS = Number(process.env['SIDE_BY_SIDE_RUNS'] ?? 9);
/** SIDE_BY_SIDE_ONLY=exec,apply-patch,app-server: the parts to run (default all). */
const ONLY = new Set((process.env['SIDE_BY_SIDE_ONLY'] ?? 'exec,apply-patch,app-server').split(','));
/** SIDE_BY_SIDE_KEEP=1: leave the work folder (the homes with their 10,000 threads, the patches) for probes. */
const KEEP = process.env['SIDE_BY_SIDE_KEEP'] === '1';
const THREADS = 10_000;
const HUGE_BYTES = 50 * 1024 * 1024;
const HUGE_ITEMS = 20_000;

/** `codex --version`, e.g. "codex-cli 0.169.0". */
export function codexVersion(bin: string): string {
  return spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim() || 'codex (version unknown)';
}

/** The native Codex binary behind the npm launcher (apply_patch is a mode of it). */
export function nativeCodex(bin: string): string {
  const real = realpathSync(bin);
  if (readFileSync(real).subarray(0, 4).toString('latin1') === '\x7fELF') return real;
  const pkg = dirname(dirname(real));
  for (const scope of [join(pkg, 'node_modules', '@openai'), dirname(pkg)].filter((d) => existsSync(d))) {
    for (const name of readdirSync(scope).filter((n) => /^codex-(linux|darwin)-/.test(n))) {
      const vendor = join(scope, name, 'vendor');
      for (const triple of existsSync(vendor) ? readdirSync(vendor) : []) {
        const exe = join(vendor, triple, 'bin', 'codex');
        if (existsSync(exe)) return exe;
      }
    }
  }
  throw new Error(`side-by-side: cannot find the native binary behind ${bin}`);
}

// ---- inputs ------------------------------------------------------------------------------------------

function bigPatch(): { content: string; patch: string } {
  const lines: string[] = [];
  for (let i = 0; i < 200_000; i++) lines.push(`line ${i} of the big file: value = ${(i * 7919) % 100_003};`);
  const patch = ['*** Begin Patch', '*** Update File: big.txt'];
  for (let h = 0; h < 2_000; h++) {
    const at = 50 + h * 99;
    patch.push('@@');
    for (let c = at - 3; c < at; c++) patch.push(` ${lines[c]}`);
    patch.push(`-${lines[at]}`, `+${lines[at]} // changed ${h}`);
    for (let c = at + 1; c <= at + 3; c++) patch.push(` ${lines[c]}`);
  }
  patch.push('*** End Patch');
  return { content: `${lines.join('\n')}\n`, patch: patch.join('\n') };
}

function manyFilesPatch(): string {
  const patch = ['*** Begin Patch'];
  for (let f = 0; f < 500; f++) {
    patch.push(`*** Add File: pkg${f % 10}/file${f}.ts`);
    for (let l = 0; l < 40; l++) patch.push(`+export const value${l} = ${f * 40 + l}; // generated line ${l}`);
  }
  patch.push('*** End Patch');
  return patch.join('\n');
}

/** 10,000 small threads (one of them 50 MB) in Weft's home and, in Codex's form, in Codex's home. */
function generateThreads(
  weftHome: string,
  codexHome: string | null,
  cwd: string,
): { weftHuge: string; codexHuge: string; weftHugeBytes: number; codexHugeBytes: number } {
  const now = Date.UTC(2026, 10, 1);
  let weftHuge = '';
  let codexHuge = '';
  let weftHugeBytes = 0;
  let codexHugeBytes = 0;
  for (let i = 0; i < THREADS; i++) {
    const created = now - (THREADS - i) * 60_000;
    const huge = i === THREADS - 100;
    const wid = weftId(created, i);
    const text = huge
      ? weftRollout(wid, created, cwd, HUGE_BYTES, { items: HUGE_ITEMS })
      : weftRollout(wid, created, cwd, 3_000);
    const path = rolloutPath(weftHome, new Date(created), wid);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    if (huge) {
      weftHuge = wid;
      weftHugeBytes = Buffer.byteLength(text);
    }
    if (codexHome === null) continue;
    const cid = codexId(created);
    const made = codexRollout(cid, created, cwd, huge ? HUGE_BYTES : 3_000, `task ${i}: fix the parser`, null, null);
    const d = new Date(created);
    const dir = join(
      codexHome,
      'sessions',
      String(d.getFullYear()),
      String(d.getMonth() + 1).padStart(2, '0'),
      String(d.getDate()).padStart(2, '0'),
    );
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, rolloutFileName(d, cid)), made.text);
    if (huge) {
      codexHuge = cid;
      codexHugeBytes = Buffer.byteLength(made.text);
    }
  }
  return { weftHuge, codexHuge, weftHugeBytes, codexHugeBytes };
}

// ---- measuring -----------------------------------------------------------------------------------------

interface Sample {
  wall: number[];
  rss: number[];
  /** CPU time (user + system) of the process and its children: what a run costs without waiting for a core. */
  cpu: number[];
}
const sample = (): Sample => ({ wall: [], rss: [], cpu: [] });
function record(into: Sample, run: { wallMs: number; peakRssMiB: number; cpuMs: number }): void {
  into.wall.push(run.wallMs);
  into.rss.push(run.peakRssMiB);
  into.cpu.push(run.cpuMs);
}

/**
 * Both programs' CPU time beside the wall ratio: on a loaded machine a wall time is mostly waiting for a
 * core, and a program spread over many threads (Codex's runtime) gets more of a shared machine than one
 * with one busy thread, so a wall ratio alone can make either look faster than it is.
 */
function cpuNote(r: { weft: Sample; codex: Sample | null }): string {
  const w = median(r.weft.cpu);
  if (r.codex === null) return `CPU ${w.toFixed(0)} ms`;
  const c = median(r.codex.cpu);
  return `CPU ${w.toFixed(0)} ms (Codex ${c.toFixed(0)} ms; ratio ${ratio(w, c)})`;
}

/** Peak RSS (VmHWM) of a process and its descendants, the largest of them, in MiB. */
function peakRssOfTree(pid: number): number {
  let peak = 0;
  const visit = (p: number): void => {
    try {
      const status = readFileSync(`/proc/${p}/status`, 'utf8');
      const m = /VmHWM:\s+(\d+) kB/.exec(status);
      if (m) peak = Math.max(peak, Number(m[1]) / 1024);
      for (const task of readdirSync(`/proc/${p}/task`)) {
        const children = readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').trim();
        for (const c of children.split(/\s+/).filter(Boolean)) visit(Number(c));
      }
    } catch {
      // the process is gone
    }
  };
  visit(pid);
  return peak;
}

interface AppServerRun {
  /** From spawn to the answer of the last request. */
  totalMs: number;
  /** The last request alone, from sending it to its answer. */
  lastMs: number;
  peakRssMiB: number;
  lastLineBytes: number;
}

/** Starts an app server, initializes, sends `requests` one after another; times them; stops it. */
function appServer(
  argv: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  requests: { method: string; params: unknown }[],
): Promise<AppServerRun> {
  return new Promise((resolveRun, reject) => {
    const started = performance.now();
    const [cmd, ...args] = argv;
    const child = spawn(cmd ?? '', args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    let id = 0;
    let sentAt = 0;
    let queue = [...requests];
    const send = (method: string, params: unknown): void => {
      id += 1;
      sentAt = performance.now();
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    };
    const fail = (why: string): void => {
      child.kill('SIGKILL');
      reject(new Error(`${argv.join(' ')}: ${why}\n${stderr.slice(-2000)}`));
    };
    lines.on('line', (line) => {
      const head = line.slice(0, 200);
      // A notification or a request from the server: not an answer.
      if (/^\{("jsonrpc":"2\.0",)?"method"/.test(head) || !head.includes(`"id":${id}`)) return;
      const now = performance.now();
      if (line.length < 4096 && line.includes('"error"')) return fail(`request ${id} failed: ${line}`);
      if (id === 1) child.stdin.write(`${JSON.stringify({ method: 'initialized' })}\n`);
      const next = queue[0];
      if (next !== undefined) {
        queue = queue.slice(1);
        send(next.method, next.params);
        return;
      }
      const peakRssMiB = peakRssOfTree(child.pid ?? 0);
      child.kill('SIGTERM');
      resolveRun({ totalMs: now - started, lastMs: now - sentAt, peakRssMiB, lastLineBytes: line.length });
    });
    child.on('error', (e) => fail(String(e)));
    child.on('exit', (code) => {
      if (code !== null && code !== 0 && queue.length > 0) fail(`exited with ${code}`);
    });
    send('initialize', { clientInfo: { name: 'weft-bench', title: null, version: '0' }, capabilities: null });
  });
}

/**
 * Starts an app server, initializes, then sends a `thread/list` every `everyMs` (`count` of them) while
 * its start-up work (the index check) runs; returns each list's time from request to answer.
 */
function listsDuringStart(
  argv: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  count: number,
  everyMs: number,
): Promise<number[]> {
  return new Promise((resolveRun, reject) => {
    const [cmd, ...args] = argv;
    const child = spawn(cmd ?? '', args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    const sentAt = new Map<number, number>();
    const took: number[] = [];
    let next = 1;
    let tick: NodeJS.Timeout | undefined;
    const send = (method: string, params: unknown): void => {
      sentAt.set(next, performance.now());
      child.stdin.write(`${JSON.stringify({ id: next, method, params })}\n`);
      next += 1;
    };
    const fail = (why: string): void => {
      clearInterval(tick);
      child.kill('SIGKILL');
      reject(new Error(`${argv.join(' ')}: ${why}\n${stderr.slice(-2000)}`));
    };
    lines.on('line', (line) => {
      const head = line.slice(0, 200);
      if (/^\{("jsonrpc":"2\.0",)?"method"/.test(head)) return;
      const id = Number(/"id":(\d+)/.exec(head)?.[1] ?? NaN);
      const at = sentAt.get(id);
      if (at === undefined) return;
      if (line.length < 4096 && line.includes('"error"')) return fail(`request ${id} failed: ${line}`);
      if (id === 1) {
        child.stdin.write(`${JSON.stringify({ method: 'initialized' })}\n`);
        let sent = 0;
        tick = setInterval(() => {
          if (sent++ < count) send('thread/list', { limit: 25 });
        }, everyMs);
        return;
      }
      took.push(performance.now() - at);
      if (took.length === count) {
        clearInterval(tick);
        child.kill('SIGTERM');
        resolveRun(took);
      }
    });
    child.on('error', (e) => fail(String(e)));
    send('initialize', { clientInfo: { name: 'weft-bench', title: null, version: '0' }, capabilities: null });
  });
}

/** The notes, with what was compared and the machine's load before (`loadBefore`) and now. */
function finalNotes(notes: string[]): string[] {
  const loadAfter = loadavg();
  return [
    ...notes,
    CODEX
      ? `Codex: ${codexVersion(CODEX)} from CODEX_BIN (exec and app-server through its npm launcher, as users run it; apply_patch through the native binary it re-invokes itself as). Runs alternate between the two programs.`
      : 'CODEX_BIN was not set: Weft only. Set CODEX_BIN to a Codex 0.169 `codex` command to measure both and print ratios.',
    'Wall times are whole processes (start-up included) except the resume row, which times the request inside a started server. Peak RSS: getrusage children (exec, apply-patch) or VmHWM of the process tree (app-server). CPU: user + system time of the process and its children (getrusage).',
    'A wall ratio moves with the machine\'s load: under load a run mostly waits for a core, and Codex, whose runtime spreads a run over many threads, gets more of a shared machine than a process with one busy thread; its first run on a new CODEX_HOME also creates its state database and tries to sync its plugins from GitHub. Read the CPU notes beside the ratios; what each program spends its time on is in bench/PROFILES.md ("Codex\'s time, and why a ratio moves").',
    `Machine load (1/5/15-minute averages) ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before and ${loadAfter.map((l) => l.toFixed(1)).join(' ')} after, on ${availableParallelism()} shared cores.`,
  ];
}

/**
 * Both programs' config homes pointed at the mock Responses server at `url`, approvals off; Codex's in
 * `workspace-write` with `project` trusted.
 */
export function writeMockHomes(weftHome: string, codexHome: string, url: string, project: string): void {
  writeFileSync(
    join(weftHome, 'config.toml'),
    `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\n`,
  );
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "mock-model"',
      'model_provider = "mock"',
      'approval_policy = "never"',
      'sandbox_mode = "workspace-write"',
      '[model_providers.mock]',
      'name = "mock"',
      `base_url = "${url}"`,
      'wire_api = "responses"',
      'env_key = "MOCK_API_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      `[projects."${project}"]`,
      'trust_level = "trusted"',
      '',
    ].join('\n'),
  );
}

const ratio = (w: number, c: number | null): string => (c === null || c === 0 ? '' : `${(w / c).toFixed(2)}×`);

let loadBefore = loadavg();

export default async function run() {
  loadBefore = loadavg();
  const work = resolve(process.env['CODEX_BENCH_DIR'] ?? join(ROOT, 'bench/.work/side-by-side'));
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const project = join(work, 'project');
  const weftHome = join(work, 'weft-home');
  const codexHome = join(work, 'codex-home');
  mkdirSync(project, { recursive: true });
  mkdirSync(weftHome, { recursive: true });
  mkdirSync(codexHome, { recursive: true });
  const server = await startMockResponsesServer();
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  try {
    writeMockHomes(weftHome, codexHome, server.url, project);
    // An empty HOME: commands run through a login shell, and the user's profile is not what is measured.
    const home = join(work, 'home');
    mkdirSync(home, { recursive: true });
    const baseEnv = {
      PATH: process.env['PATH'],
      HOME: home,
      SHELL: '/bin/bash',
      MOCK_API_KEY: 'x',
      NO_COLOR: '1',
      RUST_LOG: 'error',
    };
    const weftEnv = { ...baseEnv, WEFT_HOME: weftHome };
    const codexEnv = { ...baseEnv, CODEX_HOME: codexHome };

    // ---- exec ----
    const answer: ScriptStep = {
      kind: 'sse',
      events: [evCreated(), evOutputTextDelta('Hello'), evAssistantMessage('Hello'), evCompleted()],
    };
    const toolCall: ScriptStep = {
      kind: 'sse',
      events: [evCreated(), evFunctionCall('c1', 'exec_command', { cmd: 'echo hi' }), evCompleted()],
    };
    const execCase = async (steps: ScriptStep[]): Promise<{ weft: Sample; codex: Sample | null }> => {
      const weft = sample();
      const codex = CODEX ? sample() : null;
      for (let i = 0; i < RUNS + 1; i++) {
        server.enqueueMany(steps);
        const w = await measureProcess([process.execPath, WEFT, 'exec', 'say hello'], { cwd: project, env: weftEnv });
        if (w.exitCode !== 0 || !w.stdout.includes('Hello')) throw new Error(`weft exec failed: ${w.stderr}`);
        if (i > 0) record(weft, w);
        if (CODEX && codex) {
          server.enqueueMany(steps);
          const c = await measureProcess([CODEX, 'exec', '--skip-git-repo-check', 'say hello'], {
            cwd: project,
            env: codexEnv,
          });
          if (c.exitCode !== 0 || !c.stdout.includes('Hello'))
            throw new Error(`codex exec failed: ${c.stderr.slice(-2000)}`);
          if (i > 0) record(codex, c);
        }
      }
      return { weft, codex };
    };
    const execRows = (what: string, r: { weft: Sample; codex: Sample | null }): void => {
      const cw = r.codex ? median(r.codex.wall) : null;
      const cr = r.codex ? median(r.codex.rss) : null;
      rows.push({
        name: `exec, ${what}: wall (median of ${RUNS})`,
        value: median(r.weft.wall),
        unit: 'ms',
        target: '≤ 0.6× Codex',
        note: `${cw === null ? '' : `Codex ${cw.toFixed(0)} ms; ratio ${ratio(median(r.weft.wall), cw)}; `}${cpuNote(r)}`,
      });
      rows.push({
        name: `exec, ${what}: peak RSS`,
        value: median(r.weft.rss),
        unit: 'MiB',
        note: cr === null ? '' : `Codex ${cr.toFixed(0)} MiB; ratio ${ratio(median(r.weft.rss), cr)}`,
      });
    };
    if (ONLY.has('exec')) {
      execRows('plain answer', await execCase([answer]));
      execRows('one tool call', await execCase([toolCall, answer]));
    }

    // ---- apply-patch ----
    const patches = join(work, 'patches');
    mkdirSync(patches, { recursive: true });
    const big = bigPatch();
    writeFileSync(join(patches, 'big.txt'), big.content);
    writeFileSync(join(patches, 'big.patch'), big.patch);
    writeFileSync(join(patches, 'many.patch'), manyFilesPatch());
    let applyPatchBin: string | null = null;
    if (CODEX) {
      applyPatchBin = join(work, 'bin', 'apply_patch');
      mkdirSync(dirname(applyPatchBin), { recursive: true });
      symlinkSync(nativeCodex(CODEX), applyPatchBin);
    }
    const patchCase = async (patchName: string, withBig: boolean): Promise<{ weft: Sample; codex: Sample | null }> => {
      const weft = sample();
      const codex = applyPatchBin ? sample() : null;
      const once = async (argv: string, into: Sample, keep: boolean): Promise<void> => {
        const dir = join(work, 'apply');
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir, { recursive: true });
        if (withBig) writeFileSync(join(dir, 'big.txt'), big.content);
        const r = await measureProcess(['sh', '-c', `exec ${argv} < "${join(patches, patchName)}"`], { cwd: dir });
        if (r.exitCode !== 0) throw new Error(`${argv} failed: ${r.stderr.slice(0, 500)}`);
        if (keep) record(into, r);
      };
      for (let i = 0; i < RUNS + 1; i++) {
        await once(`"${process.execPath}" "${WEFT}" apply-patch`, weft, i > 0);
        if (applyPatchBin && codex) await once(`"${applyPatchBin}"`, codex, i > 0);
      }
      return { weft, codex };
    };
    const patchRows = (what: string, r: { weft: Sample; codex: Sample | null }): void => {
      const cw = r.codex ? median(r.codex.wall) : null;
      rows.push({
        name: `apply-patch, ${what}: wall (median of ${RUNS})`,
        value: median(r.weft.wall),
        unit: 'ms',
        target: '≤ 1.0× Codex',
        note: `${cw === null ? '' : `Codex ${cw.toFixed(0)} ms; ratio ${ratio(median(r.weft.wall), cw)}; `}${cpuNote(r)}; peak RSS ${median(r.weft.rss).toFixed(0)} MiB${r.codex ? ` (Codex ${median(r.codex.rss).toFixed(0)})` : ''}`,
      });
    };
    if (ONLY.has('apply-patch')) {
      patchRows('2,000 hunks on a 200,000-line file', await patchCase('big.patch', true));
      patchRows('500 new files', await patchCase('many.patch', false));
    }

    // ---- app server: first thread/list, resume of a 50 MB thread ----
    if (!ONLY.has('app-server')) return { title: 'Side by side with Codex 0.169', rows, notes: finalNotes(notes) };
    const genStart = performance.now();
    const ids = generateThreads(weftHome, CODEX ? codexHome : null, project);
    notes.push(
      `Generated ${THREADS} threads (about 3 KB each, one of 50 MB of text) for each program in ${((performance.now() - genStart) / 1000).toFixed(1)} s. The big thread's file: Weft's ${(ids.weftHugeBytes / 1e6).toFixed(1)} MB (each item is a history line and an event line)${CODEX ? `, Codex's ${(ids.codexHugeBytes / 1e6).toFixed(1)} MB` : ''}.`,
    );
    // Weft's index is built once (as after the first start); Codex gets warm-up starts for its own.
    const store = ThreadStore.open(weftHome, { onWarning: () => undefined });
    await store.whenIndexed();
    await store.close();
    const weftServer = [process.execPath, WEFT, 'app-server'];
    const codexServer = CODEX ? [CODEX, 'app-server'] : null;
    const sourceKinds = ['cli', 'vscode', 'exec', 'appServer', 'unknown'];
    const list = [{ method: 'thread/list', params: { limit: 25 } }];
    const codexList = [{ method: 'thread/list', params: { limit: 25, sourceKinds } }];
    if (codexServer) for (let i = 0; i < 2; i++) await appServer(codexServer, codexEnv, project, codexList);
    const listW: number[] = [];
    const listC: number[] = [];
    for (let i = 0; i < RUNS + 1; i++) {
      const w = await appServer(weftServer, weftEnv, project, list);
      if (i > 0) listW.push(w.totalMs);
      if (codexServer) {
        const c = await appServer(codexServer, codexEnv, project, codexList);
        if (i > 0) listC.push(c.totalMs);
      }
    }
    const lc = codexServer ? median(listC) : null;
    rows.push({
      name: `app-server start + initialize + first thread/list, ${THREADS} threads (median of ${RUNS})`,
      value: median(listW),
      unit: 'ms',
      target: '≤ 120 ms',
      note: lc === null ? '' : `Codex ${lc.toFixed(0)} ms; ratio ${ratio(median(listW), lc)}`,
    });

    // A client busy from the start (a list every 10 ms for 1.5 s after initialize) beside the start-up
    // check of the index: the slowest answer is how long that check holds the event loop at most.
    const busy: number[] = [];
    const starts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const took = await listsDuringStart(weftServer, weftEnv, project, 150, 10);
      busy.push(Math.max(...took));
      const over = took.filter((ms) => ms > 2).length;
      starts.push(
        `first ${took[0]?.toFixed(1)}, median ${median(took).toFixed(1)}, p95 ${percentile(took, 95).toFixed(1)}, slowest ${Math.max(...took).toFixed(1)} (the ${took.indexOf(Math.max(...took)) + 1}th), ${over} over 2 ms`,
      );
    }
    rows.push({
      name: `app-server start: slowest of 150 thread/list sent every 10 ms from initialize on, ${THREADS} threads (median of 3 starts)`,
      value: median(busy),
      unit: 'ms',
      target: '≤ 2 ms',
      note: `each start, ms: ${starts.join('; ')}; Weft only (Codex answers one list in seconds)`,
    });

    const resumeRuns = Math.max(3, Math.floor(RUNS / 2));
    const resW: AppServerRun[] = [];
    const resC: AppServerRun[] = [];
    for (let i = 0; i < resumeRuns + 1; i++) {
      const w = await appServer(weftServer, weftEnv, project, [
        { method: 'thread/resume', params: { threadId: ids.weftHuge } },
      ]);
      if (i > 0) resW.push(w);
      if (codexServer) {
        const c = await appServer(codexServer, codexEnv, project, [
          { method: 'thread/resume', params: { threadId: ids.codexHuge } },
        ]);
        if (i > 0) resC.push(c);
      }
    }
    const wMs = median(resW.map((r) => r.lastMs));
    const wRss = median(resW.map((r) => r.peakRssMiB));
    const cMs = codexServer ? median(resC.map((r) => r.lastMs)) : null;
    const cRss = codexServer ? median(resC.map((r) => r.peakRssMiB)) : null;
    rows.push({
      name: `thread/resume of a 50 MB thread (${HUGE_ITEMS} items): request to answer (median of ${resumeRuns})`,
      value: wMs,
      unit: 'ms',
      target: '≤ 250 ms',
      note: `${cMs === null ? '' : `Codex ${cMs.toFixed(0)} ms; ratio ${ratio(wMs, cMs)}; `}answer ${(median(resW.map((r) => r.lastLineBytes)) / 1e6).toFixed(1)} MB${cMs === null ? '' : ` (Codex ${(median(resC.map((r) => r.lastLineBytes)) / 1e6).toFixed(1)} MB)`}`,
    });
    rows.push({
      name: 'thread/resume of a 50 MB thread: peak RSS of the server',
      value: wRss,
      unit: 'MiB',
      target: '≤ 120 MiB',
      note: cRss === null ? '' : `Codex ${cRss.toFixed(0)} MiB; ratio ${ratio(wRss, cRss)}`,
    });
  } finally {
    await server.close();
    if (!KEEP) rmSync(work, { recursive: true, force: true });
  }
  return { title: 'Side by side with Codex 0.169', rows, notes: finalNotes(notes) };
}
