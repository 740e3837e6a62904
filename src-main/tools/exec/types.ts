// Requests and results of the exec engine behind `exec_command` / `write_stdin`.

import type { CommandLauncher, LaunchedCommand } from '../../safety/sandbox/command-launcher';

export type { CommandLauncher, LaunchedCommand };

export interface ExecRequest {
  cmd: string;
  /** Absolute directory, already resolved by the caller. */
  workdir: string;
  /** Shell to run `cmd` with. Default: $SHELL when it is bash, zsh or sh, else /bin/bash. */
  shell?: string;
  /** Default true: `<shell> -lc <cmd>` (a login shell reads the user's profile); false: `-c`. */
  login?: boolean;
  /**
   * Default false: stdout+stderr on pipes, stdin closed (/dev/null), like Codex's non-interactive
   * commands. true: a PTY (node-pty), so the session accepts keystrokes through `write_stdin`.
   */
  tty?: boolean;
  /** How long to wait before returning a session id; default 10,000, clamped to 250–30,000 ms. */
  yieldTimeMs?: number;
  /** Output budget of this call in approximate tokens (4 bytes each); default 10,000. */
  maxOutputTokens?: number;
  /** Extra variables, set over the inherited (secret-filtered) environment. */
  env?: Record<string, string>;
  /** Wraps this command (the sandbox chosen for it); default: the manager's launcher. */
  launcher?: CommandLauncher;
  /** The turn that started the command: what it changes in the background is that turn's. */
  turnId?: string;
}

export interface WriteStdinRequest {
  sessionId: number;
  /** Keystrokes to send; empty or missing = just poll for output. */
  chars?: string;
  /**
   * Default 250, clamped to 250–30,000 ms. A poll (no chars) waits at least 5,000 ms and at most
   * 300,000 ms, unless the process exits sooner.
   */
  yieldTimeMs?: number;
  maxOutputTokens?: number;
}

export interface ExecContext {
  /** Aborting kills the command's whole process group; the pending call resolves with what it has. */
  signal: AbortSignal;
  /**
   * Decoded output as it arrives during this call (UTF-8 safe across chunks). A write_stdin call first
   * receives what the session printed since the previous call.
   */
  onOutput?: (chunk: string) => void;
  /** exec only: called once the process is running; `sessionId` is the id it will have as a session. */
  onSpawn?: (info: { pid: number; sessionId: number | null }) => void;
}

export interface ExecResult {
  /** The formatted tool output for the model. */
  text: string;
  /** null while the process is still running (or when nothing could be run). */
  exitCode: number | null;
  /** Set while the process is still running and can be addressed with `write_stdin`. */
  sessionId: number | null;
  /** Raw output collected during this call: untruncated, up to the 1 MiB retention cap (head + tail). */
  output: string;
  wallTimeMs: number;
  /** Whether `text` shows only part of the output. */
  truncated: boolean;
  /** Token estimate of the whole output, set when truncated. */
  originalTokenCount: number | null;
  /** The call's signal was aborted and the process was killed. */
  aborted: boolean;
  pid: number | null;
  /** Set when the command could not be started: why, in words for people. */
  notStarted?: string;
  /** The turn that started the command (when its request named one). */
  turnId?: string;
}
