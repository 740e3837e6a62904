// Many busy agents on one host: 8 threads at once, each running a turn of commands that write files of
// 1 KiB to 8 MiB and patches (many-agents-work.ts, on the mock Responses server), with another client
// sending `thread/list` every 10 ms meanwhile. Through `weft app-server` (stdio): the slowest list answer
// and the server's peak RSS; again with 8 worktree threads of one git project (each its own worktree),
// with their turn times. Through `weft serve` with the page open in headless Chromium, the 8 threads
// started from the page and streaming into it: the page's frame intervals and main-thread CPU per frame
// (as in ui.bench.ts), and the slowest list answer over a WebSocket beside it. The page runs alternate
// between untraced (frame intervals, the lists over the WebSocket) and traced by DevTools (CPU per frame):
// the trace is work for the page, and for the bench's process that times the lists.
//
// WEFT_BASELINE names another Weft checkout, built (`npm run build` in it), run the same way in the same
// bench, runs alternating: e.g. the main branch exported into bench/.work/baseline; WEFT_BASELINE_LABEL says
// what it is in the notes (e.g. "main at 9f8812e"). MANY_AGENTS_RUNS runs
// of each (default 2; the slowest answer and the frame times are the median over runs), after
// MANY_AGENTS_WARMUP unrecorded runs of each app server (default 1). MANY_AGENTS_CPU_PROF
// names a folder: the app servers and `weft serve` then run with `--cpu-prof` into it; MANY_AGENTS_UI_PROF one
// for the page's CPU profile and its main-thread trace events; MANY_AGENTS_CONTROL=1 runs a page with no work
// of its own beside Weft's and adds its frames missed to the page rows; MANY_AGENTS_NODE_ARGS gives the host processes
// more of Node's flags (space-separated: `--require` of a probe that counts allocations or collections).
// MANY_AGENTS_SLOW_LISTS names a file: each app-server run appends its lists slower than 30 ms, as
// `sent:answered:ms` with both stamps in µs of the monotonic clock, the clock of a `--cpu-prof` profile's
// samples, so that what the host did meanwhile can be read from MANY_AGENTS_CPU_PROF's profile. The
// server's main thread's time on a core and waiting for one over the turns comes from the kernel (Linux
// schedstat), beside the list rows.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { startListProbe, stdioChannel, type ProbeAnswer } from '../test/support/list-probe';
import { startMockResponsesServer } from '../test/support/mock-responses-server';
import { median, percentile, type BenchRow } from './measure';
import {
  cpuSeconds,
  env,
  mainThreadTimes,
  exited,
  guarded,
  nodeArgs,
  peakRss,
  scenarioDirs,
  sleep,
  type AppServerResult,
  type Program,
} from './many-agents-host';
import { uiRun, type UiResult } from './many-agents-ui';
import { AGENTS, REQUESTS_PER_AGENT, WORK_SUMMARY, agentPrompt, scriptAgents } from './many-agents-work';

const ROOT = process.cwd();
const RUNS = Number(process.env['MANY_AGENTS_RUNS'] ?? 2);
/**
 * Runs of the 8 agents through each program's app server before the measured runs, not recorded: in five
 * of nine series measured on 2026-12-01 the first run was the slowest by far (its slowest list 69–120 ms,
 * the other runs of those series 28–48 ms), of whichever program ran first in the bench's process (its own
 * client and mock model still cold, the disk's caches).
 */
const WARMUP = Number(process.env['MANY_AGENTS_WARMUP'] ?? 1);
const BASELINE = process.env['WEFT_BASELINE'] ? resolve(process.env['WEFT_BASELINE']) : null;
/** What the baseline is, for the notes: WEFT_BASELINE_LABEL, else its folder relative to the checkout. */
const BASELINE_LABEL =
  BASELINE === null ? null : (process.env['WEFT_BASELINE_LABEL'] ?? `WEFT_BASELINE ${relative(ROOT, BASELINE)}`);
