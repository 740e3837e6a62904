// What a sandbox layer does to a command: the launcher type the exec engine runs every command through.

/**
 * Rewrites the argv of every command before it starts (a sandbox layer prefixes it with bwrap and the
 * like). The wrapped command must stay in the process group it is started in, so that kills reach it.
 */
export type CommandLauncher = (
  argv: string[],
  opts: { cwd: string; env: Record<string, string> },
) => { argv: string[]; env?: Record<string, string> };
