// The one way Weft makes a git worktree (a fork with files, a worktree thread): a new branch at a commit,
// checked out in a new folder, with no hook run (`post-checkout` included: see run.ts).
import { git } from './run';

/**
 * `git worktree add` of the new branch `branch` at `commit` (a full object id: nothing is parsed as an
 * option) in `dest`, which must not exist yet. `repo` is any folder of the repository.
 */
export async function addWorktree(
  repo: string,
  input: { dest: string; branch: string; commit: string },
): Promise<void> {
  await git(repo, ['worktree', 'add', '--quiet', '-b', input.branch, '--', input.dest, input.commit]);
}

/** git's own message of a failed command (its stderr), else the error's message. */
export function gitMessage(error: unknown): string {
  if (error instanceof Error && 'stderr' in error && typeof error.stderr === 'string' && error.stderr.trim() !== '')
    return error.stderr.trim();
  return error instanceof Error ? error.message : String(error);
}
