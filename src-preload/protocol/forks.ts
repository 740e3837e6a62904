// Forks with files (Weft): where each fork of `thread/fork {weftWorktree: true}` lives, how its files
// compare with its parent's, and removing its folder.
import { z } from 'zod';

/** A fork with its own copy of the project: a git worktree on `branch`, or a plain copy. */
export const WeftFork = z.object({
  threadId: z.string(),
  parentThreadId: z.string(),
  /** The project the fork came from; the fork's cwd and folder. */
  project: z.string(),
  cwd: z.string(),
  folder: z.string(),
  kind: z.enum(['worktree', 'copy']),
  branch: z.string().nullable(),
  createdAt: z.string(),
  /** The folder was removed ("Remove worktree"); the thread stays. */
  removed: z.boolean(),
});
export type WeftFork = z.infer<typeof WeftFork>;

/** The forks with files made from threads of project `cwd` (forks of forks included). */
export const WeftForksListParams = z.object({ cwd: z.string().min(1) });
export type WeftForksListParams = z.infer<typeof WeftForksListParams>;
export const WeftForksListResult = z.object({ data: z.array(WeftFork) });
export type WeftForksListResult = z.infer<typeof WeftForksListResult>;

/** The files that differ between a fork and its parent's project, each side's text as it is now. */
export const WeftForksCompareParams = z.object({ threadId: z.string().min(1) });
export type WeftForksCompareParams = z.infer<typeof WeftForksCompareParams>;
export const WeftForkCompareFile = z.object({
  path: z.string(),
  /** Which branch changed the file since the fork. */
  changedIn: z.enum(['fork', 'parent', 'both']),
  /** Text in the parent's project and in the fork; null when absent, binary or too large to show. */
  parent: z.string().nullable(),
  fork: z.string().nullable(),
  binary: z.boolean(),
});
export type WeftForkCompareFile = z.infer<typeof WeftForkCompareFile>;
export const WeftForksCompareResult = z.object({
  parentCwd: z.string(),
  cwd: z.string(),
  files: z.array(WeftForkCompareFile),
});
export type WeftForksCompareResult = z.infer<typeof WeftForksCompareResult>;

/**
 * Removes a fork's folder (a worktree: `git worktree remove`; its branch is kept). Work there that is
 * nowhere else (uncommitted changes in a worktree, changed files in a copy) is listed in `uncommitted`
 * and stops the removal unless `force`. `dryRun` only lists.
 */
export const WeftForksRemoveParams = z.object({
  threadId: z.string().min(1),
  force: z.boolean().nullish(),
  dryRun: z.boolean().nullish(),
});
export type WeftForksRemoveParams = z.infer<typeof WeftForksRemoveParams>;
export const WeftForksRemoveResult = z.object({
  removed: z.boolean(),
  uncommitted: z.array(z.string()),
  fork: WeftFork,
});
export type WeftForksRemoveResult = z.infer<typeof WeftForksRemoveResult>;