/**
 * MANY_AGENTS_ONLY=app-server, worktrees, ui, ui-worktrees or first-turn (or several, comma-separated): those
 * parts only.
 */
const ONLY = (process.env['MANY_AGENTS_ONLY'] ?? 'app-server,worktrees,ui,ui-worktrees,first-turn').split(',');
/**
 * The first-turn part: a person opens the app, reads, and starts one agent after this long (the host is
 * quiet meanwhile).
 */
const FIRST_TURN_AFTER_MS = 1_500;
const SLOW_LISTS = process.env['MANY_AGENTS_SLOW_LISTS'] ? resolve(process.env['MANY_AGENTS_SLOW_LISTS']) : null;

/** The lists slower than 30 ms as `sent:answered:ms`, stamped in µs of the monotonic clock. */
function slowLists(lists: readonly ProbeAnswer[]): string {
  const nowUs = Number(process.hrtime.bigint() / 1000n);
  const nowMs = performance.now();
  const us = (at: number): string => (nowUs - (nowMs - at) * 1000).toFixed(0);
  return lists
    .filter((l) => l.ms > 30)
    .map((l) => `${us(l.sentAt)}:${us(l.answeredAt)}:${l.ms.toFixed(0)}`)
    .join(' ');
}

/** The part of a `turn/completed` notification read here. */
interface TurnCompleted {
  params: {
    threadId: string;
    turn: { status: string; error: { message: string } | null; durationMs?: number | null };
  };
}

/** An app-server run: the 8 agents at once, as worktree threads, or the first turn of a fresh server. */
type ServerScenario = 'agents' | 'worktrees' | 'first-turn';

/**
 * The 8 agents through `weft app-server` on stdio, with lists probing it meanwhile; as `worktrees`, each is
 * a worktree thread of one git project (`thread/start {weftWorktree: true}`), working in its own worktree.
 * As `first-turn`: one agent, started FIRST_TURN_AFTER_MS after its thread, on a server that has answered
 * nothing else (`firstDeltaMs`: from its `turn/start` to the first text the model streamed).
 */
