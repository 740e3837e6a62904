// ThreadItem: the units a turn is made of, as the UI sees them (tag `type`). Every item goes
// `item/started` → zero or more deltas → `item/completed`; the completed item is authoritative.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { JsonValue, UserInput } from './common';

export const UserMessageItem = lazySchema(() =>
  z.object({
    type: z.literal('userMessage'),
    id: z.string(),
    content: z.array(UserInput),
  }),
);
export type UserMessageItem = z.infer<typeof UserMessageItem>;

/** `commentary` = text between tool calls; `final_answer` = the turn's answer; null when the model did not say. */
export const MessagePhase = lazySchema(() => z.enum(['commentary', 'final_answer']));
export type MessagePhase = z.infer<typeof MessagePhase>;

export const AgentMessageItem = lazySchema(() =>
  z.object({
    type: z.literal('agentMessage'),
    id: z.string(),
    text: z.string(),
    phase: MessagePhase.nullable(),
  }),
);
export type AgentMessageItem = z.infer<typeof AgentMessageItem>;

/** `summary`: one string per summary part; `content`: raw reasoning text parts (open models only). */
export const ReasoningItem = lazySchema(() =>
  z.object({
    type: z.literal('reasoning'),
    id: z.string(),
    summary: z.array(z.string()),
    content: z.array(z.string()),
  }),
);
export type ReasoningItem = z.infer<typeof ReasoningItem>;

export const PlanItem = lazySchema(() =>
  z.object({
    type: z.literal('plan'),
    id: z.string(),
    text: z.string(),
  }),
);
export type PlanItem = z.infer<typeof PlanItem>;

/** Best-effort reading of what a shell command does; one command line may yield several actions. */
export const ReadCommandAction = lazySchema(() =>
  z.object({
    type: z.literal('read'),
    command: z.string(),
    name: z.string(),
    path: z.string(),
  }),
);
export const ListFilesCommandAction = lazySchema(() =>
  z.object({
    type: z.literal('listFiles'),
    command: z.string(),
    path: z.string().nullable(),
  }),
);
export const SearchCommandAction = lazySchema(() =>
  z.object({
    type: z.literal('search'),
    command: z.string(),
    query: z.string().nullable(),
    path: z.string().nullable(),
  }),
);
export const UnknownCommandAction = lazySchema(() =>
  z.object({
    type: z.literal('unknown'),
    command: z.string(),
  }),
);
export const CommandAction = lazySchema(() =>
  z.discriminatedUnion('type', [ReadCommandAction, ListFilesCommandAction, SearchCommandAction, UnknownCommandAction]),
);
export type CommandAction = z.infer<typeof CommandAction>;

/** `declined` = the user refused it; `failed` = it ran and exited non-zero, or could not start. */
export const CommandExecutionStatus = lazySchema(() => z.enum(['inProgress', 'completed', 'failed', 'declined']));
export type CommandExecutionStatus = z.infer<typeof CommandExecutionStatus>;

/**
 * A shell command. `processId` is null when no PTY backs it; `aggregatedOutput`, `exitCode` and
 * `durationMs` are null until it has finished.
 */
export const CommandExecutionItem = lazySchema(() =>
  z.object({
    type: z.literal('commandExecution'),
    id: z.string(),
    command: z.string(),
    cwd: z.string(),
    processId: z.string().nullable(),
    status: CommandExecutionStatus,
    commandActions: z.array(CommandAction),
    aggregatedOutput: z.string().nullable(),
    exitCode: z.number().int().nullable(),
    durationMs: z.number().nonnegative().nullable(),
    /** Who ran it: the agent, or the user (`userShell`: a `thread/shellCommand`). Absent = the agent. */
    source: z.enum(['agent', 'userShell', 'unifiedExecStartup', 'unifiedExecInteraction']).optional(),
    /**
     * Weft extension: how the command ended, for an honest label. Absent while in progress and on items
     * written by older versions (then read `status` and `exitCode`). `exited` = it ran and exited with
     * `exitCode`; `declined` = the user said no; `cancelled` = the user cancelled the turn at its approval;
     * `stopped` = the turn was interrupted while it ran; `error` = it could not run (see `weftError`).
     * `durationMs` counts the run only, never the wait for approval.
     */
    weftOutcome: z.enum(['exited', 'declined', 'cancelled', 'stopped', 'error']).optional(),
    /** Weft extension: why the command could not run (with `weftOutcome: "error"`), in words for people. */
    weftError: z.string().optional(),
    /**
     * Weft extension: true on the project's worktree setup script (`[worktree] setup` in its config), run
     * in the sandbox in a turn of its own when a worktree thread starts, before its first turn.
     */
    weftWorktreeSetup: z.boolean().optional(),
  }),
);
export type CommandExecutionItem = z.infer<typeof CommandExecutionItem>;

