// A patch of 10,000 hunks on a 1,000,000-line file (44 MB), Weft and Codex 0.169 side by side, runs
// alternating: (1) through the app server, after a warm-up turn, the mock model sending the patch as
// `apply_patch <<'EOF'` in an `exec_command` call (both programs apply such a script as a patch), while
// `thread/list` is sent every 10 ms on the same connection: how long the patch takes, and how long another
// request waits meanwhile; (2) the apply-patch command alone, as a whole process.
//
// Codex comes from CODEX_BIN (without it, Weft only); its homes live under CODEX_BENCH_DIR (default
// bench/.work/big-patch): Codex's sandbox refuses commands whose home is under /tmp. BIG_PATCH_RUNS sets
// the number of runs (default 3). BIG_PATCH_CPU_PROF names a folder: the runs with the stall probe then
// also run with `--cpu-prof` into it, and each run's stalls (from the probe) are written beside the
// profile as `stalls-N.json`, stamped with the clock the profile uses.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall, sseBody } from '../test/support/sse';
import { measureProcess, median } from './measure';
import { codexVersion, nativeCodex, writeMockHomes } from './side-by-side.bench';

const ROOT = process.cwd();
const WEFT = resolve(ROOT, 'bin/weft.js');
const CODEX = process.env['CODEX_BIN'] ?? null;
const LINES = 1_000_000;
const HUNKS = 10_000;
const RUNS = Number(process.env['BIG_PATCH_RUNS'] ?? 3);
const CPU_PROF = process.env['BIG_PATCH_CPU_PROF'] ? resolve(process.env['BIG_PATCH_CPU_PROF']) : null;
const PROCESS_RUNS = 5;
const LIST_EVERY_MS = 10;
const MARK = ' // changed ';

function bigCase(): { content: Buffer; patch: string } {
  const lines: string[] = [];
  for (let i = 0; i < LINES; i++) lines.push(`line ${i} of the big file: value = ${(i * 7919) % 100_003};`);
  const patch = ['*** Begin Patch', '*** Update File: big.txt'];
  const step = LINES / HUNKS;
  for (let h = 0; h < HUNKS; h++) {
    const at = 50 + h * step;
    patch.push('@@');
    for (let c = at - 3; c < at; c++) patch.push(` ${lines[c]}`);
    patch.push(`-${lines[at]}`, `+${lines[at]}${MARK}${h}`);
    for (let c = at + 1; c <= at + 3; c++) patch.push(` ${lines[c]}`);
  }
  patch.push('*** End Patch');
  return { content: Buffer.from(`${lines.join('\n')}\n`), patch: patch.join('\n') };
}

/** How many lines of the file the patch changed (every one of its hunks: HUNKS). */
function changedLines(path: string): number {
  const text = readFileSync(path, 'latin1');
  let count = 0;
  for (let at = text.indexOf(MARK); at >= 0; at = text.indexOf(MARK, at + 1)) count++;
  return count;
}

interface TurnRun {
  /** turn/start sent → the fileChange item completed (the patch on disk). */
  patchMs: number;
  /** turn/start sent → turn/completed (with the turn's diff; the mock model answers at once). */
  turnMs: number;
  /** Slowest thread/list sent between turn/start and turn/completed, from request to answer. */
  slowestListMs: number;
  lists: number;
  /** How many of them waited more than 50 ms. */
  slowLists: number;
  /** Slowest thread/list over the same cadence before the turn, the server idle. */
  idleSlowestMs: number;
  /** Size of the largest turn/diff/updated line. */
  diffLineBytes: number;
  /** With the stall probe preloaded: the longest gap between its 5 ms ticks during the turn, wall and CPU. */
  stall: { wallMs: number; cpuMs: number } | null;
  /** With the stall probe preloaded: every gap during the turn (the end, in hrtime nanoseconds). */
  stalls: { at: string; wallMs: number; cpuMs: number }[];
  /** The lists sent during the turn that waited over 25 ms: when sent (hrtime nanoseconds) and how long. */
  slowListTimes: { sentNs: string; tookMs: number }[];
}

/**
 * Preloaded into Weft's server (`node --import`): a 5 ms tick that reports each gap over 10 ms on stderr
 * with the CPU time the process used in it, stamped with the monotonic clock this process reads too.
 */