async function appServerRun(
  program: Program,
  work: string,
  run: number,
  scenario: ServerScenario = 'agents',
): Promise<AppServerResult & { firstDeltaMs: number }> {
  const worktrees = scenario === 'worktrees';
  const agents = scenario === 'first-turn' ? 1 : AGENTS;
  const mock = await startMockResponsesServer();
  const { home, project } = scenarioDirs(
    work,
    `${scenario === 'agents' ? 'app-server' : scenario}-${program.label}`,
    mock,
    worktrees,
  );
  const profileName = `${scenario === 'agents' ? '' : `${scenario}-`}${program.label}-${run}`;
  const child = spawn(process.execPath, [...nodeArgs(profileName), program.bin, 'app-server'], {
    cwd: project,
    env: env(home),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    // Answers to the bench's own requests (ids `bench-N`) are parsed; everything else is only counted.
    const waiting = new Map<string, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
    // Each thread's finished turn (status, and error when it failed).
    const ended = new Map<string, string>();
    const turnMs: number[] = [];
    let firstDeltaAt = Number.NaN;
    let allDone: () => void = () => undefined;
    const done = new Promise<void>((r) => (allDone = r));
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (line.startsWith('{"method":"turn/completed"')) {
        const { params } = JSON.parse(line) as TurnCompleted;
        ended.set(
          params.threadId,
          `${params.turn.status}${params.turn.error ? ` (${params.turn.error.message})` : ''}`,
        );
        if (typeof params.turn.durationMs === 'number') turnMs.push(params.turn.durationMs);
        if (ended.size === agents) allDone();
        return;
      }
      if (Number.isNaN(firstDeltaAt) && line.startsWith('{"method":"item/agentMessage/delta"'))
        firstDeltaAt = performance.now();
      if (!line.startsWith('{"id":"bench-')) return;
      const message = JSON.parse(line) as { id: string; result?: unknown; error?: { message: string } };
      const waiter = waiting.get(message.id);
      if (message.error)
        waiter?.reject(new Error(`many-agents: ${message.id} failed: ${message.error.message}\n${stderr}`));
      else waiter?.resolve(message.result);
    });
    // A server that exits early (a Node it refuses, a crash at start) fails what waits on it, not a hang.
    child.once('exit', (code, signal) => {
      const error = new Error(`many-agents: ${program.label}: the app server exited (${signal ?? code})\n${stderr}`);
      for (const waiter of waiting.values()) waiter.reject(error);
      waiting.clear();
    });
    let next = 0;
    const request = (method: string, params: unknown): Promise<unknown> =>
      new Promise((resolveRequest, reject) => {
        const id = `bench-${next++}`;
        waiting.set(id, { resolve: resolveRequest, reject });
        child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
      });
    await request('initialize', { clientInfo: { name: 'weft-bench', title: null, version: '0' }, capabilities: null });
    child.stdin.write(`${JSON.stringify({ method: 'initialized' })}\n`);
    scriptAgents(mock, agents);
    let probe = scenario === 'first-turn' ? null : startListProbe(stdioChannel(child));
    let started = performance.now();
    let mainBefore = mainThreadTimes(child.pid);
    for (let a = 0; a < agents; a++) {
      const { thread } = (await request('thread/start', {
        cwd: project,
        ...(worktrees ? { weftWorktree: true } : {}),
      })) as { thread: { id: string; weftWorktree?: { path: string } } };
      if (worktrees && thread.weftWorktree === undefined)
        throw new Error(`many-agents: ${program.label}: thread ${thread.id} was started without a worktree`);
      if (probe === null) {
        await sleep(FIRST_TURN_AFTER_MS);
        probe = startListProbe(stdioChannel(child));
        started = performance.now();
        mainBefore = mainThreadTimes(child.pid);
      }
      await request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: agentPrompt(a) }] });
    }
    await guarded(`${program.label}: the agents' turns`, done);
    const seconds = (performance.now() - started) / 1000;
    const mainAfter = mainThreadTimes(child.pid);
    const mainThread = { runMs: mainAfter.runMs - mainBefore.runMs, waitMs: mainAfter.waitMs - mainBefore.waitMs };
    const lists = probe === null ? [] : await probe.stop();
    if (SLOW_LISTS !== null) appendFileSync(SLOW_LISTS, `${profileName}: ${slowLists(lists)}\n`);
    const failed = [...ended.values()].filter((status) => status !== 'completed');
    if (mock.requests.length !== agents * REQUESTS_PER_AGENT || failed.length > 0)
      throw new Error(
        `many-agents: ${program.label}: ${mock.requests.length} model requests of ${agents * REQUESTS_PER_AGENT}; turns not completed: ${failed.join('; ')}\n${stderr.slice(-2000)}`,
      );
    const peakRssMiB = peakRss(child.pid);
    const cpu = cpuSeconds(child.pid);
    child.stdin.end();
    await guarded(`${program.label}: the app server's exit`, exited(child));
    return { lists, peakRssMiB, cpuSeconds: cpu, seconds, turnMs, mainThread, firstDeltaMs: firstDeltaAt - started };
  } finally {
    child.kill('SIGKILL');
    await mock.close();
  }
}

const slowest = (lists: readonly ProbeAnswer[]): number => lists.reduce((m, a) => Math.max(m, a.ms), 0);
const round = (v: number): number => Math.round(v * 10) / 10;

/** "this build: 12 ms (runs 10, 14); baseline: …" for the values `f` gives of each program's runs. */
function beside<T>(results: Map<string, T[]>, programs: Program[], f: (r: T) => number, unit: string): string {
  return programs
    .map((p) => {
      const values = (results.get(p.label) ?? []).map(f);
      const name = p.label === 'weft' ? 'this build' : 'baseline';
      return `${name}: ${round(median(values))} ${unit} (runs ${values.map((v) => round(v)).join(', ')})`;
    })
    .join('; ');
}

