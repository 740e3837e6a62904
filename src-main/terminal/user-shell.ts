// The user's own command (`thread/shellCommand`, the composer's `!cmd`): run by their shell in the
// thread's cwd, without the sandbox (it is theirs, not the agent's), and told to the model afterwards.
import { basename } from 'node:path';
import type { ResponseItem } from '../../src-preload/protocol';
import { commandEnv } from '../safety/command-env';
import { truncateMiddle } from '../tools/exec/format';
import { startPipeProcess } from '../tools/exec/spawn-pipe';

/** Codex's default for `thread/shellCommand` without `timeoutMs`. */
export const USER_SHELL_TIMEOUT_MS = 60 * 60 * 1000;
/** How much of the output the model is given (tokens of ~4 bytes; head and tail are kept). */
const MODEL_OUTPUT_TOKENS = 10_000;
const SHELLS = new Set(['bash', 'zsh', 'sh']);

export interface UserShellRun {
  exitCode: number;
  output: string;
  durationMs: number;
  timedOut: boolean;
  /** Stopped because the thread's turn was interrupted. */
  aborted: boolean;
}

export function userShellArgv(command: string, env: NodeJS.ProcessEnv): string[] {
  const shell = env.SHELL !== undefined && SHELLS.has(basename(env.SHELL)) ? env.SHELL : '/bin/bash';
  return [shell, '-lc', command];
}

/** Runs `command`; output arrives through `onOutput` as it comes and whole in the result. */
export function runUserShell(opts: {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal: AbortSignal;
  onOutput: (text: string) => void;
}): Promise<UserShellRun> {
  return runPiped({ ...opts, argv: userShellArgv(opts.command, opts.env), env: commandEnv(opts.env) });
}

/**
 * Runs `argv` with its output piped: it arrives through `onOutput` as it comes and whole in the result.
 * Killed when `signal` aborts or after `timeoutMs` (none: no limit). The user's commands run through it,
 * and a worktree's setup script once its sandbox has wrapped the argv.
 */
export async function runPiped(opts: {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs?: number;
  signal: AbortSignal;
  onOutput: (text: string) => void;
}): Promise<UserShellRun> {
  const started = Date.now();
  let output = '';
  let timedOut = false;
  const proc = await startPipeProcess(opts.argv, {
    cwd: opts.cwd,
    env: opts.env,
    onOutput: (text) => {
      output += text;
      opts.onOutput(text);
    },
  });
  const timer =
    opts.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          void proc.kill();
        }, opts.timeoutMs);
  const onAbort = (): void => void proc.kill();
  opts.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const exitCode = await proc.exited;
    return { exitCode, output, durationMs: Date.now() - started, timedOut, aborted: opts.signal.aborted };
  } finally {
    clearTimeout(timer);
    opts.signal.removeEventListener('abort', onAbort);
  }
}

/** What the model is told about the user's command: the command, how it ended and its output. */
export function userShellMessage(command: string, run: UserShellRun): ResponseItem {
  const ending = run.timedOut ? 'timed out' : run.aborted ? 'stopped' : `Exit code: ${run.exitCode}`;
  const text = [
    '<user_shell_command>',
    '<command>',
    command,
    '</command>',
    '<result>',
    ending,
    `Duration: ${(run.durationMs / 1000).toFixed(1)} seconds`,
    'Output:',
    truncateMiddle(run.output, MODEL_OUTPUT_TOKENS).text,
    '</result>',
    '</user_shell_command>',
  ].join('\n');
  return { type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
}
