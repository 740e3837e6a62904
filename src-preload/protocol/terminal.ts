// The user's own commands and files, as Codex 0.169 names and shapes them: `command/exec` (the
// integrated terminal's transport, with `write`, `resize`, `terminate` and `outputDelta`),
// `thread/shellCommand` (the composer's `!cmd`) and `fuzzyFileSearch` (the composer's `@`).
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { SandboxPolicy } from './common';
import { WeftEnvironmentName } from './weft-environments';

/** A PTY size in character cells. */
export const CommandExecTerminalSize = lazySchema(() =>
  z.object({
    rows: z.number().int().min(1).max(65535),
    cols: z.number().int().min(1).max(65535),
  }),
);
export type CommandExecTerminalSize = z.infer<typeof CommandExecTerminalSize>;

/**
 * Runs `command` (an argv, not a shell string) outside any thread. The response comes when the process
 * exits. `processId` is chosen by the client and scoped to its connection; it is required for `tty`,
 * `streamStdin`, `streamStdoutStderr` and the follow-up `command/exec/*` requests. Every process a
 * connection started is killed when the connection closes.
 */
export const CommandExecParams = lazySchema(() =>
  z.object({
    command: z.array(z.string()),
    /** Default: `weftCwd`, else the server's project folder; a relative path is taken from there. */
    cwd: z.string().nullish(),
    /** Weft's: the project the client shows, whose folder and config stand in for the server's own. */
    weftCwd: z.string().nullish(),
    /** Variables set over the server's (secret-filtered) environment; null unsets one. */
    env: z.record(z.string(), z.string().nullable()).nullish(),
    processId: z.string().nullish(),
    /** A pseudo-terminal: implies `streamStdin` and `streamStdoutStderr`; output arrives as `stdout`. */
    tty: z.boolean().optional(),
    streamStdin: z.boolean().optional(),
    /** Output as `command/exec/outputDelta` notifications instead of in the response. */
    streamStdoutStderr: z.boolean().optional(),
    /** Initial PTY size (only with `tty`); default 80x24. */
    size: CommandExecTerminalSize.nullish(),
    /** Default: 10 s for buffered commands, none for streamed or `tty` ones. */
    timeoutMs: z.number().int().nonnegative().nullish(),
    disableTimeout: z.boolean().optional(),
    /** Bytes kept per stream (default 1 MiB for buffered output, unlimited when streamed). */
    outputBytesCap: z.number().int().nonnegative().nullish(),
    disableOutputCap: z.boolean().optional(),
    /** Default: the sandbox of the user's config (`sandbox_mode`). */
    sandboxPolicy: SandboxPolicy.nullish(),
    /** Weft: the process runs on this environment (see `WeftEnvironmentName`); absent = the server's machine. */
    weftEnvironment: WeftEnvironmentName,
    /**
     * Weft, set by a relay (with a `processId`): when this connection drops without `weft/terminal/release`,
     * the process is not ended but kept for a grace period (`WEFT_TERMINAL_GRACE_MS`, default 5 minutes)
     * under this key, its output since kept (the last 256 KiB), for `weft/terminal/adopt` on a new connection.
     */
    weftKeepKey: WeftTerminalKeepKey.nullish(),
  }),
);
export type CommandExecParams = z.infer<typeof CommandExecParams>;

/** A relay's key for the processes of one client's connection (`randomUUID` or the like). */
export const WeftTerminalKeepKey = lazySchema(() =>
  z.string().regex(/^[A-Za-z0-9_-]{16,128}$/, 'a keep key is 16 to 128 letters, digits, "_" or "-"'),
);

/**
 * Weft: takes over a process a connection that dropped started with `weftKeepKey` (a relay's reconnect):
 * its output since the drop comes first (`command/exec/outputDelta`, on this connection), then its
 * output as it comes; `command/exec/write`, `resize` and `terminate` reach it here, and it is this
 * connection's from now on. Answered like its `command/exec`, when it exits (at once when it already
 * did). An error when none is kept under the key and id (the grace period passed, or the server restarted).
 */
export const WeftTerminalAdoptParams = lazySchema(() =>
  z.object({
    key: WeftTerminalKeepKey,
    processId: z.string(),
  }),
);
export type WeftTerminalAdoptParams = z.infer<typeof WeftTerminalAdoptParams>;

/**
 * Weft: the processes this connection started with `weftKeepKey` = `key` end with it, as others do (a
 * relay whose client left for good says it before it closes).
 */
export const WeftTerminalReleaseParams = lazySchema(() => z.object({ key: WeftTerminalKeepKey }));
export type WeftTerminalReleaseParams = z.infer<typeof WeftTerminalReleaseParams>;
export const WeftTerminalReleaseResult = lazySchema(() => z.object({}));
export type WeftTerminalReleaseResult = z.infer<typeof WeftTerminalReleaseResult>;

