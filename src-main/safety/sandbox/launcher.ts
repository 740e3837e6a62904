// The sandbox as a command launcher for the exec engine: it rewrites `[shell, '-lc', cmd]` into the
// same command run under bwrap (Linux) or sandbox-exec (macOS). When the platform sandbox cannot run,
// the result says why and what to do, and the caller must not run commands unsandboxed without
// approval (see assessCommand's `sandboxAvailable`).
import { existsSync } from 'node:fs';
import type { SandboxPolicy } from '../../../src-preload/protocol';
import type { CommandLauncher } from './command-launcher';
import { inBackground } from './background';
import { trampolineArgv, trampolineEnv } from './bwrap-launch';
import { bwrapArgs, probeBwrap, seccompProgram } from './linux-bwrap';
import { networkAllowed } from './network';
import { SANDBOX_EXEC, seatbeltArgv } from './seatbelt';
import { worktreeCommitRoots, type OwnWorktree } from './worktree-git';

export type SandboxMechanism = 'bwrap' | 'seatbelt' | 'none';

export type SandboxLauncherResult =
  | { available: true; mechanism: SandboxMechanism; launcher: CommandLauncher }
  | { available: false; mechanism: SandboxMechanism; reason: string; fix: string };

/** Runs commands as they are (danger-full-access); an agent's below the host (background.ts). */
export const identityLauncher: CommandLauncher = (argv, opts) => ({
  argv: opts.background === true ? inBackground(argv) : argv,
});

/**
 * A launcher enforcing `policy` for a thread working in `cwd`. The writable roots are computed at each
 * launch (so a `.git` created meanwhile is protected) from the command's environment (`$TMPDIR`).
 * `env` is used only to decide availability up front. `protectedPaths`: more paths kept read-only
 * when they exist (the session's trusted project config folders). `ownWorktree`: the thread's own git
 * worktree, where its commands may commit on its branch (worktree-git.ts).
 */
export async function createSandboxLauncher(
  policy: SandboxPolicy,
  cwd: string,
  _env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
  protectedPaths: readonly string[] = [],
  ownWorktree: OwnWorktree | null = null,
): Promise<SandboxLauncherResult> {
  if (policy.type === 'dangerFullAccess') return { available: true, mechanism: 'none', launcher: identityLauncher };
  const markers: Record<string, string> = networkAllowed(policy) ? {} : { WEFT_SANDBOX_NETWORK_DISABLED: '1' };
  switch (platform) {
    case 'linux': {
      const probe = await probeBwrap();
      if (!probe.ok) return { available: false, mechanism: 'bwrap', reason: probe.reason, fix: probe.fix };
      const { bwrap, bash } = probe;
      let seccomp: Buffer | null = null;
      if (!networkAllowed(policy)) {
        // With the network off, host unix sockets must be out of reach too; without the filter, ask.
        const program = seccompProgram();
        if (!probe.layers.unixSockets.ok || program.program === null) {
          return {
            available: false,
            mechanism: 'bwrap',
            reason: `the sandbox cannot block unix sockets on this machine (${probe.layers.unixSockets.detail}), so a command could reach host services such as docker.sock or the ssh agent.`,
            fix: 'Run `weft doctor` for details. Until it works, commands ask before running.',
          };
        }
        seccomp = program.program;
      }
      return {
        available: true,
        mechanism: 'bwrap',
        launcher: async (argv, opts) => {
          const launch = await bwrapArgs(policy, cwd, opts.env, { chdir: opts.cwd, protectedPaths, ownWorktree });
          return {
            // An agent's command is lowered inside the sandbox: bwrap's --new-session begins its session there.
            argv: trampolineArgv(
              bash,
              bwrap,
              launch.args,
              opts.background === true ? inBackground(argv) : argv,
              seccomp,
            ),
            env: trampolineEnv({ ...opts.env, WEFT_SANDBOX: 'bwrap', ...markers }),
            release: launch.release,
          };
        },
      };
    }
    case 'darwin':
      if (!sandboxExecPresent()) {
        return {
          available: false,
          mechanism: 'seatbelt',
          reason: `${SANDBOX_EXEC} is missing, so Weft cannot sandbox commands.`,
          fix: 'sandbox-exec ships with macOS; check the system installation (`ls -l /usr/bin/sandbox-exec`).',
        };
      }
      return {
        available: true,
        mechanism: 'seatbelt',
        launcher: async (argv, opts) => ({
          argv: seatbeltArgv(
            policy,
            cwd,
            opts.env,
            argv,
            protectedPaths,
            await worktreeCommitRoots(policy, cwd, ownWorktree),
          ),
          env: { ...opts.env, WEFT_SANDBOX: 'seatbelt', ...markers },
        }),
      };
    default:
      return {
        available: false,
        mechanism: 'none',
        reason: `Weft has no command sandbox for ${platform} yet.`,
        fix: 'Commands will ask for approval before running. To run them without asking, choose `sandbox_mode = "danger-full-access"` (only in a disposable environment).',
      };
  }
}

/** Whether macOS's sandbox-exec is there; looked up once per process. */
let sandboxExec: boolean | undefined;

function sandboxExecPresent(): boolean {
  // eslint-disable-next-line weft/no-sync-fs -- one stat of a system file, once per process (memoized)
  sandboxExec ??= existsSync(SANDBOX_EXEC);
  return sandboxExec;
}
