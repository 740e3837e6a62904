// What a review looks at: the diff of its target, computed here and sent to the reviewer in the
// request itself (one round trip; the reviewer never has to ask for `git diff`).
import type { ReviewTarget } from '../../src-preload/protocol';
import { git } from '../safety/git/run';
import { readWorkspaceEntry } from '../util/workspace-file';
import { gitStatus } from './status';

/** Past this, the diff is cut (the reviewer is told) so the request stays within a model's context. */
export const MAX_REVIEW_DIFF_BYTES = 400_000;

export interface ReviewMaterial {
  /** What is reviewed, for people ("the uncommitted changes", "commit abc1234: Fix…"). */
  description: string;
  /** The diff (possibly cut), or '' for custom instructions without a repository. */
  diff: string;
  truncated: boolean;
  /** The repository root, or null outside one. */
  root: string | null;
  /** Custom instructions (custom target only). */
  instructions: string | null;
}

const DIFF_FLAGS = ['--no-color', '--no-ext-diff', '-U5'];

/** An untracked file's diff is git reading it: bounded in case it was swapped for a FIFO meanwhile. */
const UNTRACKED_DIFF_TIMEOUT_MS = 30_000;

/**
 * git's diffs of the untracked files that are regular files or symlinks (shown as their target), inside
 * the repository; anything else (a FIFO, a path through a symlinked folder) is left out.
 */
async function untrackedDiff(root: string, paths: readonly string[]): Promise<string> {
  const parts: string[] = [];
  for (const path of paths) {
    // A cap of 0 bytes: only what kind of entry it is matters here, git reads the file.
    const entry = await readWorkspaceEntry(root, path, 0).catch(() => null);
    if (entry === null || (entry.kind !== 'symlink' && entry.kind !== 'tooLarge' && entry.kind !== 'file')) continue;
    parts.push(
      (
        await git(root, ['diff', '--no-index', ...DIFF_FLAGS, '--', '/dev/null', path], {
          okExitCodes: [1],
          timeoutMs: UNTRACKED_DIFF_TIMEOUT_MS,
        })
      ).stdout,
    );
  }
  return parts.join('');
}

function cut(diff: string): { diff: string; truncated: boolean } {
  return diff.length > MAX_REVIEW_DIFF_BYTES
    ? { diff: diff.slice(0, MAX_REVIEW_DIFF_BYTES), truncated: true }
    : { diff, truncated: false };
}

export class ReviewTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReviewTargetError';
  }
}

export async function reviewMaterial(cwd: string, target: ReviewTarget): Promise<ReviewMaterial> {
  const status = await gitStatus(cwd);
  const root = status.root;
  if (target.type === 'custom') {
    return {
      description: target.instructions.split('\n')[0]?.slice(0, 120) ?? 'custom review',
      diff: '',
      truncated: false,
      root,
      instructions: target.instructions,
    };
  }
  if (root === null)
    throw new ReviewTargetError(
      `${cwd} is not in a git repository, so there is no ${target.type === 'commit' ? 'commit' : 'diff'} to review (${status.reason ?? 'git is off'})`,
    );
  switch (target.type) {
    case 'uncommittedChanges': {
      const tracked =
        status.headSha === null
          ? (await git(root, ['diff', '--cached', ...DIFF_FLAGS])).stdout +
            (await git(root, ['diff', ...DIFF_FLAGS])).stdout
          : (await git(root, ['diff', 'HEAD', ...DIFF_FLAGS])).stdout;
      const untracked = await untrackedDiff(
        root,
        status.files.filter((f) => f.untracked).map((f) => f.path),
      );
      const all = tracked + untracked;
      if (all.trim() === '') throw new ReviewTargetError('there are no uncommitted changes to review');
      return { description: 'the uncommitted changes', ...cut(all), root, instructions: null };
    }
    case 'baseBranch': {
      const base = (await git(root, ['merge-base', 'HEAD', target.branch])).stdout.trim();
      const diff = (await git(root, ['diff', base, ...DIFF_FLAGS])).stdout;
      if (diff.trim() === '') throw new ReviewTargetError(`there are no changes against ${target.branch}`);
      return {
        description: `the changes against ${target.branch} (merge base ${base.slice(0, 12)})`,
        ...cut(diff),
        root,
        instructions: null,
      };
    }
    case 'commit': {
      const shown = (
        await git(root, ['show', '--format=commit %H%nAuthor: %an <%ae>%n%n%B', ...DIFF_FLAGS, target.sha])
      ).stdout;
      const title = target.title ?? (await git(root, ['log', '-1', '--format=%s', target.sha])).stdout.trim();
      return {
        description: `commit ${target.sha.slice(0, 12)}${title ? `: ${title}` : ''}`,
        ...cut(shown),
        root,
        instructions: null,
      };
    }
  }
}
