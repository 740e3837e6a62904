// What each kind of rollout event means, in one table that every reader of rollouts goes by: the line
// sniffer (line-reader.ts) knows the kinds from it, the outline (outline.ts) builds turns, rollbacks and the
// thread's attributes with it, and the index scan (index-scan.ts) takes the outline's facts and the message
// text the table marks, so the index and a read of the thread cannot disagree. A kind not in the table
// means nothing to any reader (Codex's newer events, say).
//
// A thread's persisted attributes (its name, whether it is pinned) are set by attribute events, the last
// one of a kind winning. A new attribute is: its event's schema in `WrittenEventPayloads` (rollout.ts), its
// field and default in `ThreadAttributes`, its reducer entry in `THREAD_EVENTS`, and the Thread field it
// shows as in `attributeFields` (and, when a fork should not inherit it, in `forkAttributeEvents`). The
// recorder writes it (`recordAttribute`), every reader reads it back through here, and the index keeps it
// with the others in one column, so it needs no migration (see index-db.ts). docs/HOW-TO.md walks through
// one (pinned threads).
import { z } from 'zod';
import {
  ThreadUnreadPosition,
  WrittenEventPayloads,
  type RolloutEventInput,
  type Thread,
} from '../../src-preload/protocol';

/**
 * Whether the thread was read since its last turn ended: where its unread part begins (null: read) and how
 * many read-state marks it has (the revision clients guard their marks with; 0: never marked).
 */
const ReadStateAttribute = z.object({ firstUnread: ThreadUnreadPosition.nullable(), marks: z.number().int() });
export type ReadStateAttribute = z.infer<typeof ReadStateAttribute>;

/** The thread's persisted attributes. A field missing or unreadable (an index row of an older Weft) is its default. */
export const ThreadAttributes = z.object({
  name: z.string().nullable().catch(null),
  pinned: z.boolean().catch(false),
  group: z.string().nullable().catch(null),
  readState: ReadStateAttribute.catch({ firstUnread: null, marks: 0 }),
  /** Where a Handoff moved the thread, and its last turn then (null: never moved). */
  moved: z.object({ cwd: z.string(), afterTurnId: z.string().nullable() }).nullable().catch(null),
});
export type ThreadAttributes = z.infer<typeof ThreadAttributes>;

export const DEFAULT_ATTRIBUTES: ThreadAttributes = ThreadAttributes.parse({});

/** The attributes' names: an index made when they were other is rescanned (see index-db.ts). */
export const ATTRIBUTE_KEYS = Object.keys(ThreadAttributes.shape).join(',');

/**
 * The Thread fields the attributes show as, every one of them: a Weft-only field at its default is
 * undefined (left out on the wire, as Codex's clients expect), so the fields patch a Thread whole.
 */
export function attributeFields(
  a: ThreadAttributes,
): Pick<Thread, 'name' | 'weftPinned' | 'weftGroupId' | 'weftReadState'> {
  return {
    name: a.name,
    weftPinned: a.pinned ? true : undefined,
    weftGroupId: a.group ?? undefined,
    weftReadState: readStateOf(a),
  };
}

/**
 * The folder a moved thread works in: where the Handoff moved it, unless a turn after the move recorded
 * another (`lastContext`: the thread's last turn context, when known). Null: the thread was never moved.
 */
export function movedCwd(
  a: ThreadAttributes,
  lastContext?: { turnId: string | null; cwd: string } | null,
): string | null {
  if (a.moved === null) return null;
  if (lastContext && lastContext.turnId !== a.moved.afterTurnId) return lastContext.cwd;
  return a.moved.cwd;
}

/** The protocol's read state of the attributes; undefined when the thread was never marked (read, revision "0"). */
export function readStateOf(a: ThreadAttributes): Thread['weftReadState'] {
  const { firstUnread, marks } = a.readState;
  return marks === 0 ? undefined : { firstUnread, revision: String(marks) };
}

/**
 * The events a fork writes after the lines it copied, so it starts with the attributes of a new thread
 * where it should: a fork keeps its source's name (the UI marks it as a fork) but is not pinned, and is
 * not one of its source's group (the group is the threads started together).
 */
export function forkAttributeEvents(a: ThreadAttributes): AttributeEventInput[] {
  const events: AttributeEventInput[] = a.pinned ? [{ type: 'weft_thread_pinned', pinned: false }] : [];
  if (a.group !== null) events.push({ type: 'weft_thread_group', group_id: null });
  // A fork is made by someone looking at its source: it starts read.
  if (a.readState.firstUnread !== null) events.push({ type: 'weft_thread_read_state', mark: 'read' });
  return events;
}

/** Where a line's message text is, for search and the thread's preview. */
export type MessageText = 'userMessage' | 'agentMessage' | 'codexItem';

export type EventMeaning =
  /** Opens a turn (its `turn_id` names it). */
  | { kind: 'turnStart' }
  /** Ends the open turn: interrupted, else completed (failed when it recorded an error). */
  | { kind: 'turnEnd'; interrupted: boolean }
  /** Drops the last `num_turns` turns, from the UI turns and the model history. */
  | { kind: 'rollback' }
  /** Brings back the turns the last rollback dropped. */
  | { kind: 'rollbackUndone' }
  /** The thread's token usage so far: the last one counts. */
  | { kind: 'tokenCount' }
  /** The error that ended a turn: an item of the turn, and the turn's error. */
  | { kind: 'turnError' }
  /**
   * Becomes an item, approval, plan or diff of its turn (a `weft_mirror` copy does not). `text`: the line
   * holds a message the thread is searched by (a `codexItem` only when its item is a message).
   */
  | { kind: 'item'; text: MessageText | null }
  /**
   * Sets attributes of the thread. `quiet`: not a change the thread's `updatedAt` follows (reading a thread
   * does not move it up the lists).
   */
  | { kind: 'attribute'; quiet: boolean; apply(attributes: ThreadAttributes, payload: unknown): ThreadAttributes }
  /** Known, and nothing to the readers. */
  | { kind: 'none' };

