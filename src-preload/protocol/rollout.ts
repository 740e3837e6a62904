// Rollout files: one JSON object per line, `{timestamp, type, payload}`, Codex's format, so Weft reads
// Codex threads and Codex reads Weft's. Payloads are loose (unnamed fields are kept); a line of a `type`
// this version does not know parses as `UnknownRolloutItem` and is meant to be kept and ignored.
import { z } from 'zod';
import { lazySchema, lazyValue } from './lazy-schema';
import { describeZodError } from './errors';
import { unknownTag } from './open-union';
import { ResponseItem } from './response-items';
import { JsonValue } from './common';
import { HookRunSummary } from './hooks';
import { ThreadItem, WeftDiffCut } from './items';
import { TurnPlanStep } from './notifications';
import { Turn, TurnError } from './thread';

/** Git state at session start; each field absent or null when unknown. */
export const RolloutGitInfo = lazySchema(() =>
  z.looseObject({
    commit_hash: z.string().nullish(),
    branch: z.string().nullish(),
    repository_url: z.string().nullish(),
  }),
);
export type RolloutGitInfo = z.infer<typeof RolloutGitInfo>;

/**
 * Weft: `weft_worktree` of a session_meta, the git worktree the thread works in (see `WeftWorktree`).
 * `base_commit` is the commit the branch was made from. Read on its own (`safeParse`), so that a damaged
 * value loses only itself, never the meta line.
 */
export const RolloutWeftWorktree = lazySchema(() =>
  z.looseObject({
    path: z.string(),
    branch: z.string(),
    base_ref: z.string(),
    base_commit: z.string(),
    project_root: z.string(),
  }),
);
export type RolloutWeftWorktree = z.infer<typeof RolloutWeftWorktree>;

/**
 * First line of every rollout. `id` is the thread id; `forked_from_id` the thread it was forked from;
 * `timestamp` RFC 3339; `source` a string such as "cli" or "vscode" (Codex also writes objects for
 * sub-agents); `base_instructions` null/absent = the model's built-in instructions. Older writers may omit
 * `originator`, `cli_version`, `source` (read as "", "", "unknown") and `model_provider`.
 */
export const SessionMetaPayload = lazySchema(() =>
  z.looseObject({
    id: z.string(),
    forked_from_id: z.string().nullish(),
    timestamp: z.string(),
    cwd: z.string(),
    originator: z.string().default(''),
    cli_version: z.string().default(''),
    source: z.union([z.string(), z.record(z.string(), z.unknown())]).default('unknown'),
    model_provider: z.string().nullish(),
    base_instructions: z.looseObject({ text: z.string() }).nullish(),
    git: RolloutGitInfo.nullish(),
  }),
);
export type SessionMetaPayload = z.infer<typeof SessionMetaPayload>;

/**
 * The settings a turn ran with, written once per user turn (and after mid-turn compaction). Values are
 * kept as written: `approval_policy`, `effort`, `summary` are strings as in config.toml ("on-request",
 * "high", "auto"); `sandbox_policy` is the core's snake_case object (e.g. `{type: "workspace-write",
 * writable_roots: […], network_access: false}`), not the camelCase `SandboxPolicy` of the app protocol.
 */
export const TurnContextPayload = lazySchema(() =>
  z.looseObject({
    turn_id: z.string().nullish(),
    cwd: z.string(),
    approval_policy: z.string(),
    sandbox_policy: z.record(z.string(), z.unknown()),
    model: z.string(),
    effort: z.string().nullish(),
    summary: z.string().nullish(),
    user_instructions: z.string().nullish(),
    developer_instructions: z.string().nullish(),
    /** Weft's own: false when the turn's model could ask nobody (`request_user_input` not offered). */
    weft_questions: z.boolean().optional(),
  }),
);
export type TurnContextPayload = z.infer<typeof TurnContextPayload>;

/**
 * A compaction. `replacement_history` (when present) is the complete model-visible history from here on;
 * older writers give only `message`, the summary text.
 */