const STALL_PROBE = `
let last = process.hrtime.bigint();
let lastCpu = process.cpuUsage();
setInterval(() => {
  const now = process.hrtime.bigint();
  const cpu = process.cpuUsage(lastCpu);
  const gap = Number(now - last) / 1e6 - 5;
  if (gap > 10) process.stderr.write('@@stall ' + now + ' ' + gap.toFixed(1) + ' ' + ((cpu.user + cpu.system) / 1000).toFixed(1) + '\\n');
  last = now;
  lastCpu = process.cpuUsage();
}, 5).unref();
`;

/** One app server: initialize, thread/start, lists while idle, then the patch turn with lists beside it. */
function turnWithLists(
  argv: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  listParams: unknown,
  probed = false,
): Promise<TurnRun> {
  return new Promise((resolveRun, reject) => {
    const [cmd, ...args] = argv;
    const child = spawn(cmd ?? '', args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    const stalls: { at: bigint; wallMs: number; cpuMs: number }[] = [];
    lines(child.stderr, (line) => {
      const m = /^@@stall (\d+) ([\d.]+) ([\d.]+)$/.exec(line);
      if (m) stalls.push({ at: BigInt(m[1] ?? '0'), wallMs: Number(m[2]), cpuMs: Number(m[3]) });
      else stderr = `${stderr}${line}\n`.slice(-4000);
    });
    let turnHr = 0n;
    let afterWarmUp: (() => void) | null = null;
    let next = 1;
    const sentAt = new Map<number, number>();
    const waiting = new Map<number, (line: string) => void>();
    const lists: { sent: number; took: number; sentNs: bigint }[] = [];
    const sentNs = new Map<number, bigint>();
    const listIds = new Set<number>();
    let ticker: NodeJS.Timeout | undefined;
    const send = (method: string, params: unknown, onAnswer?: (line: string) => void): number => {
      const id = next++;
      sentAt.set(id, performance.now());
      sentNs.set(id, process.hrtime.bigint());
      if (onAnswer) waiting.set(id, onAnswer);
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
      return id;
    };
    const startLists = (): void => {
      ticker = setInterval(() => listIds.add(send('thread/list', listParams)), LIST_EVERY_MS);
    };
    let settled = false;
    const fail = (why: string): void => {
      if (settled) return;
      settled = true;
      clearInterval(ticker);
      child.kill('SIGKILL');
      reject(new Error(`${argv.join(' ')}: ${why}\n${stderr}`));
    };
    let turnSent = 0;
    let patchDone = 0;
    let diffLineBytes = 0;
    let idleUntil = Infinity;
    lines(child.stdout, (line) => {
      // Only the head of a line is read: a diff notification may be megabytes.
      const head = line.slice(0, 400);
      const method = /^\{(?:"jsonrpc":"2\.0",)?"method":"([^"]+)"/.exec(head)?.[1];
      const now = performance.now();
      if (method === undefined) {
        const id = Number(/"id":(\d+)/.exec(head)?.[1] ?? NaN);
        const at = sentAt.get(id);
        if (at === undefined) return;
        sentAt.delete(id);
        if (/^\{(?:"jsonrpc":"2\.0",)?"id":\d+,"error":/.test(head)) return fail(`request ${id} failed: ${head}`);
        if (listIds.delete(id)) lists.push({ sent: at, took: now - at, sentNs: sentNs.get(id) ?? 0n });
        sentNs.delete(id);
        waiting.get(id)?.(line);
        waiting.delete(id);
        return;
      }
      if (method === 'item/completed' && /"item":\{"type":"fileChange"/.test(head) && patchDone === 0) patchDone = now;
      if (method === 'turn/diff/updated') diffLineBytes = Math.max(diffLineBytes, line.length);
      if (method === 'turn/completed' && afterWarmUp !== null) {
        const next = afterWarmUp;
        afterWarmUp = null;
        next();
        return;
      }
      if (method === 'turn/completed' && turnSent > 0 && !settled) {
        settled = true;
        clearInterval(ticker);
        const during = lists.filter((l) => l.sent >= turnSent);
        const idle = lists.filter((l) => l.sent < idleUntil);
        const endHr = process.hrtime.bigint();
        const turnStalls = stalls.filter((s) => s.at >= turnHr && s.at <= endHr);
        child.kill('SIGTERM');
        resolveRun({
          patchMs: patchDone - turnSent,
          turnMs: now - turnSent,
          slowestListMs: Math.max(0, ...during.map((l) => l.took)),
          lists: during.length,
          slowLists: during.filter((l) => l.took > 50).length,
          idleSlowestMs: Math.max(0, ...idle.map((l) => l.took)),
          diffLineBytes,
          stall: probed
            ? {
                wallMs: Math.max(0, ...turnStalls.map((s) => s.wallMs)),
                cpuMs: Math.max(0, ...turnStalls.map((s) => s.cpuMs)),
              }
            : null,
          stalls: turnStalls.map((s) => ({ at: String(s.at), wallMs: s.wallMs, cpuMs: s.cpuMs })),
          slowListTimes: during.filter((l) => l.took > 25).map((l) => ({ sentNs: String(l.sentNs), tookMs: l.took })),
        });
      }
    });
    child.on('error', (e) => fail(String(e)));
    child.on('exit', (code) => {
      if (turnSent === 0 || patchDone === 0) fail(`exited (${String(code)}) before the turn ended`);
    });
    send('initialize', { clientInfo: { name: 'weft-bench', title: null, version: '0' }, capabilities: null }, () => {
      child.stdin.write(`${JSON.stringify({ method: 'initialized' })}\n`);
      send('thread/start', { cwd }, (line) => {
        const threadId = /"thread":\{"id":"([^"]+)"/.exec(line)?.[1];
        if (threadId === undefined) return fail(`no thread id in ${line.slice(0, 300)}`);
        // A first turn warms the process up (the HTTP client is compiled at its first request); then the
        // server idles for 1.5 s under the list cadence; then the patch turn.
        afterWarmUp = () => {
          startLists();
          setTimeout(() => {
            idleUntil = performance.now();
            turnSent = performance.now();
            turnHr = process.hrtime.bigint();
            send('turn/start', {
              threadId,
              input: [{ type: 'text', text: 'change every 100th line', text_elements: [] }],
            });
          }, 1500);
        };
        send('turn/start', { threadId, input: [{ type: 'text', text: 'say hello', text_elements: [] }] });
      });
    });
  });
}

function lines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', onLine);
}

