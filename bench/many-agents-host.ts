// What both parts of the "many agents" bench share: the programs compared, a scenario's folders (a Weft
// home configured for the mock model, a project), the server processes, and a guard against a scenario
// that never ends.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ProbeAnswer } from '../test/support/list-probe';
import { mockModelConfig, type MockResponsesServer } from '../test/support/mock-responses-server';

/** Longest a scenario may take before the bench gives up on it. */
export const GUARD_MS = 240_000;

/** A Weft to run: this build, or WEFT_BASELINE's. */
export interface Program {
  label: string;
  /** The `weft` entry script. */
  bin: string;
}

/** What one part measured in one run. */
export interface AppServerResult {
  lists: ProbeAnswer[];
  peakRssMiB: number;
  /** CPU time of the server process (all its threads: the thread pool's compression too), in seconds. */
  cpuSeconds: number;
  seconds: number;
  /** Each thread's turn, from its start to its end, as the server timed it (`Turn.durationMs`). */
  turnMs: number[];
  /** The server's main thread over the agents' turns: ms on a core, and ms runnable but waiting for one. */
  mainThread: MainThreadTimes;
}

/** Time one thread spent on a core and waiting for one (its run queue), in ms. */
export interface MainThreadTimes {
  runMs: number;
  waitMs: number;
}

/**
 * The kernel's count of a process's main thread so far (Linux `/proc/<pid>/task/<pid>/schedstat`: ns on a
 * core, ns runnable but waiting). The wait is what a request sent meanwhile could not be read for.
 */
export function mainThreadTimes(pid: number | undefined): MainThreadTimes {
  const [run = 0, wait = 0] = readFileSync(`/proc/${pid ?? 0}/task/${pid ?? 0}/schedstat`, 'utf8')
    .trim()
    .split(' ')
    .map(Number);
  return { runMs: run / 1e6, waitMs: wait / 1e6 };
}

/** CPU time (user + system) one process has used so far, all its threads, in seconds (Linux: 100 ticks a second). */
export function cpuSeconds(pid: number | undefined): number {
  const stat = readFileSync(`/proc/${pid ?? 0}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / 100;
}

/** Peak RSS (VmHWM) of one process, in MiB. */
export function peakRss(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid ?? 0}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/**
 * A fresh home (config for the mock model) and project for one scenario; with `git`, the project is a git
 * repository with one commit (worktree threads are made from its HEAD).
 */
export function scenarioDirs(
  work: string,
  name: string,
  mock: MockResponsesServer,
  git = false,
): { home: string; project: string } {
  const dir = join(work, name);
  rmSync(dir, { recursive: true, force: true });
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'README.md'), '# Many agents\n');
  if (git) {
    const identity = ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', '-c', 'commit.gpgsign=false'];
    for (const args of [
      ['init', '-q'],
      ['add', '-A'],
      [...identity, 'commit', '-qm', 'Start'],
    ])
      execFileSync('git', args, { cwd: project, stdio: 'ignore' });
  }
  writeFileSync(join(home, 'config.toml'), mockModelConfig(mock.url));
  return { home, project };
}

/** MANY_AGENTS_CPU_PROF: a folder where the host processes (app server, weft serve) write CPU profiles. */
const CPU_PROF = process.env['MANY_AGENTS_CPU_PROF'] ? resolve(process.env['MANY_AGENTS_CPU_PROF']) : null;

/** MANY_AGENTS_NODE_ARGS: more of Node's flags for the host processes, space-separated (`--require` a probe). */
const MORE_ARGS = (process.env['MANY_AGENTS_NODE_ARGS'] ?? '').split(' ').filter((arg) => arg !== '');

/**
 * Node's flags for a host process: `--cpu-prof` into MANY_AGENTS_CPU_PROF as `<name>.cpuprofile`, if set,
 * and MANY_AGENTS_NODE_ARGS.
 */
export function nodeArgs(name: string): string[] {
  if (CPU_PROF === null) return MORE_ARGS;
  mkdirSync(CPU_PROF, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`, `--cpu-prof-name=${name}.cpuprofile`, ...MORE_ARGS];
}

export function env(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    SHELL: '/bin/bash',
    WEFT_HOME: home,
    MOCK_API_KEY: 'x',
    // Passed on to compare a build with and without its spawn host (WEFT_SPAWN_HOST=0).
    ...(process.env['WEFT_SPAWN_HOST'] === undefined ? {} : { WEFT_SPAWN_HOST: process.env['WEFT_SPAWN_HOST'] }),
  };
}

/** Resolves when `child` has exited. */
export function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => child.once('exit', () => r()));
}

/** Rejects after GUARD_MS, naming what did not finish. */
export function guarded<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`many-agents: ${what} did not finish in ${GUARD_MS} ms`)), GUARD_MS);
  });
  return Promise.race([work, guard]).finally(() => clearTimeout(timer));
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The errors of the failed turns recorded in a home's rollouts (to say why a scenario broke off). */
export function failedTurns(home: string): string[] {
  const errors: string[] = [];
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.jsonl'))
        for (const m of readFileSync(path, 'utf8').matchAll(
          /"status":"failed","error":\{"message":"((?:[^"\\]|\\.)*)"/g,
        ))
          errors.push(m[1] ?? '');
    }
  };
  visit(join(home, 'sessions'));
  return errors;
}