/** How the process ended; streamed output is not repeated here (the fields are then empty). */
export const CommandExecResult = lazySchema(() =>
  z.object({
    exitCode: z.number().int(),
    stdout: z.string(),
    stderr: z.string(),
  }),
);
export type CommandExecResult = z.infer<typeof CommandExecResult>;

export const CommandExecWriteParams = lazySchema(() =>
  z.object({
    processId: z.string(),
    /** Bytes for stdin, base64. */
    deltaBase64: z.string().nullish(),
    /** Close stdin after writing (a PTY gets end-of-file, Ctrl+D). */
    closeStdin: z.boolean().optional(),
    /** Weft: the environment the process was started on (its `command/exec`'s `weftEnvironment`). */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type CommandExecWriteParams = z.infer<typeof CommandExecWriteParams>;
export const CommandExecWriteResult = lazySchema(() => z.object({}));
export type CommandExecWriteResult = z.infer<typeof CommandExecWriteResult>;

export const CommandExecResizeParams = lazySchema(() =>
  z.object({
    processId: z.string(),
    size: CommandExecTerminalSize,
    /** Weft: the environment the process was started on (its `command/exec`'s `weftEnvironment`). */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type CommandExecResizeParams = z.infer<typeof CommandExecResizeParams>;
export const CommandExecResizeResult = lazySchema(() => z.object({}));
export type CommandExecResizeResult = z.infer<typeof CommandExecResizeResult>;

/** Ends the process group; the `command/exec` request then answers with its exit code. */
export const CommandExecTerminateParams = lazySchema(() =>
  z.object({
    processId: z.string(),
    /** Weft: the environment the process was started on (its `command/exec`'s `weftEnvironment`). */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type CommandExecTerminateParams = z.infer<typeof CommandExecTerminateParams>;
export const CommandExecTerminateResult = lazySchema(() => z.object({}));
export type CommandExecTerminateResult = z.infer<typeof CommandExecTerminateResult>;

export const CommandExecOutputStream = lazySchema(() => z.enum(['stdout', 'stderr']));
export type CommandExecOutputStream = z.infer<typeof CommandExecOutputStream>;

/** Output bytes of a streamed `command/exec`; sent only to the connection that started it. */
export const CommandExecOutputDeltaNotification = lazySchema(() =>
  z.object({
    processId: z.string(),
    stream: CommandExecOutputStream,
    deltaBase64: z.string(),
    /** True on the last chunk of a stream that `outputBytesCap` cut. */
    capReached: z.boolean(),
  }),
);
export type CommandExecOutputDeltaNotification = z.infer<typeof CommandExecOutputDeltaNotification>;

/**
 * The user's own command (`!cmd`), run by their shell in the thread's cwd without the sandbox. It shows
 * as a `commandExecution` item (`source: "userShell"`) in a turn of its own (or in the running turn), and
 * the model sees the command and its output with the next request.
 */
export const ThreadShellCommandParams = lazySchema(() =>
  z.object({
    threadId: z.string(),
    command: z.string(),
    /** Default one hour; 0 times out at once. */
    timeoutMs: z.number().int().nonnegative().nullish(),
  }),
);
export type ThreadShellCommandParams = z.infer<typeof ThreadShellCommandParams>;
export const ThreadShellCommandResult = lazySchema(() => z.object({}));
export type ThreadShellCommandResult = z.infer<typeof ThreadShellCommandResult>;

/** Files whose path matches `query` fuzzily under each root, best first; `.gitignore`d files are left out. */
export const FuzzyFileSearchParams = lazySchema(() =>
  z.object({
    query: z.string(),
    roots: z.array(z.string()),
    /** A later search with the same token supersedes an earlier one, which then answers empty. */
    cancellationToken: z.string().nullish(),
    /** Weft: the roots are folders on this environment (see `WeftEnvironmentName`). */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type FuzzyFileSearchParams = z.infer<typeof FuzzyFileSearchParams>;

export const FuzzyFileSearchResultEntry = lazySchema(() =>
  z.object({
    root: z.string(),
    /** Relative to `root`, with `/` separators. */
    path: z.string(),
    file_name: z.string(),
    match_type: z.enum(['file', 'directory']),
    /** Higher is better. */
    score: z.number().int().nonnegative(),
    /** Character positions in `path` that matched, for highlighting. */
    indices: z.array(z.number().int().nonnegative()).nullable().optional(),
  }),
);
export type FuzzyFileSearchResultEntry = z.infer<typeof FuzzyFileSearchResultEntry>;

export const FuzzyFileSearchResult = lazySchema(() => z.object({ files: z.array(FuzzyFileSearchResultEntry) }));
export type FuzzyFileSearchResult = z.infer<typeof FuzzyFileSearchResult>;