/** Each program's p99 list answer over all its runs, and how many answers took over 50 ms. */
function listTail(results: Map<string, AppServerResult[]>, programs: Program[]): string {
  return programs
    .map((p) => {
      const waits = (results.get(p.label) ?? []).flatMap((r) => r.lists.map((a) => a.ms));
      const name = p.label === 'weft' ? 'this build' : 'baseline';
      const over = waits.filter((ms) => ms > 50).length;
      return `${name}: p99 ${round(percentile(waits, 99))} ms over ${waits.length} lists, ${over} over 50 ms`;
    })
    .join('; ');
}

/** The median over this build's runs. */
function ours<T>(results: Map<string, T[]>, f: (r: T) => number): number {
  return round(median((results.get('weft') ?? []).map(f)));
}

/** The server's main thread over the turns: how long it waited for a core, beside how long it ran. */
function mainThreadRow(what: string, results: Map<string, AppServerResult[]>, programs: Program[]): BenchRow {
  return {
    name: `${what}: the server's main thread runnable but waiting for a core`,
    value: ours(results, (r) => r.mainThread.waitMs),
    unit: 'ms',
    note: `${beside(results, programs, (r) => r.mainThread.waitMs, 'ms')}; on a core: ${beside(results, programs, (r) => r.mainThread.runMs, 'ms')}; over the agents' turns (the kernel's schedstat): time in which the server could not read a request, however idle its event loop`,
  };
}

function worktreeRows(results: Map<string, AppServerResult[]>, programs: Program[]): BenchRow[] {
  const runs = results.get('weft') ?? [];
  if (runs.length === 0) return [];
  const turns = (r: AppServerResult): string =>
    `median ${(median(r.turnMs) / 1000).toFixed(1)} s, slowest ${(Math.max(...r.turnMs) / 1000).toFixed(1)} s`;
  return [
    {
      name: `${AGENTS} worktree threads busy at once (app-server): slowest thread/list answer, one every 10 ms`,
      value: ours(results, (r) => slowest(r.lists)),
      unit: 'ms',
      target: '≤ 50 ms',
      note: `${beside(results, programs, (r) => slowest(r.lists), 'ms')}; ${listTail(results, programs)}`,
    },
    {
      name: `${AGENTS} worktree threads busy at once: slowest turn`,
      value: ours(results, (r) => Math.max(...r.turnMs) / 1000),
      unit: 's',
      note: `${beside(results, programs, (r) => Math.max(...r.turnMs) / 1000, 's')}; this build's turns per run: ${runs.map(turns).join('; ')}; all ${AGENTS} done in ${runs.map((r) => r.seconds.toFixed(1)).join(', ')} s`,
    },
    mainThreadRow(`${AGENTS} worktree threads busy at once (app-server)`, results, programs),
    {
      name: `${AGENTS} worktree threads busy at once: peak RSS of the server`,
      value: ours(results, (r) => r.peakRssMiB),
      unit: 'MiB',
      note: beside(results, programs, (r) => r.peakRssMiB, 'MiB'),
    },
  ];
}

function serverRows(results: Map<string, AppServerResult[]>, programs: Program[]): BenchRow[] {
  const runs = results.get('weft') ?? [];
  if (runs.length === 0) return [];
  return [
    {
      name: `${AGENTS} agents at once (app-server): slowest thread/list answer, one every 10 ms`,
      value: ours(results, (r) => slowest(r.lists)),
      unit: 'ms',
      target: '≤ 50 ms',
      note: `${beside(results, programs, (r) => slowest(r.lists), 'ms')}; ${listTail(results, programs)}; this build's turns took ${runs.map((r) => r.seconds.toFixed(1)).join(', ')} s`,
    },
    mainThreadRow(`${AGENTS} agents at once (app-server)`, results, programs),
    {
      name: `${AGENTS} agents at once (app-server): peak RSS of the server`,
      value: ours(results, (r) => r.peakRssMiB),
      unit: 'MiB',
      note: beside(results, programs, (r) => r.peakRssMiB, 'MiB'),
    },
    {
      name: `${AGENTS} agents at once (app-server): CPU time of the server`,
      value: ours(results, (r) => r.cpuSeconds),
      unit: 's',
      note: `${beside(results, programs, (r) => r.cpuSeconds, 's')}; from its start to the agents' end, all its threads (its commands not counted)`,
    },
  ];
}

