// Params of the server → client notifications.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { ThreadTokenUsage } from './common';
import { ThreadItem, WeftDiffCut } from './items';
import { RequestId } from './jsonrpc';
import { Thread, ThreadReadState, ThreadStatus, Turn, TurnError } from './thread';
import { WeftTokenCost } from './weft-cost';

/** A thread was created, forked, or loaded; the connection now receives its notifications. */
export const ThreadStartedNotification = lazySchema(() => z.object({ thread: Thread }));
export type ThreadStartedNotification = z.infer<typeof ThreadStartedNotification>;

export const ThreadStatusChangedNotification = lazySchema(() =>
  z.object({ threadId: z.string(), status: ThreadStatus }),
);
export type ThreadStatusChangedNotification = z.infer<typeof ThreadStatusChangedNotification>;

/** A thread's read state changed (a turn ended, someone marked it read or unread); sent to every client. */
export const ThreadReadStateChangedNotification = lazySchema(() =>
  z.object({ threadId: z.string(), readState: ThreadReadState }),
);
export type ThreadReadStateChangedNotification = z.infer<typeof ThreadReadStateChangedNotification>;

export const ThreadArchivedNotification = lazySchema(() => z.object({ threadId: z.string() }));
export type ThreadArchivedNotification = z.infer<typeof ThreadArchivedNotification>;

export const ThreadUnarchivedNotification = lazySchema(() => z.object({ threadId: z.string() }));
export type ThreadUnarchivedNotification = z.infer<typeof ThreadUnarchivedNotification>;

/** `name` null when the name was cleared. */
export const ThreadNameUpdatedNotification = lazySchema(() =>
  z.object({ threadId: z.string(), name: z.string().nullable() }),
);
export type ThreadNameUpdatedNotification = z.infer<typeof ThreadNameUpdatedNotification>;

/** The thread went back to before a turn (`thread/revert`); read it again for its turns. */

/** The thread was unloaded from memory (no subscriber left, idle); it stays on disk. */
export const ThreadClosedNotification = lazySchema(() => z.object({ threadId: z.string() }));
export type ThreadClosedNotification = z.infer<typeof ThreadClosedNotification>;

/**
 * Weft: the thread index, made anew (a first start, or its file deleted), now lists every thread: a
 * `thread/list` answered with `weftIndexing: true` is worth asking again.
 */
export const WeftThreadsIndexedNotification = lazySchema(() => z.object({}));
export type WeftThreadsIndexedNotification = z.infer<typeof WeftThreadsIndexedNotification>;

export const ThreadTokenUsageUpdatedNotification = lazySchema(() =>
  z.object({
    threadId: z.string(),
    turnId: z.string(),
    tokenUsage: ThreadTokenUsage,
    /** Weft: what the turn and the thread cost at the price table (`[model_prices]`); absent from Codex. */
    weftCost: WeftTokenCost.optional(),
  }),
);
export type ThreadTokenUsageUpdatedNotification = z.infer<typeof ThreadTokenUsageUpdatedNotification>;

export const TurnStartedNotification = lazySchema(() => z.object({ threadId: z.string(), turn: Turn }));
export type TurnStartedNotification = z.infer<typeof TurnStartedNotification>;

/** `turn.status` is `completed`, `interrupted` or `failed` (then `turn.error` says why). */
export const TurnCompletedNotification = lazySchema(() => z.object({ threadId: z.string(), turn: Turn }));
export type TurnCompletedNotification = z.infer<typeof TurnCompletedNotification>;

/** `diff`: the unified diff of every file change in the turn so far (a full snapshot, not an increment). */
/** The turn's aggregated diff so far; cut to WEFT_DIFF_MAX_CHARS, when `weftDiffCut` says so. */
export const TurnDiffUpdatedNotification = lazySchema(() =>
  z.object({
    threadId: z.string(),
    turnId: z.string(),
    diff: z.string(),
    weftDiffCut: WeftDiffCut.optional(),
  }),
);
export type TurnDiffUpdatedNotification = z.infer<typeof TurnDiffUpdatedNotification>;

/**
 * Weft: instead of `turn/diff/updated`, to a connection that asked for it (`initialize`'s
 * `weftLazyTurnDiff`): the turn's diff changed, how many files it holds now (and its totals when the text
 * would be cut); `weft/turn/diff` reads the text when it is shown. A page watching many busy threads is
 * then not sent a diff of up to a megabyte for every tool call of every thread.
 */
export const WeftTurnDiffChangedNotification = lazySchema(() =>
  z.object({
    threadId: z.string(),
    turnId: z.string(),
    files: z.number().int().nonnegative(),
    weftDiffCut: WeftDiffCut.optional(),
  }),
);
export type WeftTurnDiffChangedNotification = z.infer<typeof WeftTurnDiffChangedNotification>;

/** Weft: the turn's aggregated diff as it stands (what `turn/diff/updated` last carried, or the saved one). */
export const WeftTurnDiffParams = lazySchema(() => z.object({ threadId: z.string(), turnId: z.string() }));
export type WeftTurnDiffParams = z.infer<typeof WeftTurnDiffParams>;