export const CompactedPayload = lazySchema(() =>
  z.looseObject({
    message: z.string(),
    replacement_history: z.array(ResponseItem).nullish(),
  }),
);
export type CompactedPayload = z.infer<typeof CompactedPayload>;

/** A core event (`user_message`, `agent_message`, `token_count`, `turn_started`, …; snake_case tags). */
export const EventMsgPayload = lazySchema(() => z.looseObject({ type: z.string() }));
export type EventMsgPayload = z.infer<typeof EventMsgPayload>;

export const SessionMetaRolloutItem = lazySchema(() =>
  z.object({ type: z.literal('session_meta'), payload: SessionMetaPayload }),
);
export const ResponseItemRolloutItem = lazySchema(() =>
  z.object({ type: z.literal('response_item'), payload: ResponseItem }),
);
export const EventMsgRolloutItem = lazySchema(() =>
  z.object({ type: z.literal('event_msg'), payload: EventMsgPayload }),
);
export const TurnContextRolloutItem = lazySchema(() =>
  z.object({ type: z.literal('turn_context'), payload: TurnContextPayload }),
);
export const CompactedRolloutItem = lazySchema(() =>
  z.object({ type: z.literal('compacted'), payload: CompactedPayload }),
);

export const KnownRolloutItem = lazySchema(() =>
  z.discriminatedUnion('type', [
    SessionMetaRolloutItem,
    ResponseItemRolloutItem,
    EventMsgRolloutItem,
    TurnContextRolloutItem,
    CompactedRolloutItem,
  ]),
);
export type KnownRolloutItem = z.infer<typeof KnownRolloutItem>;
/** The `type` of every known line kind. */
const knownRolloutItemTypes = lazyValue(() => KnownRolloutItem.options.map((option) => option.shape.type.value));

/** A line kind this version does not know; keep it when rewriting a file, skip it when reading history. */
export const UnknownRolloutItem = lazySchema(() =>
  z.object({
    type: unknownTag(knownRolloutItemTypes(), 'UnknownRolloutItemType'),
    payload: z.unknown(),
  }),
);
export type UnknownRolloutItem = z.infer<typeof UnknownRolloutItem>;

/** The `{type, payload}` part of a line. */
export const RolloutItem = lazySchema(() => z.union([KnownRolloutItem, UnknownRolloutItem]));
export type RolloutItem = z.infer<typeof RolloutItem>;

/**
 * One line: `timestamp` is UTC RFC 3339 with milliseconds, e.g. "2025-05-07T17:24:21.123Z". Narrow with
 * `isKnownRolloutLine` before switching on `type` (see open-union.ts).
 */
export const RolloutLine = lazySchema(() => z.intersection(z.object({ timestamp: z.string() }), RolloutItem));
export type RolloutLine = z.infer<typeof RolloutLine>;
export type KnownRolloutLine = { timestamp: string } & KnownRolloutItem;

const knownRolloutItemTypeSet = lazyValue((): ReadonlySet<string> => new Set(knownRolloutItemTypes()));

export function isKnownRolloutLine(line: RolloutLine): line is KnownRolloutLine {
  return knownRolloutItemTypeSet().has(line.type);
}

export type ParseRolloutLineResult = { ok: true; line: RolloutLine } | { ok: false; error: string };

/**
 * Parses one line of a rollout file (with or without its trailing newline). Never throws: a torn,
 * non-JSON or malformed line gives `{ok: false, error}` naming the problem.
 */
export function parseRolloutLine(text: string): ParseRolloutLineResult {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, error: 'empty line' };
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `not JSON (${reason})` };
  }
  const parsed = RolloutLine.safeParse(json);
  if (!parsed.success) return { ok: false, error: describeZodError(parsed.error, '') };
  return { ok: true, line: parsed.data };
}