/** How a file changes. `move_path` (snake_case, as Codex) is the new path of a renamed file, else null. */
export const PatchChangeKind = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('add') }),
    z.object({ type: z.literal('delete') }),
    z.object({ type: z.literal('update'), move_path: z.string().nullable() }),
  ]),
);
export type PatchChangeKind = z.infer<typeof PatchChangeKind>;

export { diffFileCount, WEFT_DIFF_MAX_CHARS } from './diff-limits';

/** Weft extension: the totals of a diff that was cut to WEFT_DIFF_MAX_CHARS. */
export const WeftDiffCut = lazySchema(() =>
  z.object({
    /** Files in the whole diff (1 for a `fileChange` entry). */
    files: z.number().int().nonnegative(),
    /** Hunks in the whole diff, and how many of them the text shows (the last one perhaps in part). */
    hunks: z.number().int().nonnegative(),
    shownHunks: z.number().int().nonnegative(),
    /** Lines added and removed by the whole diff. */
    added: z.number().int().nonnegative(),
    removed: z.number().int().nonnegative(),
  }),
);
export type WeftDiffCut = z.infer<typeof WeftDiffCut>;

/**
 * One file of a patch; `diff` is its unified diff (the whole content for add/delete), cut to
 * WEFT_DIFF_MAX_CHARS: `weftDiffCut` (Weft extension) is present exactly when it was.
 */
export const FileUpdateChange = lazySchema(() =>
  z.object({
    path: z.string(),
    kind: PatchChangeKind,
    diff: z.string(),
    weftDiffCut: WeftDiffCut.optional(),
  }),
);
export type FileUpdateChange = z.infer<typeof FileUpdateChange>;

export const PatchApplyStatus = lazySchema(() => z.enum(['inProgress', 'completed', 'failed', 'declined']));
export type PatchApplyStatus = z.infer<typeof PatchApplyStatus>;

/** A hunk the person declined in review: its file (a `changes[].path`) and 0-based index in that file's diff. */
export const WeftDeclinedHunk = lazySchema(() => z.object({ path: z.string(), hunk: z.number().int().nonnegative() }));
export type WeftDeclinedHunk = z.infer<typeof WeftDeclinedHunk>;

export const FileChangeItem = lazySchema(() =>
  z.object({
    type: z.literal('fileChange'),
    id: z.string(),
    changes: z.array(FileUpdateChange),
    status: PatchApplyStatus,
    /**
     * Weft extension: how the patch ended. Absent while in progress and on older items. `applied` = written
     * (perhaps without declined hunks); `declined` = refused by the user or by policy; `cancelled` = the user
     * cancelled the turn at its review; `error` = it could not be written (see `weftError`).
     */
    weftOutcome: z.enum(['applied', 'declined', 'cancelled', 'error']).optional(),
    weftError: z.string().optional(),
    /** Weft extension: milliseconds spent writing, never the wait for review. */
    weftDurationMs: z.number().nonnegative().optional(),
    /**
     * Weft extension: the hunks declined in review when the rest was applied (`completed`). `changes` still
     * holds every proposed hunk; what landed is `changes` without these. Absent when nothing was declined.
     */
    weftDeclined: z.array(WeftDeclinedHunk).optional(),
  }),
);
export type FileChangeItem = z.infer<typeof FileChangeItem>;

export const McpToolCallStatus = lazySchema(() => z.enum(['inProgress', 'completed', 'failed']));
export type McpToolCallStatus = z.infer<typeof McpToolCallStatus>;

/** What the MCP server returned (`content` blocks as MCP defines them). */
export const McpToolCallResult = lazySchema(() =>
  z.object({
    content: z.array(JsonValue),
    structuredContent: JsonValue.optional(),
    _meta: JsonValue.optional(),
  }),
);
export type McpToolCallResult = z.infer<typeof McpToolCallResult>;

export const McpToolCallError = lazySchema(() => z.object({ message: z.string() }));
export type McpToolCallError = z.infer<typeof McpToolCallError>;