/** `diff` null: the turn changed no files (or none yet). */
export const WeftTurnDiffResult = lazySchema(() =>
  z.object({ diff: z.string().nullable(), weftDiffCut: WeftDiffCut.optional() }),
);
export type WeftTurnDiffResult = z.infer<typeof WeftTurnDiffResult>;

export const TurnPlanStepStatus = lazySchema(() => z.enum(['pending', 'inProgress', 'completed']));
export type TurnPlanStepStatus = z.infer<typeof TurnPlanStepStatus>;

export const TurnPlanStep = lazySchema(() => z.object({ step: z.string(), status: TurnPlanStepStatus }));
export type TurnPlanStep = z.infer<typeof TurnPlanStep>;

/** The whole current plan (replaces the previous one). `explanation` null when the model gave none. */
export const TurnPlanUpdatedNotification = lazySchema(() =>
  z.object({
    threadId: z.string(),
    turnId: z.string(),
    explanation: z.string().nullish(),
    plan: z.array(TurnPlanStep),
  }),
);
export type TurnPlanUpdatedNotification = z.infer<typeof TurnPlanUpdatedNotification>;

/** `startedAtMs`: when the item started (unix milliseconds). */
export const ItemStartedNotification = lazySchema(() =>
  z.object({
    threadId: z.string(),
    turnId: z.string(),
    item: ThreadItem,
    startedAtMs: z.number().int(),
  }),
);
export type ItemStartedNotification = z.infer<typeof ItemStartedNotification>;

/** The item's final, authoritative state; `completedAtMs`: when it completed (unix milliseconds). */
export const ItemCompletedNotification = lazySchema(() =>
  z.object({
    threadId: z.string(),
    turnId: z.string(),
    item: ThreadItem,
    completedAtMs: z.number().int(),
  }),
);
export type ItemCompletedNotification = z.infer<typeof ItemCompletedNotification>;

const itemDelta = () => ({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  delta: z.string(),
});
const partIndex = lazySchema(() => z.number().int().nonnegative());

/** Deltas of one item concatenate, in order, to the completed item's text. */
export const AgentMessageDeltaNotification = lazySchema(() => z.object(itemDelta()));
export type AgentMessageDeltaNotification = z.infer<typeof AgentMessageDeltaNotification>;

/** Text of summary part `summaryIndex` (the index into the reasoning item's `summary`). */
export const ReasoningSummaryTextDeltaNotification = lazySchema(() =>
  z.object({ ...itemDelta(), summaryIndex: partIndex }),
);
export type ReasoningSummaryTextDeltaNotification = z.infer<typeof ReasoningSummaryTextDeltaNotification>;

/** A new summary part `summaryIndex` begins. */
export const ReasoningSummaryPartAddedNotification = lazySchema(() =>
  z.object({
    threadId: z.string(),
    turnId: z.string(),
    itemId: z.string(),
    summaryIndex: partIndex,
  }),
);
export type ReasoningSummaryPartAddedNotification = z.infer<typeof ReasoningSummaryPartAddedNotification>;

/** Raw reasoning text of content part `contentIndex` (the index into the reasoning item's `content`). */
export const ReasoningTextDeltaNotification = lazySchema(() => z.object({ ...itemDelta(), contentIndex: partIndex }));
export type ReasoningTextDeltaNotification = z.infer<typeof ReasoningTextDeltaNotification>;

/** Command output (stdout and stderr interleaved as produced). */
export const CommandExecutionOutputDeltaNotification = lazySchema(() => z.object(itemDelta()));
export type CommandExecutionOutputDeltaNotification = z.infer<typeof CommandExecutionOutputDeltaNotification>;

/** Output of the patch tool for a file change item. */
export const FileChangeOutputDeltaNotification = lazySchema(() => z.object(itemDelta()));
export type FileChangeOutputDeltaNotification = z.infer<typeof FileChangeOutputDeltaNotification>;

/** A server → client request was answered or cleared (turn ended / interrupted); close its prompt. */
export const ServerRequestResolvedNotification = lazySchema(() =>
  z.object({ threadId: z.string(), requestId: RequestId }),
);
export type ServerRequestResolvedNotification = z.infer<typeof ServerRequestResolvedNotification>;

/** A turn hit an error. `willRetry` true: the server retries by itself and the turn goes on. */
export const ErrorNotification = lazySchema(() =>
  z.object({
    error: TurnError,
    willRetry: z.boolean(),
    threadId: z.string(),
    turnId: z.string(),
  }),
);
export type ErrorNotification = z.infer<typeof ErrorNotification>;

/** Something people should know that did not stop anything. `threadId` absent for server-wide warnings. */
export const WarningNotification = lazySchema(() =>
  z.object({
    message: z.string(),
    threadId: z.string().nullish(),
    /**
     * Weft: true when the warning is about project config held back until the user accepts it (see
     * `weft/projectConfig/list`); a client that shows its own prompt for that may leave the warning out.
     */
    weftProjectConfig: z.boolean().optional(),
  }),
);
export type WarningNotification = z.infer<typeof WarningNotification>;
