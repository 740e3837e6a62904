// Params and results of the `thread/*` and `turn/*` client requests. Unknown params fields are dropped;
// an optional field may be omitted or null, and both mean "not given" (use the thread's / config's value).
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import {
  ApprovalPolicyParam,
  ApprovalsReviewer,
  AskForApproval,
  CodexAskForApproval,
  JsonValue,
  ReasoningEffortValue,
  ReasoningSummary,
  SandboxMode,
  SandboxPolicy,
  UserInput,
} from './common';
import { Thread, ThreadReadState, Turn } from './thread';
import { WeftEnvironmentName } from './weft-environments';

const ThreadId = lazySchema(() => z.string().min(1));
const Cursor = lazySchema(() => z.string().nullish());
/** Page size; the server clamps it to its own bounds. */
const Limit = lazySchema(() => z.number().int().nonnegative().nullish());

/** Settings a thread can be opened with; each stays in force for the thread's later turns. */
export const ThreadOverrides = lazySchema(() =>
  z.object({
    model: z.string().nullish(),
    modelProvider: z.string().nullish(),
    cwd: z.string().nullish(),
    approvalPolicy: ApprovalPolicyParam.nullish(),
    /** Accepted for Codex's clients; Weft always asks the user (`user`). */
    approvalsReviewer: ApprovalsReviewer.nullish(),
    sandbox: SandboxMode.nullish(),
    /** Config overrides by dotted key path, e.g. `{"model_reasoning_effort": "high"}`. */
    config: z.record(z.string(), JsonValue).nullish(),
    /** Replaces the built-in base instructions. */
    baseInstructions: z.string().nullish(),
    /** Added as a developer message after the base instructions. */
    developerInstructions: z.string().nullish(),
  }),
);
export type ThreadOverrides = z.infer<typeof ThreadOverrides>;

/**
 * All optional; omitted params mean `{}`. `ephemeral`: keep the thread in memory only, never on disk.
 * Weft: `weftWorktree: true` gives the thread its own git worktree of the project (`cwd`'s repository),
 * under `WEFT_HOME/worktrees/<project>-<hash>/<name>`, on a new branch `weftBranch` (default
 * `weft/<short name>`, unique) made from `weftBaseRef` (default: the project's `HEAD`); the thread's `cwd`
 * is the worktree (at the same place within it as `cwd` within the repository). With
 * `weftWorktreeCarryChanges: true` the project's uncommitted changes come along: tracked files' changes
 * and untracked files that are not ignored. A project outside git is refused (-32602). The three
 * `weftBaseRef`, `weftBranch`, `weftWorktreeCarryChanges` mean nothing without `weftWorktree`.
 * `weftGroupId`: the thread is one of several the client starts together from one prompt ("try N ways":
 * each in its own worktree, with the same first message); it is kept with the thread (`Thread.weftGroupId`)
 * so the group can be found and compared (`weft/worktree/compare`) later. Not for an ephemeral thread.
 */
export const ThreadStartParams = lazySchema(() =>
  ThreadOverrides.extend({
    ephemeral: z.boolean().nullish(),
    weftWorktree: z.boolean().nullish(),
    weftBaseRef: z.string().min(1).nullish(),
    weftBranch: z.string().min(1).nullish(),
    weftWorktreeCarryChanges: z.boolean().nullish(),
    weftGroupId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a group id is 1 to 64 letters, digits, - or _')
      .nullish(),
    /** Weft: start the thread on this environment (its `cwd` is a folder there); see `WeftEnvironmentName`. */
    weftEnvironment: WeftEnvironmentName,
  }).default({}),
);
export type ThreadStartParams = z.infer<typeof ThreadStartParams>;

/**
 * The thread plus the settings it actually runs with (after config and overrides are resolved).
 * `approvalPolicy` is Codex's value for the policy; `weftApprovalPolicy` is Weft's own (it differs for
 * `on-failure`). `approvalsReviewer` is always `user`.
 */
export const ThreadStartResult = lazySchema(() =>
  z.object({
    thread: Thread,
    model: z.string(),
    modelProvider: z.string(),
    cwd: z.string(),
    approvalPolicy: CodexAskForApproval,
    weftApprovalPolicy: AskForApproval.optional(),
    approvalsReviewer: ApprovalsReviewer,
    sandbox: SandboxPolicy,
    reasoningEffort: ReasoningEffortValue.nullish(),
    /**
     * Weft: `thread.turns` holds only the newest turns of a long thread; this cursor pages the older ones
     * with `thread/turns/list` (null or absent: `thread.turns` starts at the first turn).
     */
    weftOlderTurnsCursor: z.string().nullish(),
  }),
);
export type ThreadStartResult = z.infer<typeof ThreadStartResult>;

