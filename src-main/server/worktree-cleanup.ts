// The worktrees of worktree threads, gathered and pruned: for `weft worktrees list|prune` and for the app
// host, which prunes at each start what may go without asking (see git/worktree-prune.ts for the rules).
import { resolve } from 'node:path';
import { threadTitle } from '../../src-preload/protocol';
import type { ForkRecords } from '../checkpoints/fork-records';
import {
  pruneVerdict,
  removeWorktree,
  uniqueWork,
  type InspectedWorktree,
  type PruneVerdict,
  type WorktreeThreadRef,
} from '../git/worktree-prune';
import { worktreeFolders, worktreeState, type RecordedWorktree } from '../git/worktree-status';
import type { ThreadStore } from '../store/thread-store';
import { errorMessage } from '../util/errors';

/** `[worktree] prune_after_days` when the config says nothing. */
export const DEFAULT_PRUNE_AFTER_DAYS = 7;

/**
 * Every worktree Weft made, sorted by folder: those the saved threads name (their threads grouped), then
 * the folders under `<worktreesDir>/<project>-<hash>/` that are git worktrees no saved thread names.
 */
export async function inspectWorktrees(store: ThreadStore, worktreesDir: string): Promise<InspectedWorktree[]> {
  const byPath = new Map<string, { recorded: RecordedWorktree; threads: WorktreeThreadRef[] }>();
  for (const { thread, archived, worktree } of store.worktreeThreads()) {
    const path = resolve(worktree.path);
    const entry = byPath.get(path) ?? {
      recorded: {
        path,
        branch: worktree.branch,
        baseRef: worktree.base_ref,
        baseCommit: worktree.base_commit,
        projectRoot: worktree.project_root,
      },
      threads: [],
    };
    entry.threads.push({ id: thread.id, title: threadTitle(thread), archived, updatedAt: thread.updatedAt });
    byPath.set(path, entry);
  }
  for (const folder of await worktreeFolders(worktreesDir)) {
    if (!byPath.has(folder))
      byPath.set(folder, {
        recorded: { path: folder, branch: '', baseRef: '', baseCommit: null, projectRoot: null },
        threads: [],
      });
  }
  const worktrees: InspectedWorktree[] = [];
  for (const { recorded, threads } of byPath.values()) {
    const state = await worktreeState(recorded);
    // A folder no thread names: its branch is whatever is checked out there.
    const branch = recorded.branch === '' ? (state.checkedOut ?? '(detached)') : recorded.branch;
    worktrees.push({ recorded: { ...recorded, branch }, threads, state });
  }
  return worktrees.sort((a, b) => (a.recorded.path < b.recorded.path ? -1 : 1));
}

export interface PruneOutcome {
  worktree: InspectedWorktree;
  verdict: PruneVerdict;
  /** `--yes` named it. */
  named: boolean;
  /** What went: null when it stayed (or with `dryRun`, would go: see `wouldGo`). */
  removed: { deletedBranch: string | null } | null;
  wouldGo: boolean;
  /** The work found nowhere else it held, for people (null: none). */
  lost: string | null;
  /** Why removing it failed. */
  error: string | null;
}

export interface PruneOptions {
  worktreesDir: string;
  days: number;
  nowMs: number;
  /** Worktrees the user named (`--yes`): these go even with work found nowhere else. */
  named?: ReadonlySet<InspectedWorktree>;
  dryRun?: boolean;
  /** Fork records: a fork's worktree removed here is marked removed in its record. */
  forks?: ForkRecords;
}

export async function pruneWorktrees(
  worktrees: readonly InspectedWorktree[],
  options: PruneOptions,
): Promise<PruneOutcome[]> {
  const out: PruneOutcome[] = [];
  for (const worktree of worktrees) {
    const verdict = pruneVerdict(worktree, options);
    const named = options.named?.has(worktree) === true;
    const go = verdict.kind === 'remove' || (verdict.kind === 'needsYes' && named);
    const outcome: PruneOutcome = {
      worktree,
      verdict,
      named,
      removed: null,
      wouldGo: go,
      lost: uniqueWork(worktree.state),
      error: null,
    };
    out.push(outcome);
    if (!go || options.dryRun === true) continue;
    try {
      outcome.removed = await removeWorktree(worktree, options.worktreesDir);
      if (options.forks !== undefined) await forkFolderRemoved(options.forks, worktree.recorded.path);
    } catch (error) {
      outcome.error = errorMessage(error);
    }
  }
  return out;
}

/** A fork's worktree removed here is marked removed in its fork record (the sidebar stops offering it). */
async function forkFolderRemoved(forks: ForkRecords, folder: string): Promise<void> {
  for (const record of await forks.list())
    if (resolve(record.folder) === folder && record.removedAt === null)
      await forks.save({ ...record, removedAt: new Date().toISOString() });
}

/**
 * What the app host does once per start: removes the worktrees that may go without asking, and says in
 * the log what it removed (nothing is removed that `weft worktrees prune` would keep without `--yes`).
 */
export async function pruneOnStart(input: {
  store: ThreadStore;
  worktreesDir: string;
  days: number;
  forks?: ForkRecords;
  log: (line: string) => void;
}): Promise<PruneOutcome[]> {
  await input.store.whenIndexed();
  const worktrees = await inspectWorktrees(input.store, input.worktreesDir);
  const outcomes = await pruneWorktrees(worktrees, {
    worktreesDir: input.worktreesDir,
    days: input.days,
    nowMs: Date.now(),
    forks: input.forks,
  });
  for (const o of outcomes) {
    const path = o.worktree.recorded.path;
    if (o.removed !== null)
      input.log(
        `weft app-server: removed the worktree ${path} (threads archived, branch ${o.removed.deletedBranch === null ? `${o.worktree.recorded.branch} kept` : `${o.removed.deletedBranch} deleted`})`,
      );
    if (o.error !== null) input.log(`weft app-server: warning: ${o.error}`);
  }
  return outcomes;
}