/**
 * The mock model, in a process of its own so that sending megabytes of events never delays the requests
 * this process times: POST …/responses answers with the bodies in turn (a greeting for the warm-up turn,
 * the patch, then a message), over and over; GET …/models with an empty list. Prints its port.
 */
const MODEL_SERVER = `
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
const bodies = process.argv.slice(1).map((file) => readFileSync(file));
let served = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.method === 'POST' && req.url.endsWith('/responses')) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(bodies[served++ % bodies.length]);
    } else if (req.method === 'GET' && req.url.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"object":"list","data":[]}');
    } else {
      res.writeHead(404);
      res.end();
    }
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

async function startModel(work: string, patch: string): Promise<{ url: string; stop(): void }> {
  const script = `apply_patch <<'EOF'\n${patch}\nEOF`;
  const warm = join(work, 'model-0.sse');
  const first = join(work, 'model-1.sse');
  const second = join(work, 'model-2.sse');
  writeFileSync(warm, sseBody([evCreated(), evAssistantMessage('Hello.'), evCompleted()]));
  writeFileSync(
    first,
    sseBody([evCreated(), evFunctionCall('call_1', 'exec_command', { cmd: script }), evCompleted()]),
  );
  writeFileSync(second, sseBody([evCreated(), evAssistantMessage('Changed every 100th line.'), evCompleted()]));
  const child = spawn(process.execPath, ['--input-type=module', '-e', MODEL_SERVER, warm, first, second], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolvePort, reject) => {
    child.stdout.once('data', (d: Buffer) => resolvePort(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`the mock model exited (${String(code)})`)));
  });
  return { url: `http://127.0.0.1:${port}/v1`, stop: () => child.kill('SIGKILL') };
}

const ratio = (w: number, c: number | null): string => (c === null || c === 0 ? '' : `${(w / c).toFixed(2)}×`);
const ms = (v: number): string => `${v.toFixed(0)} ms`;

