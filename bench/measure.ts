// Whole-process measurement for benchmarks: wall time and peak RSS of a command, via a tiny Python
// wrapper that reads getrusage(RUSAGE_CHILDREN) — exact peak memory, which Node cannot report for
// a child process.
import { spawn } from 'node:child_process';

/** What a benchmark reports: one row of bench/RESULTS.md. */
export interface BenchRow {
  name: string;
  value: number | string;
  unit: string;
  target?: string;
  note?: string;
}

export interface ProcessRun {
  wallMs: number;
  /** User + system CPU time of the command (getrusage children): what it cost without waiting for a core. */
  cpuMs: number;
  peakRssMiB: number;
  exitCode: number;
  stdout: string;
  stderr: string;
}

const WRAPPER = `
import json, resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, capture_output=True)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
peak_kib = usage.ru_maxrss
sys.stdout.write(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_kib": peak_kib, "code": proc.returncode, "out": proc.stdout.decode("utf-8", "replace"), "err": proc.stderr.decode("utf-8", "replace")}))
`;

export function measureProcess(
  argv: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', WRAPPER, ...argv], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', () => {
      try {
        const r = JSON.parse(out) as {
          wall: number;
          cpu: number;
          peak_kib: number;
          code: number;
          out: string;
          err: string;
        };
        resolve({
          wallMs: r.wall * 1000,
          cpuMs: r.cpu * 1000,
          peakRssMiB: r.peak_kib / 1024,
          exitCode: r.code,
          stdout: r.out,
          stderr: r.err,
        });
      } catch (error) {
        reject(new Error(`measure: could not read the wrapper's result: ${String(error)}\n${out.slice(0, 500)}`));
      }
    });
  });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** The smallest value that `p` percent of the values are at or below (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** The value 95% of the values are at or below. */
export function p95(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0;
}
