// How bwrap is started: through a small bash trampoline that first closes every file descriptor above 2
// that Weft itself inherited (a descriptor open on a file outside the sandbox would let the command
// write it), then, when a seccomp program is given, opens it on descriptor 3 from a pipe (no file that
// a sandboxed command could swap) for `bwrap --seccomp 3`, and finally execs bwrap.
import { accessSync, constants, statSync } from 'node:fs';

export const SECCOMP_FD = 3;

/** Closes inherited descriptors > 2; `$1` is the seccomp program as printf escapes (or empty); then execs the rest. */
const TRAMPOLINE = [
  'for f in /proc/self/fd/*; do n=${f##*/}; if [ "$n" -gt 2 ] && [ -L "$f" ]; then exec {n}>&-; fi; done',
  `if [ -n "$1" ]; then exec ${SECCOMP_FD}< <(printf "$1"); fi`,
  'shift',
  'exec "$@"',
].join('\n');

const TRUSTED_BASH = ['/bin/bash', '/usr/bin/bash'];

/** The first of `candidates` (absolute paths, never looked up on PATH) that is an executable file, or null. */
export function firstExecutable(candidates: readonly string[]): string | null {
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not there: try the next one
    }
  }
  return null;
}

/** The absolute path of a system bash, or null. */
export function findBash(): string | null {
  return firstExecutable(TRUSTED_BASH);
}

/**
 * The argv that runs `bwrap <args> [--seccomp 3] -- <command>` through the trampoline. `args` are the
 * bwrap options without `--`.
 */
export function trampolineArgv(
  bash: string,
  bwrap: string,
  args: readonly string[],
  command: readonly string[],
  seccomp: Buffer | null,
): string[] {
  const escaped = seccomp === null ? '' : [...seccomp].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
  const seccompArgs = seccomp === null ? [] : ['--seccomp', String(SECCOMP_FD)];
  return [bash, '-c', TRAMPOLINE, 'weft-sandbox', escaped, bwrap, ...args, ...seccompArgs, '--', ...command];
}

/**
 * The environment the trampoline (and so the command) gets: without the variables that would make bash
 * run code of their own before the trampoline does (BASH_ENV, ENV, exported functions).
 */
export function trampolineEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => name !== 'BASH_ENV' && name !== 'ENV' && !name.startsWith('BASH_FUNC_')),
  );
}
