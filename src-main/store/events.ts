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
//   weft_turn_diff      {type, turn_id, diff}                 the turn's aggregated diff as it ended (only
//                                                              when the turn changed files)
//   error               {type, message, codex_error_info: null, turn_id, weft_error: TurnError}
//                       an error that ended a turn (retried errors are not recorded)
//   token_count         {type, info: {total_token_usage, last_token_usage, model_context_window}, rate_limits: null}
//   thread_name_updated {type, thread_id, thread_name}        rename (null = cleared)
//   thread_rolled_back  {type, num_turns}                     the last `num_turns` turns are dropped, from
//                                                              the model history and from the UI turns
//
// Read from Codex rollouts as well: task_started / task_complete (older names of turn_started /
// turn_complete), agent_reasoning, agent_reasoning_raw_content, exec_command_end, patch_apply_end,
// item_completed (plan items), context_compacted, web_search_end, view_image_tool_call, mcp_tool_call_end.
import { z } from 'zod';
import {
  JsonValue,
  ThreadItem,
  ThreadTokenUsage,
  Turn,
  TurnError,
  TurnPlanStep,
  type TokenUsageBreakdown,
} from '../../src-preload/protocol';

/** A Turn as recorded at its start and end: everything but the items. */
export const RecordedTurn = Turn.omit({ items: true });
export type RecordedTurn = z.infer<typeof RecordedTurn>;

const nullishString = z.string().nullish();

export const TurnStartedEvent = z.looseObject({ turn_id: nullishString, weft_turn: RecordedTurn.nullish().catch(null) });
export const TurnEndedEvent = z.looseObject({
  turn_id: nullishString,
  last_agent_message: nullishString,
  reason: z.unknown().optional(),
  weft_turn: RecordedTurn.nullish().catch(null),
});

export const WeftItemCompletedEvent = z.looseObject({ turn_id: z.string(), item: ThreadItem });
export type WeftItemCompletedEvent = z.infer<typeof WeftItemCompletedEvent>;

/** Weft's fields of an item recorded in Codex's form (`item_completed`): merged over what that form gives. */
export const WeftItemFieldsEvent = z.looseObject({
  turn_id: z.string(),
  item_id: z.string(),
  fields: z.record(z.string(), z.unknown()),
});

export const ApprovalKind = z.enum(['command', 'fileChange']);
export type ApprovalKind = z.infer<typeof ApprovalKind>;

/** An approval request and its answer, as the UI showed them. */
export const ApprovalRecord = z.object({
  turnId: z.string(),
  itemId: z.string(),
  kind: ApprovalKind,
  request: JsonValue,
  decision: JsonValue,
});
export type ApprovalRecord = z.infer<typeof ApprovalRecord>;

export const WeftApprovalEvent = z.looseObject({
  turn_id: z.string(),
  item_id: z.string(),
  kind: ApprovalKind,
  request: JsonValue.catch(null),
  decision: JsonValue.catch(null),
});

/** The plan of a turn as `turn/plan/updated` last gave it. */
export const PlanRecord = z.object({ explanation: z.string().nullable(), plan: z.array(TurnPlanStep) });
export type PlanRecord = z.infer<typeof PlanRecord>;

export const WeftPlanUpdatedEvent = z.looseObject({
  turn_id: z.string(),
  explanation: z.string().nullish(),
  plan: z.array(TurnPlanStep),
});

export const WeftTurnDiffEvent = z.looseObject({
  turn_id: z.string(),
  diff: z.string(),
});

export const ErrorEvent = z.looseObject({
  message: z.string(),
  codex_error_info: z.unknown().optional(),
  turn_id: nullishString,
  weft_error: TurnError.nullish().catch(null),
});

const tokens = z.number().int().nonnegative().catch(0).default(0);
const RolloutTokenUsage = z.looseObject({
  input_tokens: tokens,
  cached_input_tokens: tokens,
  output_tokens: tokens,
  reasoning_output_tokens: tokens,
  total_tokens: tokens,
});
type RolloutTokenUsage = z.infer<typeof RolloutTokenUsage>;

export const TokenCountEvent = z.looseObject({
  info: z
    .looseObject({
      total_token_usage: RolloutTokenUsage,
      last_token_usage: RolloutTokenUsage,
      model_context_window: z.number().int().nonnegative().nullish(),
    })
    .nullish(),
});