// ---- event_msg payloads ----
// `event_msg` payloads: what a rollout records for the UI (the model-visible history is in `response_item`s).
//
// Weft writes Codex's own event where one exists, so Codex can read Weft's threads, and adds `weft_*` events
// for what a resumed thread must show that Codex does not persist. Keys are written in this order, `type`
// first (the reader sniffs it from the line prefix); unknown fields are ignored on read.
//
// Written by Weft:
//   turn_started        {type, turn_id, weft_turn}            a turn began; `weft_turn` = the protocol Turn
//                                                              without items (status, times)
//   turn_complete       {type, turn_id, last_agent_message, weft_turn}   the turn ended completed or failed
//   turn_aborted        {type, turn_id, reason: "interrupted", weft_turn} the turn was interrupted
//   weft_item_completed {type, turn_id, item}                 a completed ThreadItem, authoritative for the UI
//   user_message        {type, weft_mirror: true, message, images, local_images}
//   agent_message       {type, weft_mirror: true, message, phase}
//                       Codex's view of a userMessage / agentMessage item; Weft reads the item instead
//                       (`weft_mirror` marks the copy) but indexes the text of both for search
//   weft_approval       {type, turn_id, item_id, kind: "command"|"fileChange", request, decision}
//                       an approval asked and answered (request params and decision as on the wire)
//   weft_plan_updated   {type, turn_id, explanation, plan: [{step, status}]}   the latest plan of a turn
//   weft_turn_diff      {type, turn_id, diff, cut?}           the turn's aggregated diff as it ended (only
//                                                              when the turn changed files; cut: see WeftDiffCut)
//   weft_hook_completed {type, turn_id, run}                  a hook run of the turn ended (`run`: the
//                                                              HookRunSummary of `hook/completed`), in the
//                                                              order of the turn's items
//   error               {type, message, codex_error_info: null, turn_id, weft_error: TurnError}
//                       an error that ended a turn (retried errors are not recorded)
//   token_count         {type, info: {total_token_usage, last_token_usage, model_context_window}, rate_limits: null}
//   thread_name_updated {type, thread_id, thread_name}        rename (null = cleared)
//   thread_rolled_back  {type, num_turns, weft_restore_record?}   the last `num_turns` turns are dropped,
//                       from the model history and from the UI turns; `weft_restore_record`: the checkpoint
//                       record of the files restored with them (an undo with its files)
//   weft_rollback_undone {type, num_turns}                    the turns the last rollback dropped are back
//                       (Redo of that undo); written only while no turn began after the rollback
//   weft_thread_pinned  {type, pinned}                        the thread was pinned (listed first) or unpinned
//   weft_thread_group   {type, group_id}                      the thread is one of a group started together
//                       from one prompt ("try N ways"); null: it left it
//   weft_thread_read_state {type, mark: "read"|"unread"|"turnEnded", ended_turn_id?}   someone read the thread,
//                       marked it unread, or a turn ended (unread from it, unless unread already)
//   weft_thread_moved   {type, cwd, after_turn_id}            a Handoff moved the thread: it works in `cwd` from
//                       then on (until a later turn names another); `after_turn_id`: its last turn then, or null
//
// Read from Codex rollouts as well: task_started / task_complete (older names of turn_started /
// turn_complete), agent_reasoning, agent_reasoning_raw_content, exec_command_end, patch_apply_end,
// item_completed (plan items), context_compacted, web_search_end, view_image_tool_call, mcp_tool_call_end.
/** A Turn as recorded at its start and end: everything but the items. */
export const RecordedTurn = lazySchema(() => Turn.omit({ items: true }));
export type RecordedTurn = z.infer<typeof RecordedTurn>;

const nullishString = lazySchema(() => z.string().nullish());

export const TurnStartedEvent = lazySchema(() =>
  z.looseObject({
    turn_id: nullishString,
    weft_turn: RecordedTurn.nullish().catch(null),
  }),
);
export const TurnEndedEvent = lazySchema(() =>
  z.looseObject({
    turn_id: nullishString,
    last_agent_message: nullishString,
    reason: z.unknown().optional(),
    weft_turn: RecordedTurn.nullish().catch(null),
  }),
);