/** A call to a tool of an MCP server. `result` and `error` stay null while in progress; at most one is set. */
export const McpToolCallItem = lazySchema(() =>
  z.object({
    type: z.literal('mcpToolCall'),
    id: z.string(),
    server: z.string(),
    tool: z.string(),
    status: McpToolCallStatus,
    arguments: JsonValue,
    result: McpToolCallResult.nullable(),
    error: McpToolCallError.nullable(),
    durationMs: z.number().nonnegative().nullable(),
  }),
);
export type McpToolCallItem = z.infer<typeof McpToolCallItem>;

export const WebSearchItem = lazySchema(() =>
  z.object({
    type: z.literal('webSearch'),
    id: z.string(),
    query: z.string(),
  }),
);
export type WebSearchItem = z.infer<typeof WebSearchItem>;

/** The agent looked at an image file (absolute path). */
export const ImageViewItem = lazySchema(() =>
  z.object({
    type: z.literal('imageView'),
    id: z.string(),
    path: z.string(),
  }),
);
export type ImageViewItem = z.infer<typeof ImageViewItem>;

/** The conversation history was compacted (automatically or by `thread/compact/start`). */
export const ContextCompactionItem = lazySchema(() =>
  z.object({
    type: z.literal('contextCompaction'),
    id: z.string(),
  }),
);
export type ContextCompactionItem = z.infer<typeof ContextCompactionItem>;

/** The thread entered a review (`review/start`); `review` says what is reviewed. */
export const EnteredReviewModeItem = lazySchema(() =>
  z.object({
    type: z.literal('enteredReviewMode'),
    id: z.string(),
    review: z.string(),
  }),
);
export type EnteredReviewModeItem = z.infer<typeof EnteredReviewModeItem>;

/**
 * One problem a review found. `priority` 0 (P0, must fix) to 3 (P3, nit); `confidence` 0..1; `path` is
 * relative to the repository root (absolute when outside it); lines are 1-based and inclusive in the
 * file's new version.
 */
export const ReviewFinding = lazySchema(() =>
  z.object({
    title: z.string(),
    body: z.string(),
    priority: z.number().int().min(0).max(3),
    confidence: z.number().min(0).max(1),
    path: z.string(),
    lineStart: z.number().int().positive(),
    lineEnd: z.number().int().positive(),
  }),
);
export type ReviewFinding = z.infer<typeof ReviewFinding>;

/** What a review concluded, parsed from the reviewer's answer. */
export const ReviewOutput = lazySchema(() =>
  z.object({
    findings: z.array(ReviewFinding),
    /** `patch is correct` / `patch is incorrect`, or '' when the reviewer did not say. */
    overallCorrectness: z.string(),
    overallExplanation: z.string(),
    overallConfidence: z.number().min(0).max(1).nullable(),
  }),
);
export type ReviewOutput = z.infer<typeof ReviewOutput>;

/**
 * The review ended: `review` is its plain-text rendering (as Codex's). Weft extension: `weftReview`
 * holds the findings as data (absent when the answer could not be parsed; `review` then holds it raw).
 */
export const ExitedReviewModeItem = lazySchema(() =>
  z.object({
    type: z.literal('exitedReviewMode'),
    id: z.string(),
    review: z.string(),
    weftReview: ReviewOutput.optional(),
  }),
);
export type ExitedReviewModeItem = z.infer<typeof ExitedReviewModeItem>;

/**
 * The sub-agent tools (`multi_agent_v1`) as items: `spawnAgent` (spawn_agent), `sendInput`, `resumeAgent`,
 * `wait` (wait_agent) and `closeAgent`, as Codex names them.
 */
export const CollabAgentTool = lazySchema(() =>
  z.enum(['spawnAgent', 'sendInput', 'resumeAgent', 'wait', 'closeAgent']),
);
export type CollabAgentTool = z.infer<typeof CollabAgentTool>;

/** `failed`: the call was refused (a limit, an unknown agent); `interrupted`: the turn stopped while it waited. */
export const CollabAgentToolCallStatus = lazySchema(() => z.enum(['inProgress', 'completed', 'failed', 'interrupted']));
export type CollabAgentToolCallStatus = z.infer<typeof CollabAgentToolCallStatus>;

/**
 * Where a sub-agent stands: `pendingInit` (made, its first turn not started), `running`, `completed` (its
 * turn ended; `message` is its last answer), `errored` (`message` says why), `interrupted`, `shutdown`
 * (closed), `notFound` (no open sub-agent has that id).
 */
