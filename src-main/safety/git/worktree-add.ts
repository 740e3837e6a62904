// The one way Weft makes a git worktree (a fork with files, a worktree thread): a new branch at a commit,
// checked out in a new folder, with no hook run (`post-checkout` included: see run.ts).
//
// One repository's worktrees are made one after the other: `git worktree add` reads every registered
// worktree's admin folder, and one being written by another `git worktree add` at that moment makes it
// fail ("failed to read .git/worktrees/<name>/commondir"), which "try N ways" (N threads started at once)
// hit often.
import { git } from './run';

/** The `git worktree add` in progress (or last done) per repository, by its common git folder. */
const adding = new Map<string, Promise<unknown>>();

/**
 * `git worktree add` of the new branch `branch` at `commit` (a full object id: nothing is parsed as an
 * option) in `dest`, which must not exist yet. `repo` is any folder of the repository.
 */
export async function addWorktree(
  repo: string,
  input: { dest: string; branch: string; commit: string },
): Promise<void> {
  const common = (await git(repo, ['rev-parse', '--path-format=absolute', '--git-common-dir'])).stdout.trim();
  const before = adding.get(common) ?? Promise.resolve();
  const mine = before
    .catch(() => undefined)
    .then(() => git(repo, ['worktree', 'add', '--quiet', '-b', input.branch, '--', input.dest, input.commit]));
  adding.set(common, mine);
  try {
    await mine;
  } finally {
    if (adding.get(common) === mine) adding.delete(common);
  }
}

/** git's own message of a failed command (its stderr), else the error's message. */
export function gitMessage(error: unknown): string {
  if (error instanceof Error && 'stderr' in error && typeof error.stderr === 'string' && error.stderr.trim() !== '')
    return error.stderr.trim();
  return error instanceof Error ? error.message : String(error);
}
