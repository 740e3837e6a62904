/**
 * Runs one hook command: `/bin/sh -c <command>` in its own process group, outside the sandbox, with the
 * user's rights and the environment commands get (filtered by `shell_environment_policy`), the event's JSON
 * on stdin. Never blocks the event loop: the process is spawned and awaited. At its timeout the whole group
 * is killed (SIGKILL), so a hook that hangs, or the children it left, cannot hold the turn. Output is
 * capped: a hook that floods its pipes costs at most `OUTPUT_CAP` bytes per stream.
 */
import { spawn } from 'node:child_process';

/** Bytes kept of each of stdout and stderr. */
export const OUTPUT_CAP = 64 * 1024;
/** After the hook's own process exits, how long its pipes may stay open (held by a child it left). */
const PIPE_GRACE_MS = 200;

export interface HookProcessResult {
  /** null when the hook was killed (timeout) or could not start. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it could not start (ENOENT of the shell, …); null when it started. */
  spawnError: string | null;
  /** Why an `mcp_tool` hook's call failed or its tool answered `isError`, for people; null otherwise. */
  toolError?: string | null;
  durationMs: number;
}

export interface RunHookCommandOptions {
  command: string;
  cwd: string;
  env: Record<string, string>;
  input: string;
  timeoutMs: number;
  /** Kills the hook early (the thread shuts down). */
  signal?: AbortSignal;
}

export function runHookCommand(opts: RunHookCommandOptions): Promise<HookProcessResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const out = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
    let timedOut = false;
    let done = false;
    let exitCode: number | null = null;
    let graceTimer: NodeJS.Timeout | null = null;
    const child = spawn('/bin/sh', ['-c', opts.command], {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const finish = (spawnError: string | null): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({
        exitCode: timedOut ? null : exitCode,
        stdout: out.stdout.toString('utf8'),
        stderr: out.stderr.toString('utf8'),
        timedOut,
        spawnError,
        durationMs: Math.round(performance.now() - started),
      });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
      finish(null);
    }, opts.timeoutMs);
    const onAbort = (): void => {
      killGroup();
      finish('the thread stopped the hook');
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const collect = (name: 'stdout' | 'stderr') => (chunk: Buffer) => {
      const room = OUTPUT_CAP - out[name].length;
      if (room > 0) out[name] = Buffer.concat([out[name], chunk.subarray(0, room)]);
    };
    child.stdout?.on('data', collect('stdout'));
    child.stderr?.on('data', collect('stderr'));
    child.on('error', (error) => finish(error.message));
    child.on('exit', (code) => {
      exitCode = code;
      // A child the hook left may hold the pipes open: wait for them a little, not for it.
      graceTimer = setTimeout(() => finish(null), PIPE_GRACE_MS);
    });
    child.on('close', () => finish(null));
    // A hook that does not read its stdin must not fail the write (EPIPE).
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(opts.input);
  });
}