function firstTurnRows(
  results: Map<string, (AppServerResult & { firstDeltaMs: number })[]>,
  programs: Program[],
): BenchRow[] {
  if ((results.get('weft') ?? []).length === 0) return [];
  const what = `first turn of a fresh app server, started ${FIRST_TURN_AFTER_MS / 1000} s after its thread`;
  return [
    {
      name: `${what}: turn/start to the first streamed text`,
      value: ours(results, (r) => r.firstDeltaMs),
      unit: 'ms',
      note: beside(results, programs, (r) => r.firstDeltaMs, 'ms'),
    },
    {
      name: `${what}: slowest thread/list answer, one every 10 ms`,
      value: ours(results, (r) => slowest(r.lists)),
      unit: 'ms',
      target: '≤ 50 ms',
      note: beside(results, programs, (r) => slowest(r.lists), 'ms'),
    },
  ];
}

/** The runs of each program that were (or were not) traced; all of them when none was. */
function tracedOr(results: Map<string, UiResult[]>, traced: boolean): Map<string, UiResult[]> {
  return new Map(
    [...results].map(([label, runs]) => {
      const chosen = runs.filter((r) => r.traced === traced);
      return [label, chosen.length > 0 ? chosen : runs];
    }),
  );
}

/** The slowest list of each program's traced runs, for the note beside the untraced ones. */
function tracedNote(results: Map<string, UiResult[]>, programs: Program[]): string {
  return programs
    .map((p) => {
      const runs = (results.get(p.label) ?? []).filter((r) => r.traced);
      return `${p.label === 'weft' ? 'this build' : 'baseline'} ${runs.length === 0 ? 'none' : runs.map((r) => `${round(slowest(r.lists))} ms`).join(', ')}`;
    })
    .join('; ');
}

/**
 * The page runs alternate: one without a DevTools trace (its frame intervals are the page's), one with it
 * (the main thread's CPU per frame), and so on; a single run is traced.
 */
function traceRun(run: number): boolean {
  return RUNS === 1 || run % 2 === 1;
}

/**
 * The programs in the order of run `run`: which goes first changes every other pair of runs, so that each
 * program's untraced page runs come once first and once second. In a fixed order the first program always
 * ran right after the other's run of the row before, and in three batches of 2026-12-03 the program that
 * went first read 3 to 6 points more frames missed: with a fixed order, the position and the code could
 * not be told apart.
 */
function inTurn<T>(programs: readonly T[], run: number): readonly T[] {
  return Math.floor(run / 2) % 2 === 0 ? programs : [...programs].reverse();
}

/** Display frames (60 Hz) that went by without one of the page's: an interval of n frames misses n − 1. */
function missedFrames(intervals: readonly number[]): number {
  return intervals.reduce((sum, ms) => sum + Math.max(0, Math.round(ms / (1000 / 60)) - 1), 0);
}

