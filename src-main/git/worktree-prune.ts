// Which worktrees `weft worktrees prune` removes, and removing one. A worktree goes when every thread
// working in it is archived, its branch is merged into its base or has no commits of its own, and its
// threads have been idle for the days configured; one holding work found nowhere else (see
// worktree-status.ts) goes only when the user names it with `--yes`. Only a git worktree inside Weft's
// worktrees folder is ever removed, with its branch when no commit of it would be lost.
import { git } from '../safety/git/run';
import { gitMessage } from '../safety/git/worktree-add';
import { isInside, type RecordedWorktree, type WorktreeState } from './worktree-status';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Files named in a warning; the count is always whole. */
const NAMED_FILES = 5;

export interface WorktreeThreadRef {
  id: string;
  title: string;
  archived: boolean;
  /** Unix seconds of its last activity. */
  updatedAt: number;
}

export interface InspectedWorktree {
  recorded: RecordedWorktree;
  /** The threads working in it (none: a folder no saved thread names). */
  threads: WorktreeThreadRef[];
  state: WorktreeState;
}

export type PruneVerdict =
  | { kind: 'remove' }
  /** It may go only when named with `--yes`; `reason` says what would be lost. */
  | { kind: 'needsYes'; reason: string }
  | { kind: 'keep'; reason: string };

/** What the branch holds against its base, for people: "merged", "empty", or its commits. */
export function branchSummary(w: InspectedWorktree): string {
  const { commits, merged } = w.state;
  if (commits === null) return 'base unknown';
  if (commits === 0) return 'empty (no commits)';
  return merged
    ? `merged into ${w.recorded.baseRef}`
    : `${commits} commit${commits === 1 ? '' : 's'} not in ${w.recorded.baseRef}`;
}

/** Work found nowhere else, counted for people ("2 commits and 3 files"), or null when there is none. */
export function uniqueWork(state: WorktreeState): string | null {
  const parts: string[] = [];
  if (state.uniqueCommits > 0)
    parts.push(`${state.uniqueCommits} commit${state.uniqueCommits === 1 ? '' : 's'} no other branch has`);
  const files = state.uniqueFiles.length;
  if (files > 0) {
    const named = state.uniqueFiles.slice(0, NAMED_FILES).join(', ');
    const more = files > NAMED_FILES ? `, and ${files - NAMED_FILES} more` : '';
    parts.push(`${files} uncommitted file${files === 1 ? '' : 's'} (${named}${more})`);
  }
  return parts.length === 0 ? null : parts.join(' and ');
}

export function pruneVerdict(w: InspectedWorktree, options: { nowMs: number; days: number }): PruneVerdict {
  const { state, threads } = w;
  if (!state.present) return { kind: 'keep', reason: 'its folder is gone' };
  if (state.problem !== null) return { kind: 'keep', reason: state.problem };
  const work = uniqueWork(state);
  if (threads.length === 0)
    return {
      kind: 'needsYes',
      reason: `no saved thread works in it${work === null ? '' : `, and it holds work found nowhere else: ${work}`}`,
    };
  const live = threads.filter((t) => !t.archived);
  if (live.length > 0) return { kind: 'keep', reason: `its thread${live.length === 1 ? ' is' : 's are'} not archived` };
  if (state.commits === null || (state.commits > 0 && !state.merged))
    return { kind: 'keep', reason: `its branch is not merged (${branchSummary(w)})` };
  const idleMs = options.nowMs - Math.max(...threads.map((t) => t.updatedAt * 1000));
  if (idleMs < options.days * DAY_MS)
    return {
      kind: 'keep',
      reason: `its threads were active ${Math.floor(idleMs / DAY_MS)} day(s) ago; it goes after ${options.days}`,
    };
  if (work !== null) return { kind: 'needsYes', reason: `it holds work found nowhere else: ${work}` };
  return { kind: 'remove' };
}

export interface Removal {
  /** The branch deleted with it (null: kept, because a commit of it is nowhere else, or not Weft's to delete). */
  deletedBranch: string | null;
}

/**
 * Removes the worktree's folder and registration (`git worktree remove --force`: what it holds goes),
 * then its branch when it is still the one checked out there and every commit of it is on another
 * branch. Refuses anything outside `worktreesDir`.
 */
export async function removeWorktree(w: InspectedWorktree, worktreesDir: string): Promise<Removal> {
  const { path } = w.recorded;
  const repo = w.state.commonDir;
  if (!isInside(worktreesDir, path) || repo === null)
    throw new Error(`${path} is not a worktree Weft made under ${worktreesDir}; it is left alone`);
  try {
    await git(repo, ['worktree', 'remove', '--force', '--', path]);
  } catch (error) {
    throw new Error(`could not remove ${path}: ${gitMessage(error)}`, { cause: error });
  }
  const branch = w.state.checkedOut;
  if (branch === null || branch !== w.recorded.branch || w.state.uniqueCommits > 0) return { deletedBranch: null };
  try {
    await git(repo, ['branch', '-D', '--', branch]);
    return { deletedBranch: branch };
  } catch {
    return { deletedBranch: null };
  }
}