export const ThreadNameUpdatedEvent = z.looseObject({ thread_id: nullishString, thread_name: z.string().nullish() });
export const ThreadRolledBackEvent = z.looseObject({ num_turns: z.number().int().nonnegative() });

export const UserMessageEvent = z.looseObject({
  message: z.string(),
  images: z.array(z.string()).nullish(),
  local_images: z.array(z.string()).nullish(),
  weft_mirror: z.boolean().optional(),
});
export const AgentMessageEvent = z.looseObject({
  message: z.string(),
  phase: z.unknown().optional(),
  weft_mirror: z.boolean().optional(),
});
export const AgentReasoningEvent = z.looseObject({ text: z.string() });

/** Codex writes durations as `{secs, nanos}` (Rust's Duration), some versions as a string or milliseconds. */
export const CodexDuration = z.union([z.looseObject({ secs: z.number(), nanos: z.number() }), z.number(), z.string()]).nullish();

export const ExecCommandEndEvent = z.looseObject({
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
});

export const PatchApplyEndEvent = z.looseObject({
  call_id: z.string(),
  success: z.boolean().nullish(),
  status: nullishString,
  changes: z.record(z.string(), z.unknown()).nullish().catch(null),
});

export const CodexItemCompletedEvent = z.looseObject({
  item: z.looseObject({ type: z.string(), id: nullishString, text: nullishString }),
});
export const WebSearchEndEvent = z.looseObject({ call_id: z.string(), query: nullishString });
export const ViewImageEvent = z.looseObject({ call_id: z.string(), path: z.string() });
export const McpToolCallEndEvent = z.looseObject({
  call_id: z.string(),
  invocation: z.looseObject({ server: z.string(), tool: z.string(), arguments: JsonValue.nullish().catch(null) }),
  duration: CodexDuration.catch(null),
  result: z.unknown().optional(),
});

function breakdown(u: RolloutTokenUsage): TokenUsageBreakdown {
  return {
    totalTokens: u.total_tokens,
    inputTokens: u.input_tokens,
    cachedInputTokens: u.cached_input_tokens,
    outputTokens: u.output_tokens,
    reasoningOutputTokens: u.reasoning_output_tokens,
  };
}

/** The thread's token usage from a `token_count` payload, or null when it carries none. */
export function tokenUsageFromEvent(payload: unknown): ThreadTokenUsage | null {
  const parsed = TokenCountEvent.safeParse(payload);
  const info = parsed.success ? parsed.data.info : null;
  if (!info) return null;
  const usage = {
    total: breakdown(info.total_token_usage),
    last: breakdown(info.last_token_usage),
    modelContextWindow: info.model_context_window ?? null,
  };
  return ThreadTokenUsage.safeParse(usage).success ? usage : null;
}

function snakeUsage(b: TokenUsageBreakdown): Record<string, number> {
  return {
    input_tokens: b.inputTokens,
    cached_input_tokens: b.cachedInputTokens,
    output_tokens: b.outputTokens,
    reasoning_output_tokens: b.reasoningOutputTokens,
    total_tokens: b.totalTokens,
  };
}

/** A `token_count` payload (Codex's shape) for the thread's usage. */
export function tokenCountPayload(usage: ThreadTokenUsage): Record<string, unknown> {
  return {
    type: 'token_count',
    info: {
      total_token_usage: snakeUsage(usage.total),
      last_token_usage: snakeUsage(usage.last),
      model_context_window: usage.modelContextWindow,
    },
    rate_limits: null,
  };
}

/** Milliseconds of a Codex duration, or null when absent or unreadable. */
export function durationMs(value: z.infer<typeof CodexDuration>): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Math.max(0, Math.round(value));
  if (typeof value === 'string') {
    const m = /^([\d.]+)\s*(ms|s)?$/.exec(value.trim());
    if (!m || m[1] === undefined) return null;
    const n = Number(m[1]);
    return Number.isFinite(n) ? Math.round(m[2] === 'ms' ? n : n * 1000) : null;
  }
  return Math.max(0, Math.round(value.secs * 1000 + value.nanos / 1e6));
}

/** Codex's snake_case error kind ("context_window_exceeded", or `{http_connection_failed: …}`) in camelCase. */
export function codexErrorInfoName(value: unknown): string | null {
  let name: string | undefined;
  if (typeof value === 'string') name = value;
  else if (value !== null && typeof value === 'object') name = Object.keys(value)[0];
  if (name === undefined || name === '') return null;
  return name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}
