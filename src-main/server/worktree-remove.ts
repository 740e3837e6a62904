// Removing a worktree thread's worktree: for the review inbox's Discard (`weft/automations/inbox/discard`
// here, `weft/worktree/remove` on the environment of a remote run). Only the worktree the thread was
// started in (its session_meta) is removed, with `git worktree remove --force`: the branch stays, so
// what was committed there is not lost.
import { access } from 'node:fs/promises';
import { git } from '../safety/git/run';
import type { HandlerContext } from './handlers/context';
import { storeCall } from './handlers/store-call';
import { invalidRequest } from './rpc-error';

/**
 * Removes `path` when it is the worktree thread `threadId` was started in; false when it is gone already.
 * Refused (-32600) while a turn runs in the thread, and for a folder that is not its worktree.
 */
export async function removeThreadWorktree(ctx: HandlerContext, threadId: string, path: string): Promise<boolean> {
  if (ctx.manager.get(threadId)?.session.activeTurnId)
    throw invalidRequest(`a turn is running in thread ${threadId}; interrupt it before removing its worktree`);
  const recorded = storeCall(() => ctx.store.worktreeOf(threadId));
  if (recorded === null || recorded.path !== path)
    throw invalidRequest(`${path} is not the worktree thread ${threadId} was started in; it is left as it is`);
  const there = await access(path).then(
    () => true,
    () => false,
  );
  if (!there) return false;
  try {
    await git(recorded.project_root, ['worktree', 'remove', '--force', path]);
  } catch (error) {
    const detail = error instanceof Error && 'stderr' in error ? String(error.stderr).trim() : String(error);
    throw invalidRequest(`could not remove the worktree ${path}: ${detail}`);
  }
  return true;
}
