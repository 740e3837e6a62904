// What a sandbox layer does to a command: the launcher type the exec engine runs every command through.

/**
 * Rewrites the argv of every command before it starts (a sandbox layer prefixes it with bwrap and the
 * like). The wrapped command must stay in the process group it is started in, so that kills reach it.
 * A launch may hold something on disk for the command (the sandbox's placeholder folders): whoever
 * launches must call `release` once the command has exited, or when it could not be started.
 */
export type CommandLauncher = (
  argv: string[],
  opts: {
    cwd: string;
    env: Record<string, string>;
    /** An agent's command: run below the host that serves the person (background.ts), on Linux. */
    background?: boolean;
  },
) => LaunchedCommand | Promise<LaunchedCommand>;

export interface LaunchedCommand {
  argv: string[];
  env?: Record<string, string>;
  /**
   * Undoes what the launch put in place for the command; calling it more than once does nothing, and it
   * never rejects. Wait for it before reporting the exit, so that what the command left is settled.
   */
  release?: () => Promise<void>;
}
