// Shared set-up for the exec engine tests: a scratch workdir, a context, and process-table checks.
import { mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecContext } from '../../../src-main/tools/exec';

export function scratchDir(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), 'weft-exec-')));
}

export function ctx(extra: Partial<ExecContext> = {}): ExecContext {
  return { signal: new AbortController().signal, ...extra };
}

/** The state, parent and group of a process from /proc/<pid>/stat, or null when it does not exist. */
export function readProcStat(pid: number): { state: string; ppid: number; pgrp: number } | null {
  let raw: string;
  try {
    raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) state ppid pgrp …" — comm may itself contain spaces and parentheses.
  const [state, ppid, pgrp] = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  return state === undefined || ppid === undefined || pgrp === undefined
    ? null
    : { state, ppid: Number(ppid), pgrp: Number(pgrp) };
}

/** Whether `pid` is running (a zombie waiting for its reaper has already exited). */
export function isRunning(pid: number): boolean {
  const stat = readProcStat(pid);
  return stat !== null && stat.state !== 'Z' && stat.state !== 'X';
}

/** Running members of the process group; the tests need Linux's /proc. */
export function runningInGroup(pgid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    throw new Error('these tests read /proc to inspect the process table; run them on Linux');
  }
  return entries.map(Number).filter((pid) => {
    const stat = readProcStat(pid);
    return stat !== null && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X';
  });
}

/** Resolves with the collected output once `pattern` shows up in it. */
export function outputWatcher(pattern: RegExp): { onOutput: (chunk: string) => void; seen: Promise<string> } {
  let collected = '';
  let resolveSeen: (text: string) => void = () => undefined;
  const seen = new Promise<string>((resolve) => {
    resolveSeen = resolve;
  });
  return {
    onOutput: (chunk) => {
      collected += chunk;
      if (pattern.test(collected)) resolveSeen(collected);
    },
    seen,
  };
}