export const WeftItemCompletedEvent = lazySchema(() => z.looseObject({ turn_id: z.string(), item: ThreadItem }));
export type WeftItemCompletedEvent = z.infer<typeof WeftItemCompletedEvent>;

/** Weft's fields of an item recorded in Codex's form (`item_completed`): merged over what that form gives. */
export const WeftItemFieldsEvent = lazySchema(() =>
  z.looseObject({
    turn_id: z.string(),
    item_id: z.string(),
    fields: z.record(z.string(), z.unknown()),
  }),
);

export const ApprovalKind = lazySchema(() => z.enum(['command', 'fileChange']));
export type ApprovalKind = z.infer<typeof ApprovalKind>;

/** An approval request and its answer, as the UI showed them. */
export const ApprovalRecord = lazySchema(() =>
  z.object({
    turnId: z.string(),
    itemId: z.string(),
    kind: ApprovalKind,
    request: JsonValue,
    decision: JsonValue,
  }),
);
export type ApprovalRecord = z.infer<typeof ApprovalRecord>;

export const WeftApprovalEvent = lazySchema(() =>
  z.looseObject({
    turn_id: z.string(),
    item_id: z.string(),
    kind: ApprovalKind,
    request: JsonValue.catch(null),
    decision: JsonValue.catch(null),
  }),
);

/** The plan of a turn as `turn/plan/updated` last gave it. */
export const PlanRecord = lazySchema(() =>
  z.object({ explanation: z.string().nullable(), plan: z.array(TurnPlanStep) }),
);
export type PlanRecord = z.infer<typeof PlanRecord>;

export const WeftPlanUpdatedEvent = lazySchema(() =>
  z.looseObject({
    turn_id: z.string(),
    explanation: z.string().nullish(),
    plan: z.array(TurnPlanStep),
  }),
);

export const WeftTurnDiffEvent = lazySchema(() =>
  z.looseObject({
    turn_id: z.string(),
    diff: z.string(),
    /** The totals of a diff cut to WEFT_DIFF_MAX_CHARS; absent when it is whole. */
    cut: WeftDiffCut.optional(),
  }),
);

export const WeftHookCompletedEvent = lazySchema(() => z.looseObject({ turn_id: z.string(), run: HookRunSummary }));

export const ErrorEvent = lazySchema(() =>
  z.looseObject({
    message: z.string(),
    codex_error_info: z.unknown().optional(),
    turn_id: nullishString,
    weft_error: TurnError.nullish().catch(null),
  }),
);

const tokens = lazySchema(() => z.number().int().nonnegative().catch(0).default(0));
export const RolloutTokenUsage = lazySchema(() =>
  z.looseObject({
    input_tokens: tokens,
    cached_input_tokens: tokens,
    output_tokens: tokens,
    reasoning_output_tokens: tokens,
    total_tokens: tokens,
    /** Input tokens written to the provider's prompt cache (part of `input_tokens`); absent = 0. */
    cache_write_input_tokens: z.number().int().nonnegative().optional().catch(undefined),
  }),
);
export type RolloutTokenUsage = z.infer<typeof RolloutTokenUsage>;

export const TokenCountEvent = lazySchema(() =>
  z.looseObject({
    /** Codex's account limits; Weft writes null. */
    rate_limits: z.unknown().optional(),
    /** Weft: the model of the request this count follows (absent in Codex's rollouts). */
    weft_model: z.string().optional().catch(undefined),
    /** Weft: `total_token_usage` by model, for the thread's cost (absent in Codex's rollouts). */
    weft_usage_by_model: z.record(z.string(), RolloutTokenUsage).optional().catch(undefined),
    info: z
      .looseObject({
        total_token_usage: RolloutTokenUsage,
        last_token_usage: RolloutTokenUsage,
        model_context_window: z.number().int().nonnegative().nullish(),
      })
      .nullish(),
  }),
);

