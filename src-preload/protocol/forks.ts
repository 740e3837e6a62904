// Forks with files (Weft): where each fork of `thread/fork {weftWorktree: true}` lives, how its files
// compare with its parent's, and removing its folder.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { FileUpdateChange } from './items';
import { WeftHunkDecision } from './server-requests';
import { WeftEnvironmentName } from './weft-environments';

/** A fork with its own copy of the project: a git worktree on `branch`, or a plain copy. */
export const WeftFork = lazySchema(() =>
  z.object({
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
  }),
);
export type WeftFork = z.infer<typeof WeftFork>;

/** The forks with files made from threads of project `cwd` (forks of forks included). */
export const WeftForksListParams = lazySchema(() =>
  z.object({
    cwd: z.string().min(1),
    /** Weft: the project is on this environment (see `WeftEnvironmentName`). */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type WeftForksListParams = z.infer<typeof WeftForksListParams>;
export const WeftForksListResult = lazySchema(() => z.object({ data: z.array(WeftFork) }));
export type WeftForksListResult = z.infer<typeof WeftForksListResult>;

/** The files that differ between a fork and its parent's project, each side's text as it is now. */
export const WeftForksCompareParams = lazySchema(() => z.object({ threadId: z.string().min(1) }));
export type WeftForksCompareParams = z.infer<typeof WeftForksCompareParams>;
export const WeftForkCompareFile = lazySchema(() =>
  z.object({
    path: z.string(),
    /** Which branch changed the file since the fork. */
    changedIn: z.enum(['fork', 'parent', 'both']),
    /** Text in the parent's project and in the fork; null when absent, binary or too large to show. */
    parent: z.string().nullable(),
    fork: z.string().nullable(),
    binary: z.boolean(),
  }),
);
export type WeftForkCompareFile = z.infer<typeof WeftForkCompareFile>;
export const WeftForksCompareResult = lazySchema(() =>
  z.object({
    parentCwd: z.string(),
    cwd: z.string(),
    files: z.array(WeftForkCompareFile),
  }),
);
export type WeftForksCompareResult = z.infer<typeof WeftForksCompareResult>;

/**
 * Removes a fork's folder (a worktree: `git worktree remove`; its branch is kept). Work there that is
 * nowhere else (uncommitted changes in a worktree, files changed since the base in a copy, either one
 * only when the parent's folder does not hold that file as it is) is listed in `uncommitted` and stops the
 * removal unless `force`. `dryRun` only lists.
 */
export const WeftForksRemoveParams = lazySchema(() =>
  z.object({
    threadId: z.string().min(1),
    force: z.boolean().nullish(),
    dryRun: z.boolean().nullish(),
  }),
);
export type WeftForksRemoveParams = z.infer<typeof WeftForksRemoveParams>;
export const WeftForksRemoveResult = lazySchema(() =>
  z.object({
    removed: z.boolean(),
    uncommitted: z.array(z.string()),
    fork: WeftFork,
  }),
);
export type WeftForksRemoveResult = z.infer<typeof WeftForksRemoveResult>;

/**
 * "Bring changes back": the fork's changes since it was made (its files now against the state it started
 * from), as a patch on its parent's project. With `dryRun` nothing is written: `changes` is the patch as the
 * review dialog shows it (one entry per file, a unified diff against the parent's file as it is now) and
 * `fingerprint` names it. To apply, send the reviewed `fingerprint` back with the hunks the person declined
 * (`weftHunks`, as in a patch approval): when the patch is no longer the one reviewed (either side changed
 * since), nothing is written and the request fails. Changes a patch cannot carry (binary files, symlinks,
 * files too large to keep, a file added in the fork where the parent has its own, a file deleted in the
 * fork that the parent changed) are listed in `skipped` and never written.
 */
export const WeftForksBringBackParams = lazySchema(() =>
  z.object({
    threadId: z.string().min(1),
    dryRun: z.boolean().nullish(),
    fingerprint: z.string().nullish(),
    weftHunks: z.array(WeftHunkDecision).nullish(),
  }),
);
export type WeftForksBringBackParams = z.infer<typeof WeftForksBringBackParams>;
export const WeftForkSkippedChange = lazySchema(() => z.object({ path: z.string(), reason: z.string() }));
export type WeftForkSkippedChange = z.infer<typeof WeftForkSkippedChange>;
export const WeftForksBringBackResult = lazySchema(() =>
  z.object({
    parentThreadId: z.string(),
    parentCwd: z.string(),
    changes: z.array(FileUpdateChange),
    skipped: z.array(WeftForkSkippedChange),
    fingerprint: z.string(),
    /** The files written (absolute); empty for a dry run or when every hunk was declined. */
    applied: z.array(z.string()),
  }),
);
export type WeftForksBringBackResult = z.infer<typeof WeftForksBringBackResult>;