function uiRows(results: Map<string, UiResult[]>, programs: Program[], worktrees = false): BenchRow[] {
  const runs = results.get('weft') ?? [];
  const who = worktrees ? `${AGENTS} worktree threads` : `${AGENTS} agents`;
  if (runs.length === 0) return [];
  const p95Frame = (r: UiResult): number => percentile(r.intervals, 95);
  const p95Cpu = (r: UiResult): number => percentile(r.cpuMs, 95);
  // p95 moves in whole frames (16.7, 33.3, 50 ms); the share of frames missed shows a change within them.
  const share = (intervals: readonly number[]): number => {
    const missed = missedFrames(intervals);
    return round((100 * missed) / (missed + intervals.length));
  };
  const missedShare = (r: UiResult): number => share(r.intervals);
  const controlShare = (r: UiResult): number => share(r.controlIntervals ?? []);
  // Frame intervals from the runs without a DevTools trace (the trace is work for the page too: p95 was
  // 50 ms in 3 of 4 traced runs, in 2 of 5 untraced ones, 33 ms otherwise), CPU per frame from the traced.
  const untraced = tracedOr(results, false);
  const traced = tracedOr(results, true);
  const frames = (untraced.get('weft') ?? []).map(
    (r) =>
      `${r.intervals.length} frames, median ${round(percentile(r.intervals, 50))} ms, max ${round(Math.max(...r.intervals))} ms${r.traced ? ' (traced)' : ''}`,
  );
  return [
    {
      name: `${who} streaming into the page (weft serve + Chromium): p95 frame interval`,
      value: ours(untraced, p95Frame),
      unit: 'ms',
      target: '≤ 16.7 ms',
      note: `${beside(untraced, programs, p95Frame, 'ms')}; this build: ${frames.join('; ')}`,
    },
    {
      name: `${who} streaming into the page: frames missed`,
      value: ours(untraced, missedShare),
      unit: '%',
      note: `of the display's frames (60 Hz) over the streaming, a frame interval of n frames missing n − 1; ${beside(untraced, programs, missedShare, '%')}`,
    },
    ...(runs.some((r) => r.controlIntervals !== null)
      ? [
          {
            name: `${who} streaming into the page: frames missed by a page with no work of its own beside it`,
            value: ours(untraced, controlShare),
            unit: '%',
            note: `a box moved in every animation frame, in a browser context of its own in the same Chromium, over the same streaming (MANY_AGENTS_CONTROL): what the machine leaves of a frame to any page; ${beside(untraced, programs, controlShare, '%')}`,
          },
        ]
      : []),
    {
      name: `${who} streaming into the page: messages the page's WebSocket delivered`,
      value: ours(results, (r) => r.messages),
      unit: '',
      note: `while the agents streamed, each one a task, a JSON.parse and a store update in the page; ${beside(results, programs, (r) => r.messages, 'messages')}; ${beside(results, programs, (r) => r.messageChars, 'characters')}`,
    },
    {
      name: `${who} streaming into the page: p95 main-thread CPU per frame`,
      value: ours(traced, p95Cpu),
      unit: 'ms',
      target: '≤ 16.7 ms',
      note: `${beside(traced, programs, p95Cpu, 'ms')}; this build: max ${(traced.get('weft') ?? []).map((r) => round(Math.max(...r.cpuMs))).join(', ')} ms`,
    },
    {
      // From the runs without a trace too: the answers are timed in the bench's own process, which in a traced
      // run also takes in the trace (Chromium streams it over the DevTools connection while the agents
      // stream), so an answer may wait there for that work rather than for the server.
      name: `${who} streaming into the page: slowest thread/list answer over a WebSocket beside it`,
      value: ours(untraced, (r) => slowest(r.lists)),
      unit: 'ms',
      target: '≤ 50 ms',
      note: `${beside(untraced, programs, (r) => slowest(r.lists), 'ms')}; in the traced runs (timed while the bench took the trace in): ${tracedNote(results, programs)}; the turns took ${runs.map((r) => r.seconds.toFixed(1)).join(', ')} s`,
    },
    {
      name: `${who} streaming into the page: peak RSS of weft serve`,
      value: ours(results, (r) => r.peakRssMiB),
      unit: 'MiB',
      note: beside(results, programs, (r) => r.peakRssMiB, 'MiB'),
    },
    {
      name: `${who} streaming into the page: CPU time of weft serve`,
      value: ours(results, (r) => r.cpuSeconds),
      unit: 's',
      note: `${beside(results, programs, (r) => r.cpuSeconds, 's')}; from its start to the agents' end, all its threads, on the cores the page shares with it`,
    },
  ];
}

