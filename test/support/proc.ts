// What a process is doing, read from /proc (Linux): its live children running a given program, and its
// resident memory. Free of vitest, so benches use it too.
import { readdirSync, readFileSync } from 'node:fs';

/** Live (not zombie) children of `pid` whose command line contains `needle`, by pid. */
export function childrenRunning(pid: number, needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    let cmdline: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || Number(fields[1]) !== pid) continue;
    if (cmdline.includes(needle)) found.push(Number(entry));
  }
  return found;
}

/** The resident set size of `pid` in MiB (VmRSS). */
export function rssMiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match?.[1] === undefined) throw new Error(`process ${pid} reports no VmRSS`);
  return Math.round((Number(match[1]) / 1024) * 10) / 10;
}
