// The Changes panel's status on a 50,000-file repository: `weft/git/status` as the panel calls it
// (one `git status --porcelain=v2` + `git remote`, parsed), clean and with 200 changed files.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitStatus } from '../src-main/git/status';

const FILES = 50_000;
const RUNS = 11;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function timeStatus(dir: string): Promise<{ ms: number; files: number }> {
  const times: number[] = [];
  let files = 0;
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const status = await gitStatus(dir);
    times.push(performance.now() - start);
    files = status.files.length;
  }
  return { ms: median(times), files };
}

export default async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-git-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } });
  try {
    for (let d = 0; d < 500; d++) {
      mkdirSync(join(dir, `pkg${d}`, 'src'), { recursive: true });
      for (let f = 0; f < FILES / 500; f++) writeFileSync(join(dir, `pkg${d}`, 'src', `file${f}.ts`), `export const v${f} = ${d};\n`);
    }
    git('init', '--quiet');
    git('-c', 'gc.auto=0', 'add', '--all');
    git('-c', 'gc.auto=0', 'commit', '--quiet', '-m', 'initial');
    await gitStatus(dir);
    const clean = await timeStatus(dir);
    for (let i = 0; i < 200; i++) writeFileSync(join(dir, `pkg${i}`, 'src', 'file0.ts'), `export const v0 = ${i + 1};\n`);
    for (let i = 0; i < 50; i++) writeFileSync(join(dir, `pkg${i}`, `new${i}.ts`), 'export {};\n');
    const dirty = await timeStatus(dir);
    return {
      title: 'Changes panel status (50,000-file git repository)',
      rows: [
        { name: 'weft/git/status, clean tree (median of 11)', value: clean.ms, unit: 'ms', target: '≤ 200 ms', note: `${clean.files} changed files` },
        { name: 'weft/git/status, 200 modified + 50 untracked (median of 11)', value: dirty.ms, unit: 'ms', target: '≤ 200 ms', note: `${dirty.files} changed files` },
      ],
      notes: ["Time is git's own `status` (warm index and file cache) plus parsing; it runs as a child process, so the main process stays responsive meanwhile."],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}
