// Tokens used per day and model, read from the rollouts themselves: every `token_count` line has the time
// of the request it follows and the thread's running total, so a day's tokens are the growth of that total
// over the day's lines. Nothing is stored besides the rollouts (the index only says which threads changed
// since a day): per-day totals survive restarts, reindexing and a deleted index the same way threads do.
//
// A fork's file begins with a copy of its parent's lines (their times are from before the fork): those
// tokens are the parent's, so only the lines written at or after the fork's own `session_meta` count; the
// running total still follows the copied lines, so the fork's first count adds only its own growth.
// The model of a count is Weft's `weft_model`, else the model of the turn_context before it.
import type { TokenUsageBreakdown } from '../../src-preload/protocol';
import { SessionMetaPayload, TokenCountEvent } from '../../src-preload/protocol';
import { Sniffer, lineSteps, type RawLine } from './line-reader';
import { parseLine } from './line-parse';
import { closeRollout, openRollout, sizeOf, type RolloutFd } from './rollout-source';
import { recordedTurnContext } from './turn-context';
import { yieldToLoop } from '../util/slicer';

/** day (`YYYY-MM-DD`) → model → tokens. */
export type UsageByDay = Map<string, Map<string, TokenUsageBreakdown>>;

const FIELDS = ['totalTokens', 'inputTokens', 'cachedInputTokens', 'outputTokens', 'reasoningOutputTokens'] as const;

/** Usage with every count present (the optional cache writes as 0), so counts add up field by field. */
type Counts = Required<TokenUsageBreakdown>;
const COUNTS = [...FIELDS, 'cacheWriteInputTokens'] as const;

function fromRollout(u: {
  total_tokens: number;
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens?: number | undefined;
  output_tokens: number;
  reasoning_output_tokens: number;
}): Counts {
  return {
    totalTokens: u.total_tokens,
    inputTokens: u.input_tokens,
    cachedInputTokens: u.cached_input_tokens,
    cacheWriteInputTokens: u.cache_write_input_tokens ?? 0,
    outputTokens: u.output_tokens,
    reasoningOutputTokens: u.reasoning_output_tokens,
  };
}

/** The protocol's usage of some counts: cache writes only when there were some. */
function usageOf(c: Counts): TokenUsageBreakdown {
  const { cacheWriteInputTokens, ...rest } = c;
  return cacheWriteInputTokens > 0 ? { ...rest, cacheWriteInputTokens } : rest;
}

/**
 * What a count added since the previous one: the growth of the running total; its `last` when the total
 * went back (a total that restarted), nothing when it did not change (a count repeated).
 */
function growth(total: Counts, last: Counts, previous: Counts | null): Counts {
  if (previous === null) return last;
  if (COUNTS.some((f) => total[f] < previous[f])) return last;
  const grown = { ...total };
  for (const f of COUNTS) grown[f] = total[f] - previous[f];
  return grown;
}

/** `YYYY-MM-DD` of a time in the given zone (the server's by default). */
export function localDay(ms: number, timeZone?: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(new Date(ms));
  const part = (type: string): string => parts.find((p) => p.type === type)?.value ?? '00';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

function add(into: UsageByDay, day: string, model: string, usage: TokenUsageBreakdown): void {
  if (usage.totalTokens === 0 && usage.inputTokens === 0 && usage.outputTokens === 0) return;
  const models = into.get(day) ?? new Map<string, TokenUsageBreakdown>();
  into.set(day, models);
  const had = models.get(model);
  if (had === undefined) {
    models.set(model, { ...usage });
    return;
  }
  for (const f of FIELDS) had[f] += usage[f];
  const writes = (had.cacheWriteInputTokens ?? 0) + (usage.cacheWriteInputTokens ?? 0);
  if (writes > 0) had.cacheWriteInputTokens = writes;
}

/**
 * A stepwise read of one rollout (it pauses after each chunk), adding its tokens of lines at or after
 * `sinceMs` to `into`. `timeZone` cuts the days (default: the server's).
 */
export function* rolloutUsageSteps(
  fd: RolloutFd,
  into: UsageByDay,
  sinceMs: number,
  timeZone?: string,
): Generator<void, void> {
  const sniffer = new Sniffer();
  let model = 'unknown';
  let previous: Counts | null = null;
  /** Lines before this time are a fork's copy of its parent. */
  let ownFromMs = Number.NEGATIVE_INFINITY;
  let first = true;
  const onLine = (raw: RawLine): void => {
    if (raw.end === raw.start) return;
    const isMeta = first;
    first = false;
    if (!isMeta && sniffer.sniff(raw.buf, raw.start, raw.end)) {
      const interesting =
        sniffer.type === 'turn_context' || (sniffer.type === 'event_msg' && sniffer.event === 'token_count');
      if (!interesting) return;
    }
    const parsed = parseLine(raw);
    if (!parsed.ok) return;
    const { type, payload, timestamp } = parsed.line;
    if (type === 'session_meta') {
      const meta = SessionMetaPayload.safeParse(payload);
      if (isMeta && meta.success && meta.data.forked_from_id) ownFromMs = Date.parse(timestamp) || ownFromMs;
      return;
    }
    if (type === 'turn_context') {
      model = recordedTurnContext(payload)?.model ?? model;
      return;
    }
    if (type !== 'event_msg') return;
    const count = TokenCountEvent.safeParse(payload);
    if (!count.success || !count.data.info) return;
    const total = fromRollout(count.data.info.total_token_usage);
    const added = growth(total, fromRollout(count.data.info.last_token_usage), previous);
    previous = total;
    const ms = Date.parse(timestamp);
    if (!Number.isFinite(ms) || ms < sinceMs || ms < ownFromMs) return;
    add(into, localDay(ms, timeZone), count.data.weft_model ?? model, usageOf(added));
  };
  yield* lineSteps(fd, 0, onLine, { sizeHint: sizeOf(fd) });
}

/** How long one read may hold the event loop before it gives it back (between chunks). */
const SLICE_MS = 15;

/**
 * The tokens per day and model of the rollouts at `paths` since `sinceMs`, giving the event loop back
 * between chunks. A file that cannot be read is left out and named in `skipped`.
 */
export async function usageByDay(
  paths: readonly string[],
  sinceMs: number,
  timeZone?: string,
): Promise<{ days: UsageByDay; threadsByDay: Map<string, number>; skipped: string[] }> {
  const days: UsageByDay = new Map();
  const threadsByDay = new Map<string, number>();
  const skipped: string[] = [];
  let sliceStart = performance.now();
  for (const path of paths) {
    let fd: RolloutFd;
    try {
      fd = openRollout(path).fd;
    } catch {
      skipped.push(path);
      continue;
    }
    const own: UsageByDay = new Map();
    try {
      const steps = rolloutUsageSteps(fd, own, sinceMs, timeZone);
      for (;;) {
        const step = steps.next();
        if (step.done) break;
        if (performance.now() - sliceStart >= SLICE_MS) {
          await yieldToLoop();
          sliceStart = performance.now();
        }
      }
    } catch {
      skipped.push(path);
      continue;
    } finally {
      closeRollout(fd);
    }
    for (const [day, models] of own) {
      threadsByDay.set(day, (threadsByDay.get(day) ?? 0) + 1);
      for (const [model, usage] of models) add(days, day, model, usage);
    }
  }
  return { days, threadsByDay, skipped };
}