export const ThreadNameUpdatedEvent = lazySchema(() =>
  z.looseObject({ thread_id: nullishString, thread_name: z.string().nullish() }),
);
export const ThreadRolledBackEvent = lazySchema(() =>
  z.looseObject({
    num_turns: z.number().int().nonnegative(),
    /** Weft: the checkpoint record of the files restored with the rollback (an undo with its files). */
    weft_restore_record: z.string().optional(),
  }),
);

/** Weft: the turns the last rollback dropped are back (Redo of an undo); it names how many there were. */
export const WeftRollbackUndoneEvent = lazySchema(() => z.looseObject({ num_turns: z.number().int().positive() }));

/** Weft: the thread was pinned (the UI lists it first) or unpinned; the last one counts. */
export const WeftThreadPinnedEvent = lazySchema(() => z.looseObject({ pinned: z.boolean() }));

/** Weft: the thread's group (threads started together from one prompt, compared side by side); null: none. */
export const WeftThreadGroupEvent = lazySchema(() => z.looseObject({ group_id: z.string().nullable() }));
/**
 * Weft: a Handoff moved the thread to `cwd` (the local checkout, or back into its worktree). `after_turn_id`:
 * the thread's last turn when it moved (null: none); a turn after it that recorded another cwd wins over it.
 */
export const WeftThreadMovedEvent = lazySchema(() =>
  z.looseObject({ cwd: z.string(), after_turn_id: z.string().nullable() }),
);
/**
 * Weft: a mark of the thread's read state (see ThreadReadState): `read` (someone read it), `unread` (marked
 * unread), `turnEnded` (turn `ended_turn_id` ended: the thread is unread from it, unless it was unread already).
 * Every mark moves the read state's revision on. (The turn is not named `turn_id`: the mark is the thread's,
 * not a line of that turn.)
 */
export const WeftThreadReadStateEvent = lazySchema(() =>
  z.looseObject({
    mark: z.enum(['read', 'unread', 'turnEnded']),
    ended_turn_id: z.string().nullish(),
  }),
);

export const UserMessageEvent = lazySchema(() =>
  z.looseObject({
    message: z.string(),
    images: z.array(z.string()).nullish(),
    local_images: z.array(z.string()).nullish(),
    weft_mirror: z.boolean().optional(),
  }),
);
export const AgentMessageEvent = lazySchema(() =>
  z.looseObject({
    message: z.string(),
    phase: z.unknown().optional(),
    weft_mirror: z.boolean().optional(),
  }),
);
export const AgentReasoningEvent = lazySchema(() => z.looseObject({ text: z.string() }));

/** Codex writes durations as `{secs, nanos}` (Rust's Duration), some versions as a string or milliseconds. */
export const CodexDuration = lazySchema(() =>
  z.union([z.looseObject({ secs: z.number(), nanos: z.number() }), z.number(), z.string()]).nullish(),
);

export const ExecCommandEndEvent = lazySchema(() =>
  z.looseObject({
    call_id: z.string(),
    command: z.union([z.array(z.string()), z.string()]).catch([]),
    cwd: nullishString,
    aggregated_output: nullishString,
    formatted_output: nullishString,
    stdout: nullishString,
    stderr: nullishString,
    exit_code: z.number().int().nullish(),
    duration: CodexDuration.catch(null),
    status: nullishString,
  }),
);

export const PatchApplyEndEvent = lazySchema(() =>
  z.looseObject({
    call_id: z.string(),
    success: z.boolean().nullish(),
    status: nullishString,
    changes: z.record(z.string(), z.unknown()).nullish().catch(null),
  }),
);