/** Reopen a saved thread. `path` (a rollout file) wins over `threadId` when both are given. */
export const ThreadResumeParams = lazySchema(() =>
  ThreadOverrides.extend({
    threadId: ThreadId,
    path: z.string().nullish(),
    /** Weft: the environment the thread lives on (see `WeftEnvironmentName`), for a host that has not seen it. */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type ThreadResumeParams = z.infer<typeof ThreadResumeParams>;

/** Same shape as `thread/start`; `thread.turns` holds the history. */
export const ThreadResumeResult = ThreadStartResult;
export type ThreadResumeResult = z.infer<typeof ThreadResumeResult>;

/**
 * Copy a thread into a new one. `weftTurnId` (Weft): keep the history up to and including that turn;
 * omitted = the whole thread. `weftWorktree` (Weft): the new thread works in its own copy of the
 * project holding the files as they were after that turn: a git worktree on a new `weft/<id>` branch,
 * or a copy of the folder outside git.
 */
export const ThreadForkParams = lazySchema(() =>
  ThreadOverrides.extend({
    threadId: ThreadId,
    path: z.string().nullish(),
    ephemeral: z.boolean().nullish(),
    weftTurnId: z.string().nullish(),
    weftWorktree: z.boolean().nullish(),
    /** Weft: the environment the thread lives on (see `WeftEnvironmentName`), for a host that has not seen it. */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type ThreadForkParams = z.infer<typeof ThreadForkParams>;

/** The new thread (`forkedFromId` set, copied turns included); the settings are given as for `thread/start`. */
export const ThreadForkResult = ThreadStartResult;
export type ThreadForkResult = z.infer<typeof ThreadForkResult>;

export const ThreadArchiveParams = lazySchema(() => z.object({ threadId: ThreadId }));
export type ThreadArchiveParams = z.infer<typeof ThreadArchiveParams>;
export const ThreadArchiveResult = lazySchema(() => z.object({}));
export type ThreadArchiveResult = z.infer<typeof ThreadArchiveResult>;

export const ThreadUnarchiveParams = lazySchema(() => z.object({ threadId: ThreadId }));
export type ThreadUnarchiveParams = z.infer<typeof ThreadUnarchiveParams>;
export const ThreadUnarchiveResult = lazySchema(() => z.object({ thread: Thread }));
export type ThreadUnarchiveResult = z.infer<typeof ThreadUnarchiveResult>;

/** Stop receiving this thread's notifications on this connection. */
export const ThreadUnsubscribeParams = lazySchema(() => z.object({ threadId: ThreadId }));
export type ThreadUnsubscribeParams = z.infer<typeof ThreadUnsubscribeParams>;
export const ThreadUnsubscribeStatus = lazySchema(() => z.enum(['notLoaded', 'notSubscribed', 'unsubscribed']));
export type ThreadUnsubscribeStatus = z.infer<typeof ThreadUnsubscribeStatus>;
export const ThreadUnsubscribeResult = lazySchema(() => z.object({ status: ThreadUnsubscribeStatus }));
export type ThreadUnsubscribeResult = z.infer<typeof ThreadUnsubscribeResult>;

/** `recency_at` and `section_position` (Codex's) sort as `updated_at`: Weft has no sections. */
export const ThreadSortKey = lazySchema(() => z.enum(['created_at', 'updated_at', 'recency_at', 'section_position']));
export type ThreadSortKey = z.infer<typeof ThreadSortKey>;
export const SortDirection = lazySchema(() => z.enum(['asc', 'desc']));
export type SortDirection = z.infer<typeof SortDirection>;

/**
 * A page of saved threads, newest first by default. `limit` defaults to 25 (max 100). `archived: true` lists
 * only archived threads, otherwise only live ones. `cwd` keeps threads whose cwd equals it (or one of
 * them). `searchTerm` matches thread titles and text.
 */
export const ThreadListParams = lazySchema(() =>
  z
    .object({
      cursor: Cursor,
      limit: Limit,
      sortKey: ThreadSortKey.nullish(),
      sortDirection: SortDirection.nullish(),
      archived: z.boolean().nullish(),
      cwd: z.union([z.string(), z.array(z.string())]).nullish(),
      searchTerm: z.string().nullish(),
      modelProviders: z.array(z.string()).nullish(),
      sourceKinds: z.array(z.string()).nullish(),
      /**
       * Weft: only the threads that wait on the person — whose last turn failed and that are unread since,
       * or (loaded) with an approval or a question waiting — found through the index, however old they are.
       */
      weftNeedsYou: z.boolean().nullish(),
      /** Weft: list the threads of this environment (see `WeftEnvironmentName`); each is marked with it. */
      weftEnvironment: WeftEnvironmentName,
    })
    .default({}),
);
export type ThreadListParams = z.infer<typeof ThreadListParams>;

/** `nextCursor` null on the last page. */
export const ThreadListResult = lazySchema(() =>
  z.object({
    data: z.array(Thread),
    nextCursor: z.string().nullable(),
    backwardsCursor: z.string().nullish(),
    /**
     * Weft: true while the thread index is first built from the rollouts (a new index, e.g. its file was
     * deleted): the page holds the threads indexed so far, and `weft/threads/indexed` is sent once it holds
     * them all. Omitted otherwise.
     */
    weftIndexing: z.boolean().optional(),
    /**
     * Weft, with `searchTerm`: by thread id, a line of the first user or agent message holding every word of
     * the search, cut around the first word (threads matched by their name only have none).
     */
    weftSnippets: z.record(z.string(), z.string()).optional(),
  }),
);
export type ThreadListResult = z.infer<typeof ThreadListResult>;

/** Ids of the threads loaded in the server's memory. */
export const ThreadLoadedListParams = lazySchema(() => z.object({ cursor: Cursor, limit: Limit }).default({}));
export type ThreadLoadedListParams = z.infer<typeof ThreadLoadedListParams>;
export const ThreadLoadedListResult = lazySchema(() =>
  z.object({
    data: z.array(z.string()),
    nextCursor: z.string().nullable(),
  }),
);
export type ThreadLoadedListResult = z.infer<typeof ThreadLoadedListResult>;

/** Read without loading. `includeTurns` omitted = false (`thread.turns` is then `[]`). */
export const ThreadReadParams = lazySchema(() =>
  z.object({
    threadId: ThreadId,
    includeTurns: z.boolean().nullish(),
    /** Weft: the environment the thread lives on (see `WeftEnvironmentName`), for a host that has not seen it. */
    weftEnvironment: WeftEnvironmentName,
  }),
);
export type ThreadReadParams = z.infer<typeof ThreadReadParams>;
/**
 * `readState` (as Codex's): whether the thread was read since its last turn ended; null when it has none
 * kept (an ephemeral thread).
 */
export const ThreadReadResult = lazySchema(() => z.object({ thread: Thread, readState: ThreadReadState.nullish() }));
export type ThreadReadResult = z.infer<typeof ThreadReadResult>;

/** A page of a thread's turns, oldest first; `nextCursor` null on the last page. */
export const ThreadTurnsListParams = lazySchema(() =>
  z.object({
    threadId: ThreadId,
    cursor: Cursor,
    limit: Limit,
  }),
);
export type ThreadTurnsListParams = z.infer<typeof ThreadTurnsListParams>;
export const ThreadTurnsListResult = lazySchema(() =>
  z.object({
    data: z.array(Turn),
    nextCursor: z.string().nullable(),
  }),
);
export type ThreadTurnsListResult = z.infer<typeof ThreadTurnsListResult>;

/** Names need not be unique. */
export const ThreadNameSetParams = lazySchema(() => z.object({ threadId: ThreadId, name: z.string() }));
export type ThreadNameSetParams = z.infer<typeof ThreadNameSetParams>;
export const ThreadNameSetResult = lazySchema(() => z.object({}));
export type ThreadNameSetResult = z.infer<typeof ThreadNameSetResult>;

/** Weft: pin a thread (the UI lists pinned threads first) or unpin it; kept in its rollout. Answers the thread. */
export const WeftThreadPinParams = lazySchema(() => z.object({ threadId: ThreadId, pinned: z.boolean() }));
export type WeftThreadPinParams = z.infer<typeof WeftThreadPinParams>;
export const WeftThreadPinResult = lazySchema(() => z.object({ thread: Thread }));
export type WeftThreadPinResult = z.infer<typeof WeftThreadPinResult>;

/**
 * Mark a thread read or unread (Codex's `thread/readState/update`). `expectedRevision`: the revision of the
 * read state the caller showed; a different current one is refused (-32010), since a turn ended or someone
 * marked it meanwhile. Answers the read state now; every client is told with `thread/readState/changed`.
 */
export const ThreadReadStateOperation = lazySchema(() =>
  z.discriminatedUnion('type', [z.object({ type: z.literal('read') }), z.object({ type: z.literal('unread') })]),
);
export type ThreadReadStateOperation = z.infer<typeof ThreadReadStateOperation>;
export const ThreadReadStateUpdateParams = lazySchema(() =>
  z.object({
    threadId: ThreadId,
    expectedRevision: z.string(),
    operation: ThreadReadStateOperation,
  }),
);
export type ThreadReadStateUpdateParams = z.infer<typeof ThreadReadStateUpdateParams>;
export const ThreadReadStateUpdateResult = lazySchema(() => z.object({ readState: ThreadReadState }));
/**
 * The error of a `thread/readState/update` whose `expectedRevision` is not the current one (the code of every
 * "what you saw is not what is there now" error); its `data.readState` is the read state now.
 */
export const READ_STATE_CONFLICT_CODE = -32010;
export type ThreadReadStateUpdateResult = z.infer<typeof ThreadReadStateUpdateResult>;

/** Drop the last `numTurns` turns from the model's context (files on disk are not reverted). */
export const ThreadRollbackParams = lazySchema(() =>
  z.object({
    threadId: ThreadId,
    numTurns: z.number().int().min(1),
  }),
);
export type ThreadRollbackParams = z.infer<typeof ThreadRollbackParams>;
export const ThreadRollbackResult = lazySchema(() => z.object({ thread: Thread }));
export type ThreadRollbackResult = z.infer<typeof ThreadRollbackResult>;

/** Answers at once; progress arrives as `turn/*` and `item/*` notifications with a `contextCompaction` item. */
export const ThreadCompactStartParams = lazySchema(() => z.object({ threadId: ThreadId }));
export type ThreadCompactStartParams = z.infer<typeof ThreadCompactStartParams>;
export const ThreadCompactStartResult = lazySchema(() => z.object({}));
export type ThreadCompactStartResult = z.infer<typeof ThreadCompactStartResult>;

/** Start a turn. The overrides apply to this turn and stick for the thread's later turns. */
export const TurnStartParams = lazySchema(() =>
  z.object({
    threadId: ThreadId,
    input: z.array(UserInput),
    cwd: z.string().nullish(),
    approvalPolicy: ApprovalPolicyParam.nullish(),
    approvalsReviewer: ApprovalsReviewer.nullish(),
    sandboxPolicy: SandboxPolicy.nullish(),
    model: z.string().nullish(),
    effort: ReasoningEffortValue.nullish(),
    summary: ReasoningSummary.nullish(),
    /** A JSON Schema this turn's final answer must follow (this turn only). */
    outputSchema: z.record(z.string(), JsonValue).nullish(),
    /**
     * Weft's own: whether the model may ask the person questions (`request_user_input`) from this turn on.
     * `true`: a person sent it and is there to answer (Weft's app says so for what the person sends);
     * `false`: nobody is (an automation's turn). Absent: as the thread's last turn (a new thread: its config's
     * `questions`); a thread started with `questions = false` keeps it, over resumes too.
     */
    weftQuestions: z.boolean().nullish(),
  }),
);
export type TurnStartParams = z.infer<typeof TurnStartParams>;
/** The new turn, status `inProgress`, items empty. */
export const TurnStartResult = lazySchema(() => z.object({ turn: Turn }));
export type TurnStartResult = z.infer<typeof TurnStartResult>;

/**
 * Add input to the running turn; it reaches the model at the next model request. Rejected when no turn
 * runs or `expectedTurnId` is not the running turn.
 */
export const TurnSteerParams = lazySchema(() =>
  z.object({
    threadId: ThreadId,
    input: z.array(UserInput),
    expectedTurnId: z.string(),
  }),
);
export type TurnSteerParams = z.infer<typeof TurnSteerParams>;
/** `turnId` (as Codex answers) names the turn that took the input; Weft may answer `{}`. */
export const TurnSteerResult = lazySchema(() => z.object({ turnId: z.string().optional() }));
export type TurnSteerResult = z.infer<typeof TurnSteerResult>;

/** The turn then ends with `turn/completed`, status `interrupted`; pending requests resolve as cancelled. */
export const TurnInterruptParams = lazySchema(() => z.object({ threadId: ThreadId, turnId: z.string() }));
export type TurnInterruptParams = z.infer<typeof TurnInterruptParams>;
export const TurnInterruptResult = lazySchema(() => z.object({}));
export type TurnInterruptResult = z.infer<typeof TurnInterruptResult>;
