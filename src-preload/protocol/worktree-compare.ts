// Comparing worktree threads side by side (Weft): the threads of a "try N ways" group, each in its own
// worktree, with what each changed, the tests each ran and how each ended (`weft/worktree/compare`).
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { CommandExecutionStatus } from './items';
import { TurnStatus } from './thread';

/** The threads to compare (any worktree threads; a group's are those with the same `Thread.weftGroupId`). */
export const WeftWorktreeCompareParams = lazySchema(() =>
  z.object({ threadIds: z.array(z.string().min(1)).min(1).max(16) }),
);
export type WeftWorktreeCompareParams = z.infer<typeof WeftWorktreeCompareParams>;

/** One file a thread changed since its worktree's base commit: lines added and removed (null: binary). */
export const WeftWorktreeFileStat = lazySchema(() =>
  z.object({
    path: z.string(),
    insertions: z.number().int().nonnegative().nullable(),
    deletions: z.number().int().nonnegative().nullable(),
  }),
);
export type WeftWorktreeFileStat = z.infer<typeof WeftWorktreeFileStat>;

/** A command the thread ran that looks like a test run (`npm test`, `pytest`, `cargo test`…), and how it ended. */
export const WeftWorktreeTestRun = lazySchema(() =>
  z.object({
    command: z.string(),
    status: CommandExecutionStatus,
    exitCode: z.number().int().nullable(),
  }),
);
export type WeftWorktreeTestRun = z.infer<typeof WeftWorktreeTestRun>;

/**
 * One thread as it stands: its branch and worktree (null when it works in the project's own folder), the
 * status of its last turn (null before its first), what it changed since its worktree's base commit
 * (committed or not, untracked files included; each file and the totals), the tests it ran in order, and
 * its last agent message. `problem` says why the changes could not be read (the worktree is gone…).
 */
export const WeftWorktreeCompareEntry = lazySchema(() =>
  z.object({
    threadId: z.string(),
    branch: z.string().nullable(),
    worktree: z.string().nullable(),
    turnStatus: TurnStatus.nullable(),
    files: z.array(WeftWorktreeFileStat),
    insertions: z.number().int().nonnegative(),
    deletions: z.number().int().nonnegative(),
    tests: z.array(WeftWorktreeTestRun),
    finalMessage: z.string().nullable(),
    problem: z.string().nullable(),
  }),
);
export type WeftWorktreeCompareEntry = z.infer<typeof WeftWorktreeCompareEntry>;

export const WeftWorktreeCompareResult = lazySchema(() => z.object({ threads: z.array(WeftWorktreeCompareEntry) }));
export type WeftWorktreeCompareResult = z.infer<typeof WeftWorktreeCompareResult>;
