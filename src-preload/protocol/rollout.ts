// Rollout files: one JSON object per line, `{timestamp, type, payload}`, Codex's format, so Weft reads
// Codex threads and Codex reads Weft's. Payloads are loose (unnamed fields are kept); a line of a `type`
// this version does not know parses as `UnknownRolloutItem` and is meant to be kept and ignored.
import { z } from 'zod';
import { describeZodError } from './errors';
import { unknownTag } from './open-union';
import { ResponseItem } from './response-items';

/** Git state at session start; each field absent or null when unknown. */
export const RolloutGitInfo = z.looseObject({
  commit_hash: z.string().nullish(),
  branch: z.string().nullish(),
  repository_url: z.string().nullish(),
});
export type RolloutGitInfo = z.infer<typeof RolloutGitInfo>;

/**
 * First line of every rollout. `id` is the thread id; `forked_from_id` the thread it was forked from;
 * `timestamp` RFC 3339; `source` a string such as "cli" or "vscode" (Codex also writes objects for
 * sub-agents); `base_instructions` null/absent = the model's built-in instructions. Older writers may omit
 * `originator`, `cli_version`, `source` (read as "", "", "unknown") and `model_provider`.
 */
export const SessionMetaPayload = z.looseObject({
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
});
export type SessionMetaPayload = z.infer<typeof SessionMetaPayload>;

/**
 * The settings a turn ran with, written once per user turn (and after mid-turn compaction). Values are
 * kept as written: `approval_policy`, `effort`, `summary` are strings as in config.toml ("on-request",
 * "high", "auto"); `sandbox_policy` is the core's snake_case object (e.g. `{type: "workspace-write",
 * writable_roots: […], network_access: false}`), not the camelCase `SandboxPolicy` of the app protocol.
 */
export const TurnContextPayload = z.looseObject({
  turn_id: z.string().nullish(),
  cwd: z.string(),
  approval_policy: z.string(),
  sandbox_policy: z.record(z.string(), z.unknown()),
  model: z.string(),
  effort: z.string().nullish(),
  summary: z.string().nullish(),
  user_instructions: z.string().nullish(),
  developer_instructions: z.string().nullish(),
});
export type TurnContextPayload = z.infer<typeof TurnContextPayload>;

/**
 * A compaction. `replacement_history` (when present) is the complete model-visible history from here on;
 * older writers give only `message`, the summary text.
 */
export const CompactedPayload = z.looseObject({
  message: z.string(),
  replacement_history: z.array(ResponseItem).nullish(),
});
export type CompactedPayload = z.infer<typeof CompactedPayload>;

/** A core event (`user_message`, `agent_message`, `token_count`, `turn_started`, …; snake_case tags). */
export const EventMsgPayload = z.looseObject({ type: z.string() });
export type EventMsgPayload = z.infer<typeof EventMsgPayload>;

export const SessionMetaRolloutItem = z.object({ type: z.literal('session_meta'), payload: SessionMetaPayload });
export const ResponseItemRolloutItem = z.object({ type: z.literal('response_item'), payload: ResponseItem });
export const EventMsgRolloutItem = z.object({ type: z.literal('event_msg'), payload: EventMsgPayload });
export const TurnContextRolloutItem = z.object({ type: z.literal('turn_context'), payload: TurnContextPayload });
export const CompactedRolloutItem = z.object({ type: z.literal('compacted'), payload: CompactedPayload });

export const KnownRolloutItem = z.discriminatedUnion('type', [
  SessionMetaRolloutItem,
  ResponseItemRolloutItem,
  EventMsgRolloutItem,
  TurnContextRolloutItem,
  CompactedRolloutItem,
]);
export type KnownRolloutItem = z.infer<typeof KnownRolloutItem>;
export const KNOWN_ROLLOUT_ITEM_TYPES = KnownRolloutItem.options.map((option) => option.shape.type.value);

/** A line kind this version does not know; keep it when rewriting a file, skip it when reading history. */
export const UnknownRolloutItem = z.object({
  type: unknownTag(KNOWN_ROLLOUT_ITEM_TYPES, 'UnknownRolloutItemType'),
  payload: z.unknown(),
});
export type UnknownRolloutItem = z.infer<typeof UnknownRolloutItem>;

/** The `{type, payload}` part of a line. */
export const RolloutItem = z.union([KnownRolloutItem, UnknownRolloutItem]);
export type RolloutItem = z.infer<typeof RolloutItem>;

/**
 * One line: `timestamp` is UTC RFC 3339 with milliseconds, e.g. "2025-05-07T17:24:21.123Z". Narrow with
 * `isKnownRolloutLine` before switching on `type` (see open-union.ts).
 */
export const RolloutLine = z.intersection(z.object({ timestamp: z.string() }), RolloutItem);
export type RolloutLine = z.infer<typeof RolloutLine>;
export type KnownRolloutLine = { timestamp: string } & KnownRolloutItem;

const knownRolloutItemTypes: ReadonlySet<string> = new Set(KNOWN_ROLLOUT_ITEM_TYPES);

export function isKnownRolloutItem(item: RolloutItem): item is KnownRolloutItem {
  return knownRolloutItemTypes.has(item.type);
}

export function isKnownRolloutLine(line: RolloutLine): line is KnownRolloutLine {
  return knownRolloutItemTypes.has(line.type);
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
