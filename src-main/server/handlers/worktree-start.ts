// The worktree side of `thread/start {weftWorktree: true}`: the project's config (its worktrees folder
// and its setup script) and the worktree made for the new thread, which the thread's start takes back if
// it fails.
import type { ThreadStartParams, WeftWorktree } from '../../../src-preload/protocol';
import { checkpointSettings } from '../../checkpoints/settings';
import { createWorktree, discardWorktree, WorktreeError } from '../../git/worktree-create';
import type { RolloutWeftWorktree } from '../../../src-preload/protocol';
import { invalidParams } from '../rpc-error';
import { threadConfig } from '../thread-factory';
import type { HandlerContext } from './context';

export interface StartedWorktree {
  /** The thread's cwd inside the worktree. */
  cwd: string;
  /** What the thread's session_meta keeps. */
  saved: RolloutWeftWorktree;
  /** What the protocol's `Thread` carries. */
  worktree: WeftWorktree;
  /** The project's setup script (`[worktree] setup`, trusted project config or the user's), if any. */
  setup: string | null;
  /** Takes the worktree and its branch back (the thread could not be started). */
  discard(): Promise<void>;
}

export async function startWorktree(
  ctx: HandlerContext,
  params: ThreadStartParams,
  projectCwd: string,
): Promise<StartedWorktree> {
  if (params.ephemeral === true)
    throw invalidParams(
      'weftWorktree: an ephemeral thread is not saved, so its worktree could not be found again; start it without ephemeral',
    );
  const { environment } = ctx;
  const { loaded } = await threadConfig(environment, params, projectCwd);
  const worktreesDir =
    environment.checkpoints?.worktreesDir ?? checkpointSettings(loaded.config, environment.weftHome).worktreesDir;
  let created: Awaited<ReturnType<typeof createWorktree>>;
  try {
    created = await createWorktree({
      cwd: projectCwd,
      worktreesDir,
      baseRef: params.weftBaseRef,
      branch: params.weftBranch,
      carryChanges: params.weftWorktreeCarryChanges,
    });
  } catch (error) {
    if (error instanceof WorktreeError) throw invalidParams(error.message);
    throw error;
  }
  const { saved } = created;
  if (created.carriedFiles !== null)
    environment.log(
      `weft app-server: carried ${created.carriedFiles} changed file(s) of ${projectCwd} into ${saved.path}`,
    );
  return {
    cwd: created.cwd,
    saved,
    worktree: { path: saved.path, branch: saved.branch, baseRef: saved.base_ref, projectRoot: saved.project_root },
    setup: loaded.config.worktree?.setup ?? null,
    discard: () => discardWorktree(projectCwd, saved.path, saved.branch),
  };
}