export const CodexItemCompletedEvent = lazySchema(() =>
  z.looseObject({
    item: z.looseObject({ type: z.string(), id: nullishString, text: nullishString }),
  }),
);
export const WebSearchEndEvent = lazySchema(() => z.looseObject({ call_id: z.string(), query: nullishString }));
export const ViewImageEvent = lazySchema(() => z.looseObject({ call_id: z.string(), path: z.string() }));
export const McpToolCallEndEvent = lazySchema(() =>
  z.looseObject({
    call_id: z.string(),
    invocation: z.looseObject({ server: z.string(), tool: z.string(), arguments: JsonValue.nullish().catch(null) }),
    duration: CodexDuration.catch(null),
    result: z.unknown().optional(),
  }),
);

/** The `item_completed` payload as Weft writes it: Codex's item form (see store/codex-thread-items.ts). */
export const ItemCompletedEvent = lazySchema(() =>
  CodexItemCompletedEvent.extend({ thread_id: z.string(), turn_id: z.string() }),
);

/**
 * The `event_msg` payloads Weft writes, by `type`: one schema per kind, used to type what the recorder
 * writes (`RolloutEventInput`) and to read it back. Other kinds (Codex's) are read with the schemas above.
 */
export const WrittenEventPayloads = {
  task_started: TurnStartedEvent,
  task_complete: TurnEndedEvent,
  turn_aborted: TurnEndedEvent,
  item_completed: ItemCompletedEvent,
  weft_item_completed: WeftItemCompletedEvent,
  weft_item_fields: WeftItemFieldsEvent,
  weft_approval: WeftApprovalEvent,
  weft_plan_updated: WeftPlanUpdatedEvent,
  weft_turn_diff: WeftTurnDiffEvent,
  weft_hook_completed: WeftHookCompletedEvent,
  error: ErrorEvent,
  token_count: TokenCountEvent,
  thread_name_updated: ThreadNameUpdatedEvent,
  thread_rolled_back: ThreadRolledBackEvent,
  weft_rollback_undone: WeftRollbackUndoneEvent,
  weft_thread_pinned: WeftThreadPinnedEvent,
  weft_thread_group: WeftThreadGroupEvent,
  weft_thread_read_state: WeftThreadReadStateEvent,
  weft_thread_moved: WeftThreadMovedEvent,
} as const;
export type WrittenEventType = keyof typeof WrittenEventPayloads;

/** A schema's input without the index signature a loose object adds: object literals are checked field by field. */
type KnownInput<S extends z.ZodType> = { [K in keyof z.input<S> as string extends K ? never : K]: z.input<S>[K] };

/** An `event_msg` payload as Weft writes it, `type` first. */
export type RolloutEventInput = {
  [K in WrittenEventType]: { type: K } & KnownInput<(typeof WrittenEventPayloads)[K]>;
}[WrittenEventType];

/** The `{type, payload}` of a line as Weft writes it. */
export type RolloutItemInput =
  | { type: 'session_meta'; payload: KnownInput<typeof SessionMetaPayload> & Record<string, unknown> }
  | { type: 'response_item'; payload: z.input<typeof ResponseItem> }
  | { type: 'event_msg'; payload: RolloutEventInput }
  | { type: 'turn_context'; payload: KnownInput<typeof TurnContextPayload> }
  | { type: 'compacted'; payload: KnownInput<typeof CompactedPayload> };

/**
 * Parses a written `event_msg` payload with the schema of its kind. Never throws; `{ok: false}` names the
 * problem (an unknown kind is not an error: it is read as Codex's or skipped).
 */
export function parseWrittenEvent(payload: unknown): { ok: true } | { ok: false; error: string } {
  const type = typeof payload === 'object' && payload !== null && 'type' in payload ? payload.type : undefined;
  if (typeof type !== 'string' || !Object.hasOwn(WrittenEventPayloads, type)) return { ok: true };
  const parsed = WrittenEventPayloads[type as WrittenEventType].safeParse(payload);
  return parsed.success ? { ok: true } : { ok: false, error: describeZodError(parsed.error, 'payload') };
}
