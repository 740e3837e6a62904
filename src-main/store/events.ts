// `event_msg` payloads: the schemas (one per kind) live with the rest of the rollout format in
// src-preload/protocol/rollout.ts; this file keeps what the store computes from them.
import type { z } from 'zod';
import {
  ThreadTokenUsage,
  type CodexDuration,
  type RolloutEventInput,
  type RolloutTokenUsage,
  type TokenUsageBreakdown,
  type WeftTokenCost,
  TokenCountEvent,
} from '../../src-preload/protocol';

export {
  RecordedTurn,
  TurnStartedEvent,
  TurnEndedEvent,
  WeftItemCompletedEvent,
  WeftItemFieldsEvent,
  ApprovalKind,
  ApprovalRecord,
  WeftApprovalEvent,
  PlanRecord,
  WeftPlanUpdatedEvent,
  WeftTurnDiffEvent,
  WeftHookCompletedEvent,
  ErrorEvent,
  ThreadRolledBackEvent,
  WeftRollbackUndoneEvent,
  UserMessageEvent,
  AgentMessageEvent,
  AgentReasoningEvent,
  CodexDuration,
  ExecCommandEndEvent,
  PatchApplyEndEvent,
  CodexItemCompletedEvent,
  WebSearchEndEvent,
  ViewImageEvent,
  McpToolCallEndEvent,
} from '../../src-preload/protocol';

function breakdown(u: RolloutTokenUsage): TokenUsageBreakdown {
  return {
    totalTokens: u.total_tokens,
    inputTokens: u.input_tokens,
    cachedInputTokens: u.cached_input_tokens,
    ...(u.cache_write_input_tokens ? { cacheWriteInputTokens: u.cache_write_input_tokens } : {}),
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

function snakeUsage(b: TokenUsageBreakdown): RolloutTokenUsage {
  return {
    input_tokens: b.inputTokens,
    cached_input_tokens: b.cachedInputTokens,
    ...(b.cacheWriteInputTokens ? { cache_write_input_tokens: b.cacheWriteInputTokens } : {}),
    output_tokens: b.outputTokens,
    reasoning_output_tokens: b.reasoningOutputTokens,
    total_tokens: b.totalTokens,
  };
}

/**
 * A `token_count` payload (Codex's shape) for the thread's usage, with Weft's `weft_model` and
 * `weft_usage_by_model` when the cost is known.
 */
export function tokenCountPayload(
  usage: ThreadTokenUsage,
  cost?: WeftTokenCost,
): Extract<RolloutEventInput, { type: 'token_count' }> {
  return {
    type: 'token_count',
    info: {
      total_token_usage: snakeUsage(usage.total),
      last_token_usage: snakeUsage(usage.last),
      model_context_window: usage.modelContextWindow,
    },
    rate_limits: null,
    ...(cost === undefined
      ? {}
      : {
          weft_model: cost.model,
          weft_usage_by_model: Object.fromEntries(cost.thread.byModel.map((m) => [m.model, snakeUsage(m.usage)])),
        }),
  };
}

/** `total_token_usage` by model from a `token_count` payload (Weft's), or null when it has none. */
export function usageByModelFromEvent(payload: unknown): Record<string, TokenUsageBreakdown> | null {
  const parsed = TokenCountEvent.safeParse(payload);
  const byModel = parsed.success ? parsed.data.weft_usage_by_model : undefined;
  if (byModel === undefined) return null;
  return Object.fromEntries(Object.entries(byModel).map(([model, u]) => [model, breakdown(u)]));
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
