import type { SandboxPolicy } from '../../src-preload/protocol';
import { RuleStore } from '../safety/approvals/rules';
import { SessionApprovals } from '../safety/approvals/session-memory';
import { createSandboxLauncher, type SandboxLauncherResult } from '../safety/sandbox/launcher';
import type { OwnWorktree } from '../safety/sandbox/worktree-git';

/**
 * What the approval flow of one thread needs: the remembered rules (shared by every thread of the
 * process), the thread's "accept for session" memory, and the OS sandbox for each policy and cwd.
 */
export class SafetyServices {
  readonly sessionApprovals = new SessionApprovals();
  private readonly launchers = new Map<string, Promise<SandboxLauncherResult>>();

  /**
   * `protectedPaths`: more paths the sandbox and patches keep read-only when they exist inside a writable
   * root: the `.weft` folders of the project config files the user trusted (see `writableRootsFor`).
   */
  constructor(
    readonly rules: RuleStore,
    private readonly platform: NodeJS.Platform = process.platform,
    readonly protectedPaths: readonly string[] = [],
    /** The thread's own git worktree: its commands may commit on its branch (see worktree-git.ts). */
    private readonly ownWorktree: OwnWorktree | null = null,
  ) {}

  /** The sandbox launcher for commands under `policy` in `cwd` (probed once, then cached). */
  sandboxFor(
    policy: SandboxPolicy,
    cwd: string,
    env: Record<string, string | undefined>,
  ): Promise<SandboxLauncherResult> {
    const key = `${JSON.stringify(policy)}\0${cwd}`;
    let launcher = this.launchers.get(key);
    if (!launcher) {
      launcher = createSandboxLauncher(policy, cwd, env, this.platform, this.protectedPaths, this.ownWorktree);
      this.launchers.set(key, launcher);
    }
    return launcher;
  }
}

/** Loads the rules of a Weft home once per process. */
const stores = new Map<string, Promise<RuleStore>>();
export function sharedRuleStore(
  rulesDir: string,
  onWarning: (w: string) => void = () => undefined,
): Promise<RuleStore> {
  let store = stores.get(rulesDir);
  if (!store) {
    const s = new RuleStore(rulesDir);
    store = s.load().then((warnings) => {
      for (const w of warnings) onWarning(w);
      return s;
    });
    stores.set(rulesDir, store);
  }
  return store;
}