export default async function run() {
  const loadBefore = loadavg();
  const work = resolve(process.env['CODEX_BENCH_DIR'] ?? join(ROOT, 'bench/.work/big-patch'));
  rmSync(work, { recursive: true, force: true });
  const project = join(work, 'project');
  const weftHome = join(work, 'weft-home');
  const codexHome = join(work, 'codex-home');
  const home = join(work, 'home');
  for (const dir of [project, weftHome, codexHome, home]) mkdirSync(dir, { recursive: true });
  if (CPU_PROF !== null) mkdirSync(CPU_PROF, { recursive: true });
  const big = bigCase();
  const patchFile = join(work, 'big.patch');
  writeFileSync(patchFile, big.patch);
  const target = join(project, 'big.txt');
  const server = await startModel(work, big.patch);
  const notes: string[] = [];
  try {
    writeMockHomes(weftHome, codexHome, server.url, project);
    const baseEnv = { PATH: process.env['PATH'], HOME: home, SHELL: '/bin/bash', MOCK_API_KEY: 'x', RUST_LOG: 'error' };
    const probe = join(work, 'stall-probe.mjs');
    writeFileSync(probe, STALL_PROBE);
    const weftArgv = [process.execPath, WEFT, 'app-server'];
    const weftProbed = [process.execPath, '--import', probe, WEFT, 'app-server'];
    const codexArgv = CODEX ? [CODEX, 'app-server'] : null;
    const sourceKinds = ['cli', 'vscode', 'exec', 'appServer', 'unknown'];

    // ---- through the app server ----
    const weftRuns: TurnRun[] = [];
    const probedRuns: TurnRun[] = [];
    const codexRuns: TurnRun[] = [];
    for (let i = 0; i < RUNS; i++) {
      writeFileSync(target, big.content);
      weftRuns.push(await turnWithLists(weftArgv, { ...baseEnv, WEFT_HOME: weftHome }, project, { limit: 25 }));
      if (changedLines(target) !== HUNKS) throw new Error(`Weft's turn left ${changedLines(target)} changed lines`);
      writeFileSync(target, big.content);
      const profiled =
        CPU_PROF === null
          ? weftProbed
          : [
              process.execPath,
              '--cpu-prof',
              `--cpu-prof-dir=${CPU_PROF}`,
              `--cpu-prof-name=weft-${i}.cpuprofile`,
            ].concat(weftProbed.slice(1));
      const probedRun = await turnWithLists(
        profiled,
        { ...baseEnv, WEFT_HOME: weftHome },
        project,
        { limit: 25 },
        true,
      );
      probedRuns.push(probedRun);
      if (CPU_PROF !== null) {
        writeFileSync(join(CPU_PROF, `stalls-${i}.json`), JSON.stringify(probedRun.stalls));
        writeFileSync(join(CPU_PROF, `lists-${i}.json`), JSON.stringify(probedRun.slowListTimes));
      }
      if (codexArgv === null) continue;
      writeFileSync(target, big.content);
      codexRuns.push(
        await turnWithLists(codexArgv, { ...baseEnv, CODEX_HOME: codexHome }, project, { limit: 25, sourceKinds }),
      );
      if (changedLines(target) !== HUNKS) throw new Error(`Codex's turn left ${changedLines(target)} changed lines`);
    }
    const pick = (runs: TurnRun[], key: 'patchMs' | 'turnMs' | 'slowestListMs'): number =>
      median(runs.map((r) => r[key]));
    const codex = codexRuns.length > 0;
    const cPatch = codex ? pick(codexRuns, 'patchMs') : null;
    const cTurn = codex ? pick(codexRuns, 'turnMs') : null;
    const cList = codex ? pick(codexRuns, 'slowestListMs') : null;

    // ---- the command alone ----
    let applyPatchBin: string | null = null;
    if (CODEX) {
      applyPatchBin = join(work, 'bin', 'apply_patch');
      mkdirSync(join(work, 'bin'), { recursive: true });
      symlinkSync(nativeCodex(CODEX), applyPatchBin);
    }
    const weftWall: number[] = [];
    const codexWall: number[] = [];
    const weftCpu: number[] = [];
    const codexCpu: number[] = [];
    const once = async (command: string, into: number[], cpu: number[]): Promise<void> => {
      writeFileSync(target, big.content);
      const r = await measureProcess(['sh', '-c', `exec ${command} < "${patchFile}"`], { cwd: project });
      if (r.exitCode !== 0) throw new Error(`${command} failed: ${r.stderr.slice(0, 500)}`);
      if (changedLines(target) !== HUNKS) throw new Error(`${command} left ${changedLines(target)} changed lines`);
      into.push(r.wallMs);
      cpu.push(r.cpuMs);
    };
    for (let i = 0; i < PROCESS_RUNS; i++) {
      await once(`"${process.execPath}" "${WEFT}" apply-patch`, weftWall, weftCpu);
      if (applyPatchBin !== null) await once(`"${applyPatchBin}"`, codexWall, codexCpu);
    }
    const cWall = codexWall.length > 0 ? median(codexWall) : null;

    const rows = [
      {
        name: `${HUNKS.toLocaleString('en')} hunks on a ${LINES.toLocaleString('en')}-line file through the app server: turn/start → patch written (median of ${RUNS})`,
        value: pick(weftRuns, 'patchMs'),
        unit: 'ms',
        target: '≤ Codex',
        note: `${cPatch === null ? '' : `Codex ${ms(cPatch)}; ratio ${ratio(pick(weftRuns, 'patchMs'), cPatch)}; `}whole turn with its diff ${ms(pick(weftRuns, 'turnMs'))}${cTurn === null ? '' : ` (Codex ${ms(cTurn)})`}`,
      },
      {
        name: `the same: slowest thread/list (one sent every ${LIST_EVERY_MS} ms) while the turn ran (median of ${RUNS} runs)`,
        value: pick(weftRuns, 'slowestListMs'),
        unit: 'ms',
        target: '≤ 50 ms',
        note: `each run's slowest: ${weftRuns.map((r) => r.slowestListMs.toFixed(0)).join(', ')} ms; over 50 ms: ${weftRuns.map((r) => `${r.slowLists} of ${r.lists}`).join(', ')} lists; server idle beside it: ${weftRuns.map((r) => r.idleSlowestMs.toFixed(0)).join(', ')} ms${cList === null ? '' : `; Codex ${codexRuns.map((r) => r.slowestListMs.toFixed(0)).join(', ')} ms`}`,
      },
      {
        name: `the same, the server's longest event-loop stall during the turn: CPU time in it (stall probe preloaded; median of ${RUNS})`,
        value: median(probedRuns.map((r) => r.stall?.cpuMs ?? 0)),
        unit: 'ms',
        target: '≤ 50 ms',
        note: `each run's longest stall, wall / CPU: ${probedRuns.map((r) => `${(r.stall?.wallMs ?? 0).toFixed(0)} / ${(r.stall?.cpuMs ?? 0).toFixed(0)}`).join(', ')} ms`,
      },
      {
        name: `the same: largest turn/diff/updated a client receives`,
        value: Math.max(...weftRuns.map((r) => r.diffLineBytes)) / 1024 / 1024,
        unit: 'MiB',
        target: '≤ 1 MiB + envelope',
        note: codex ? `Codex ${(Math.max(...codexRuns.map((r) => r.diffLineBytes)) / 1024 / 1024).toFixed(1)} MiB` : '',
      },
      {
        name: `apply-patch command, the same patch: wall (median of ${PROCESS_RUNS})`,
        value: median(weftWall),
        unit: 'ms',
        target: '≤ 1.0× Codex',
        note: `CPU ${ms(median(weftCpu))}${cWall === null ? '' : `; Codex apply_patch ${ms(cWall)}, CPU ${ms(median(codexCpu))}; ratio ${ratio(median(weftWall), cWall)} (CPU ${ratio(median(weftCpu), median(codexCpu))})`}`,
      },
    ];
    notes.push(
      `The file is ${(big.content.length / 1e6).toFixed(0)} MB; the patch ${(big.patch.length / 1e6).toFixed(1)} MB, each hunk one changed line with three lines of context on each side. The model sends it in one exec_command call; the run checks that every hunk landed.`,
      'Lists are timed by the bench process (the mock model runs in a process of its own): wall-clock on a shared machine, so a slow list includes time either process waited for a core (see the idle figures beside it). The stall row runs Weft again with a 5 ms probe preloaded into its server (as the stall bench does in process): the longest gap between two ticks during the turn, and the CPU time of all the process threads in it (GC helpers included).',
      CODEX
        ? `Codex: ${codexVersion(CODEX)} from CODEX_BIN (the app server through its npm launcher; apply_patch through the native binary it re-invokes itself as). Runs alternate between the two programs.`
        : 'CODEX_BIN was not set: Weft only. Set CODEX_BIN to a Codex 0.169 `codex` command to measure both.',
      `Machine load (1/5/15-minute averages) ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before and ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} after, on ${availableParallelism()} shared cores.`,
    );
    return { title: 'A patch of 10,000 hunks (1,000,000-line file)', rows, notes };
  } finally {
    server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