export default async function run(): Promise<{ title: string; rows: BenchRow[]; notes: string[] }> {
  const loadBefore = loadavg();
  const work = join(ROOT, 'bench/.work/many-agents');
  mkdirSync(work, { recursive: true });
  const programs: Program[] = [{ label: 'weft', bin: join(ROOT, 'bin/weft.js') }];
  if (BASELINE !== null) {
    const bin = join(BASELINE, 'bin/weft.js');
    if (!existsSync(join(BASELINE, 'dist/cli/cli.js')))
      throw new Error(`WEFT_BASELINE ${BASELINE} is not built: run \`npm run build\` in it`);
    programs.push({ label: 'baseline', bin });
  }
  const server = new Map<string, AppServerResult[]>();
  const worktrees = new Map<string, AppServerResult[]>();
  const firstTurn = new Map<string, (AppServerResult & { firstDeltaMs: number })[]>();
  const ui = new Map<string, UiResult[]>();
  const uiWorktrees = new Map<string, UiResult[]>();
  try {
    for (let run = 0; run < WARMUP; run++) for (const p of programs) await appServerRun(p, work, -1 - run);
    for (let run = 0; run < RUNS; run++) {
      if (ONLY.includes('app-server'))
        for (const p of programs)
          server.set(p.label, [...(server.get(p.label) ?? []), await appServerRun(p, work, run)]);
      if (ONLY.includes('worktrees'))
        for (const p of programs)
          worktrees.set(p.label, [...(worktrees.get(p.label) ?? []), await appServerRun(p, work, run, 'worktrees')]);
      if (ONLY.includes('first-turn'))
        for (const p of programs)
          firstTurn.set(p.label, [...(firstTurn.get(p.label) ?? []), await appServerRun(p, work, run, 'first-turn')]);
      if (ONLY.includes('ui'))
        for (const p of inTurn(programs, run))
          ui.set(p.label, [...(ui.get(p.label) ?? []), await uiRun(p, work, run, false, traceRun(run))]);
      if (ONLY.includes('ui-worktrees'))
        for (const p of inTurn(programs, run))
          uiWorktrees.set(p.label, [
            ...(uiWorktrees.get(p.label) ?? []),
            await uiRun(p, work, run, true, traceRun(run)),
          ]);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const rows = [
    ...serverRows(server, programs),
    ...worktreeRows(worktrees, programs),
    ...firstTurnRows(firstTurn, programs),
    ...uiRows(ui, programs),
    ...uiRows(uiWorktrees, programs, true),
  ];
  const loadAfter = loadavg();
  return {
    title: `Many agents (${AGENTS} busy threads on one host)`,
    rows,
    notes: [
      `Each agent: one turn of ${WORK_SUMMARY}, a commentary streamed before each step (mock Responses server), sandboxed (workspace-write), checkpointed; the ${AGENTS} threads share one project, each writing its own folder. In the worktree rows the project is a git repository and each thread a worktree thread (its own git worktree and branch, made as the thread starts; in the page, New thread → Worktree), writing in its worktree; turn times are the server's (Turn.durationMs).`,
      `Values are medians over ${RUNS} runs${WARMUP > 0 ? `, after ${WARMUP} run${WARMUP === 1 ? '' : 's'} of each program's app server not recorded` : ''}; ${BASELINE === null ? 'WEFT_BASELINE was not set: this build only' : `"baseline" is ${BASELINE_LABEL}, built, run alternately with this build`}.`,
      'List answers are timed by the client from the write of the request to the arrival of its answer (stdio for app-server, a WebSocket for serve). Frame intervals come from requestAnimationFrame, CPU per frame from a DevTools trace (ui-trace.ts); the page is the one the threads were started from, showing the last one.',
      `Machine load (1/5/15-minute averages) ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before and ${loadAfter.map((l) => l.toFixed(1)).join(' ')} after, on ${availableParallelism()} cores shared with other work running meanwhile: wall times include waiting for a core.`,
    ],
  };
}
