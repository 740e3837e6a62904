// The Changes panel's status on a 50,000-file repository: `weft/git/status` as the panel calls it
// (one `git status --porcelain=v2` beside `git rev-parse` and `git remote`, parsed), clean and with
// 250 changed files, each run next to a bare `git status --porcelain=v2 -z` on the same tree (what git
// itself costs; the difference is ours).
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitStatus } from '../src-main/git/status';

const FILES = 50_000;
const RUNS = 11;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function bareStatus(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all'],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
      (error) => (error ? reject(error) : resolve()),
    );
  });
}

/** Ours and bare git alternately, RUNS times each: medians of wall time and of children's CPU time. */
async function timeStatus(
  dir: string,
): Promise<{ ms: number; bareMs: number; cpuMs: number; bareCpuMs: number; files: number }> {
  const times: number[] = [];
  const bare: number[] = [];
  const cpu: number[] = [];
  const bareCpu: number[] = [];
  let files = 0;
  for (let i = 0; i < RUNS; i++) {
    let start = performance.now();
    let cpuStart = childrenCpuMs();
    const status = await gitStatus(dir);
    times.push(performance.now() - start);
    cpu.push(childrenCpuMs() - cpuStart);
    files = status.files.length;
    start = performance.now();
    cpuStart = childrenCpuMs();
    await bareStatus(dir);
    bare.push(performance.now() - start);
    bareCpu.push(childrenCpuMs() - cpuStart);
  }
  return { ms: median(times), bareMs: median(bare), cpuMs: median(cpu), bareCpuMs: median(bareCpu), files };
}

/** CPU time (ms) of this process's finished children, from /proc (getrusage RUSAGE_CHILDREN). */
function childrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  // cutime and cstime are fields 16 and 17 of /proc/self/stat (14 and 15 after the command name).
  const ticks = Number(fields[14] ?? 0) + Number(fields[15] ?? 0);
  return ticks * 10;
}

export default async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-git-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'b',
        GIT_AUTHOR_EMAIL: 'b@b',
        GIT_COMMITTER_NAME: 'b',
        GIT_COMMITTER_EMAIL: 'b@b',
      },
    });
  try {
    for (let d = 0; d < 500; d++) {
      mkdirSync(join(dir, `pkg${d}`, 'src'), { recursive: true });
      for (let f = 0; f < FILES / 500; f++)
        writeFileSync(join(dir, `pkg${d}`, 'src', `file${f}.ts`), `export const v${f} = ${d};\n`);
    }
    git('init', '--quiet');
    git('-c', 'gc.auto=0', 'add', '--all');
    git('-c', 'gc.auto=0', 'commit', '--quiet', '-m', 'initial');
    await gitStatus(dir);
    const loadBefore = loadavg()[0] ?? 0;
    const clean = await timeStatus(dir);
    for (let i = 0; i < 200; i++)
      writeFileSync(join(dir, `pkg${i}`, 'src', 'file0.ts'), `export const v0 = ${i + 1};\n`);
    for (let i = 0; i < 50; i++) writeFileSync(join(dir, `pkg${i}`, `new${i}.ts`), 'export {};\n');
    const dirty = await timeStatus(dir);
    return {
      title: 'Changes panel status (50,000-file git repository)',
      rows: [
        {
          name: 'weft/git/status, clean tree (median of 11)',
          value: Math.round(clean.ms),
          unit: 'ms',
          target: '≤ 200 ms',
          note: `${clean.files} changed files; bare git status ${Math.round(clean.bareMs)} ms in the same runs`,
        },
        {
          name: 'weft/git/status, clean tree: git CPU time (median of 11)',
          value: clean.cpuMs,
          unit: 'ms',
          note: `bare git status ${clean.bareCpuMs} ms`,
        },
        {
          name: 'weft/git/status, 200 modified + 50 untracked (median of 11)',
          value: Math.round(dirty.ms),
          unit: 'ms',
          target: '≤ 200 ms',
          note: `${dirty.files} changed files; bare git status ${Math.round(dirty.bareMs)} ms in the same runs`,
        },
        {
          name: 'weft/git/status, 200 modified + 50 untracked: git CPU time (median of 11)',
          value: dirty.cpuMs,
          unit: 'ms',
          note: `bare git status ${dirty.bareCpuMs} ms`,
        },
      ],
      notes: [
        "Time is git's own `status` (warm index and file cache) plus parsing; it runs as a child process, so the main process stays responsive meanwhile. `rev-parse` and `remote` run beside it.",
        'Bare git status = `git status --porcelain=v2 -z --branch --untracked-files=all` run right after each of ours on the same tree. CPU time is that of the git processes (from /proc, 10 ms ticks).',
        `Machine load (1-minute average) ${loadBefore.toFixed(1)} before and ${(loadavg()[0] ?? 0).toFixed(1)} after the run, on ${availableParallelism()} cores: wall times include waiting for a core.`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}