export const CollabAgentStatus = lazySchema(() =>
  z.enum(['pendingInit', 'running', 'interrupted', 'completed', 'errored', 'shutdown', 'notFound']),
);
export type CollabAgentStatus = z.infer<typeof CollabAgentStatus>;

/** A sub-agent's status; `message` is its last answer (`completed`) or the error (`errored`), else null. */
export const CollabAgentState = lazySchema(() =>
  z.object({ status: CollabAgentStatus, message: z.string().nullable() }),
);
export type CollabAgentState = z.infer<typeof CollabAgentState>;

/**
 * A call of a sub-agent tool. `senderThreadId` is the calling thread; `receiverThreadIds` the sub-agents it
 * names (for a spawn, the new one, empty until it exists). `prompt` is the message sent (spawn, send), else
 * null; `model` and `reasoningEffort` are the spawned agent's (spawn only), else null. `agentsStates` holds
 * the receivers' statuses as the call ended (by thread id; empty while it runs).
 */
export const CollabAgentToolCallItem = lazySchema(() =>
  z.object({
    type: z.literal('collabAgentToolCall'),
    id: z.string(),
    tool: CollabAgentTool,
    status: CollabAgentToolCallStatus,
    senderThreadId: z.string(),
    receiverThreadIds: z.array(z.string()),
    prompt: z.string().nullable(),
    model: z.string().nullable(),
    reasoningEffort: z.string().nullable(),
    agentsStates: z.record(z.string(), CollabAgentState),
  }),
);
export type CollabAgentToolCallItem = z.infer<typeof CollabAgentToolCallItem>;

/** The `browser` tools, as items name them (`open`, `screenshot`… as the model calls them). */
export const BrowserAction = lazySchema(() =>
  z.enum(['open', 'screenshot', 'click', 'type', 'read', 'console', 'evaluate', 'close']),
);
export type BrowserAction = z.infer<typeof BrowserAction>;

/** A screenshot the agent took: a PNG file and its size in pixels (as the model received it). */
export const BrowserScreenshot = lazySchema(() =>
  z.object({
    /** Absolute path: beside the thread's rollout (`<rollout>.files/`), or in a temporary folder for an unsaved thread. */
    path: z.string(),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
  }),
);
export type BrowserScreenshot = z.infer<typeof BrowserScreenshot>;

/**
 * Weft extension: one action of the agent's browser (the `browser` tools). `target` says what the action
 * was given, in words (the URL opened, the element clicked, the expression evaluated; '' when nothing);
 * `url` is the page's address after it (null when no page was open); `output` what the model was told
 * (cut as the model got it); `error` why it failed (null unless `failed`); `screenshot` the image a
 * `screenshot` took (else null). `durationMs` is null while in progress.
 */
export const BrowserActionItem = lazySchema(() =>
  z.object({
    type: z.literal('browserAction'),
    id: z.string(),
    action: BrowserAction,
    status: z.enum(['inProgress', 'completed', 'failed']),
    target: z.string(),
    url: z.string().nullable(),
    output: z.string().nullable(),
    error: z.string().nullable(),
    screenshot: BrowserScreenshot.nullable(),
    durationMs: z.number().nonnegative().nullable(),
  }),
);
export type BrowserActionItem = z.infer<typeof BrowserActionItem>;

/**
 * Codex's continuation of a turn a Stop hook blocked: one fragment per blocking run (its reason, and the
 * `hookRunId` of its `hook/completed`). The model reads the fragments as one user message of
 * `<hook_prompt hook_run_id="…">reason</hook_prompt>` elements.
 */
export const HookPromptItem = lazySchema(() =>
  z.object({
    type: z.literal('hookPrompt'),
    id: z.string(),
    fragments: z.array(z.object({ text: z.string(), hookRunId: z.string() })),
  }),
);
export type HookPromptItem = z.infer<typeof HookPromptItem>;

export const ThreadItem = lazySchema(() =>
  z.discriminatedUnion('type', [
    UserMessageItem,
    HookPromptItem,
    AgentMessageItem,
    ReasoningItem,
    PlanItem,
    CommandExecutionItem,
    FileChangeItem,
    McpToolCallItem,
    CollabAgentToolCallItem,
    WebSearchItem,
    ImageViewItem,
    ContextCompactionItem,
    EnteredReviewModeItem,
    ExitedReviewModeItem,
    BrowserActionItem,
  ]),
);
export type ThreadItem = z.infer<typeof ThreadItem>;
