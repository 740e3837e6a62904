// Limits of the unified exec tools (`exec_command` / `write_stdin`), matching Codex's unified exec.

/** `exec_command` waits this long for the command before handing back a session id. */
export const DEFAULT_EXEC_YIELD_MS = 10_000;
/** `write_stdin` waits this long after writing before returning what the process printed. */
export const DEFAULT_WRITE_STDIN_YIELD_MS = 250;
/** Every yield is clamped to [MIN_YIELD_MS, MAX_YIELD_MS]. */
export const MIN_YIELD_MS = 250;
export const MAX_YIELD_MS = 30_000;
/**
 * A `write_stdin` call with no chars is a poll: it waits at least this long (unless the process exits),
 * so a model polling a slow build does not spin, and at most MAX_EMPTY_POLL_YIELD_MS.
 */
export const MIN_EMPTY_POLL_YIELD_MS = 5_000;
export const MAX_EMPTY_POLL_YIELD_MS = 300_000;
/** Output budget per call, in approximate tokens (4 bytes each). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;
export const BYTES_PER_TOKEN = 4;
/** Output held for one session between calls; beyond it the middle is dropped (head and tail kept). */
export const MAX_RETAINED_OUTPUT_BYTES = 1024 * 1024;
/** Live sessions per manager; starting one more closes the least recently used. */
export const DEFAULT_MAX_SESSIONS = 64;
/** Session ids are small integers, unique per manager, starting here. */
export const FIRST_SESSION_ID = 1000;
/** After SIGTERM to a process group, wait this long before SIGKILL. */
export const KILL_GRACE_MS = 1_000;
/**
 * After a pipe-mode command's main process exits, wait at most this long for its output pipes to close
 * (a background child that inherited them may hold them open forever).
 */
export const PIPE_DRAIN_MS = 100;
/** PTY size for `tty: true` sessions. */
export const PTY_COLS = 80;
export const PTY_ROWS = 24;