const item = (text: MessageText | null = null) => ({ kind: 'item', text }) as const;

/** An attribute event read with its schema; an unreadable one changes nothing. */
function attribute<S extends z.ZodType>(
  schema: S,
  set: (a: ThreadAttributes, event: z.output<S>) => ThreadAttributes,
  quiet = false,
) {
  return {
    kind: 'attribute',
    quiet,
    apply(attributes: ThreadAttributes, payload: unknown): ThreadAttributes {
      const event = schema.safeParse(payload);
      return event.success ? set(attributes, event.data) : attributes;
    },
  } as const;
}

/** THE table: every event kind a reader knows, by the payload's `type`. */
export const THREAD_EVENTS = {
  turn_started: { kind: 'turnStart' },
  task_started: { kind: 'turnStart' },
  turn_complete: { kind: 'turnEnd', interrupted: false },
  task_complete: { kind: 'turnEnd', interrupted: false },
  turn_aborted: { kind: 'turnEnd', interrupted: true },
  thread_rolled_back: { kind: 'rollback' },
  weft_rollback_undone: { kind: 'rollbackUndone' },
  token_count: { kind: 'tokenCount' },
  error: { kind: 'turnError' },
  user_message: item('userMessage'),
  agent_message: item('agentMessage'),
  item_completed: item('codexItem'),
  agent_reasoning: item(),
  agent_reasoning_raw_content: item(),
  exec_command_end: item(),
  patch_apply_end: item(),
  context_compacted: item(),
  web_search_end: item(),
  view_image_tool_call: item(),
  mcp_tool_call_end: item(),
  weft_item_completed: item(),
  weft_item_fields: item(),
  weft_approval: item(),
  weft_plan_updated: item(),
  weft_turn_diff: item(),
  weft_hook_completed: item(),
  thread_name_updated: attribute(WrittenEventPayloads.thread_name_updated, (a, e) => ({
    ...a,
    name: e.thread_name ?? null,
  })),
  weft_thread_pinned: attribute(WrittenEventPayloads.weft_thread_pinned, (a, e) => ({ ...a, pinned: e.pinned })),
  weft_thread_group: attribute(WrittenEventPayloads.weft_thread_group, (a, e) => ({ ...a, group: e.group_id })),
  weft_thread_read_state: attribute(
    WrittenEventPayloads.weft_thread_read_state,
    (a, e) => {
      const now = a.readState.firstUnread;
      const firstUnread: ThreadUnreadPosition | null =
        e.mark === 'read'
          ? null
          : e.mark === 'unread'
            ? { type: 'threadStart' }
            : (now ?? (e.ended_turn_id == null ? { type: 'threadStart' } : { type: 'turn', turnId: e.ended_turn_id }));
      return { ...a, readState: { firstUnread, marks: a.readState.marks + 1 } };
    },
    true,
  ),
  weft_thread_moved: attribute(WrittenEventPayloads.weft_thread_moved, (a, e) => ({
    ...a,
    moved: { cwd: e.cwd, afterTurnId: e.after_turn_id },
  })),
  thread_settings_applied: { kind: 'none' },
} as const satisfies Record<string, EventMeaning>;

type Table = typeof THREAD_EVENTS;

/** The kinds of the attribute events. */
export type AttributeEventType = {
  [K in keyof Table]: Table[K] extends { kind: 'attribute' } ? K : never;
}[keyof Table];

/** An attribute event as the recorder writes it. */
export type AttributeEventInput = Extract<RolloutEventInput, { type: AttributeEventType }>;

/** Every kind in the table (the sniffer's known event names). */
export const THREAD_EVENT_KINDS: readonly string[] = Object.keys(THREAD_EVENTS);

const MEANINGS: ReadonlyMap<string, EventMeaning> = new Map(Object.entries(THREAD_EVENTS));
const NONE: EventMeaning = { kind: 'none' };

/** What an event of this kind means (`none` for a kind the table does not know). */
export function eventMeaning(type: string): EventMeaning {
  return MEANINGS.get(type) ?? NONE;
}

/** Whether an `event_msg` of this kind changes the thread as its `updatedAt` tells (all but quiet attributes). */
export function movesUpdatedAt(type: string): boolean {
  const meaning = eventMeaning(type);
  return meaning.kind !== 'attribute' || !meaning.quiet;
}

/** The attributes after an attribute event. */
export function applyAttributeEvent(attributes: ThreadAttributes, event: AttributeEventInput): ThreadAttributes {
  const meaning = eventMeaning(event.type);
  return meaning.kind === 'attribute' ? meaning.apply(attributes, event) : attributes;
}

export function sameAttributes(a: ThreadAttributes, b: ThreadAttributes): boolean {
  return JSON.stringify(ThreadAttributes.parse(a)) === JSON.stringify(ThreadAttributes.parse(b));
}

/** The attributes as the index keeps them (one JSON column). */
export function encodeAttributes(a: ThreadAttributes): string {
  return JSON.stringify(a);
}

/** The attributes of an index row's column; unreadable ones are the defaults. */
export function decodeAttributes(text: string): ThreadAttributes {
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // the defaults, below
  }
  const parsed = ThreadAttributes.safeParse(json);
  return parsed.success ? parsed.data : DEFAULT_ATTRIBUTES;
}
