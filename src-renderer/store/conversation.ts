// Conversations: building one from a thread snapshot, and the path-copying edits the notification
// reducer makes to turns and items.
import { diffFileCount, type Thread, type ThreadItem, type Turn } from '../../src-preload/protocol';
import { fresh, own } from './draft';
import { recordedHookRuns } from './hook-runs';
import type { Draft } from './draft';
import { EMPTY_OUTPUT, outputText, replaceOutput } from './output-tail';
import { OUTPUT_TAIL_CHARS } from './state';
import type { AppData, Conversation, ItemEntry, OutputTail, TurnView } from './state';

export function tailOf(text: string): string {
  return text.length > OUTPUT_TAIL_CHARS ? text.slice(text.length - OUTPUT_TAIL_CHARS) : text;
}

/**
 * The entry for a finished (`completed`) or running item. A command's `aggregatedOutput` moves into the
 * bounded `output` tail; `previous` output is kept when the item brings none.
 */
export function entryFor(item: ThreadItem, completed: boolean, previous: OutputTail | null = null): ItemEntry {
  if (item.type !== 'commandExecution') return { item, completed, output: null };
  const full = item.aggregatedOutput;
  let output = previous ?? EMPTY_OUTPUT;
  if (full !== null && !(output.total === full.length && outputText(output) === tailOf(full)))
    output = replaceOutput(output, full);
  return { item: { ...item, aggregatedOutput: null }, completed, output };
}

/** Whether two entries show the same thing (used to keep the old object when a replay changes nothing). */
export function sameEntry(a: ItemEntry, b: ItemEntry): boolean {
  if (a.completed !== b.completed) return false;
  if (a.output !== b.output && (a.output?.total !== b.output?.total || a.output?.epoch !== b.output?.epoch))
    return false;
  return JSON.stringify(a.item) === JSON.stringify(b.item);
}

export function turnViewFrom(turn: Turn, previous?: TurnView): TurnView {
  const running = turn.status === 'inProgress';
  const items: Record<string, ItemEntry> = {};
  const itemIds: string[] = [];
  for (const item of turn.items) {
    if (items[item.id] === undefined) itemIds.push(item.id);
    const before = previous?.items[item.id];
    const entry = entryFor(item, !running, before?.output ?? null);
    items[item.id] = before !== undefined && sameEntry(before, entry) ? before : entry;
  }
  if (previous !== undefined) {
    for (const id of previous.itemIds) {
      const kept = previous.items[id];
      if (items[id] === undefined && kept !== undefined) {
        itemIds.push(id);
        items[id] = kept;
      }
    }
  }
  return {
    id: turn.id,
    status: turn.status,
    error: turn.error,
    startedAt: turn.startedAt,
    completedAt: turn.completedAt,
    durationMs: turn.durationMs,
    itemIds,
    items,
    ...diffOf(previous, turn),
    plan: previous?.plan ?? null,
    notices: running ? (previous?.notices ?? []) : (previous?.notices ?? []).filter((n) => n.kind !== 'retry'),
    // Live, the notifications keep them; a turn read from disk brings the ones recorded.
    hooks: previous?.hooks ?? recordedHookRuns(turn.weftHookRuns),
  };
}

/**
 * A conversation from a thread read with its turns (resume, fork, read). `olderTurnsCursor`: the turns
 * are the newest of a long thread and this pages the older ones.
 */
export function conversationFromThread(thread: Thread, olderTurnsCursor: string | null = null): Conversation {
  const turns: Record<string, TurnView> = {};
  const turnIds: string[] = [];
  for (const turn of thread.turns) {
    if (turns[turn.id] === undefined) turnIds.push(turn.id);
    turns[turn.id] = turnViewFrom(turn);
  }
  return { threadId: thread.id, shape: 0, turnIds, turns, tokenUsage: null, olderTurnsCursor };
}

/**
 * `conversation` with a page of older turns (oldest first) put before its first turn, and the cursor of
 * the page before those. Turns it already has are left as they are.
 */
export function withOlderTurns(conversation: Conversation, page: readonly Turn[], cursor: string | null): Conversation {
  const turns = { ...conversation.turns };
  const older: string[] = [];
  for (const turn of page) {
    if (turns[turn.id] !== undefined) continue;
    turns[turn.id] = turnViewFrom(turn);
    older.push(turn.id);
  }
  return {
    ...conversation,
    turns,
    turnIds: [...older, ...conversation.turnIds],
    shape: conversation.shape + 1,
    olderTurnsCursor: cursor,
  };
}

/**
 * `next` with the hook runs `previous` showed for its turns: they come only as notifications (a thread read
 * again does not carry them), so reading a thread while it is shown keeps them.
 */
function keepingHookRuns(next: Conversation, previous: Conversation | undefined): Conversation {
  if (previous === undefined) return next;
  let turns: Record<string, TurnView> | null = null;
  for (const id of next.turnIds) {
    const shown = previous.turns[id]?.hooks ?? [];
    const turn = next.turns[id];
    if (turn === undefined || shown.length === 0 || turn.hooks.length > 0) continue;
    turns ??= { ...next.turns };
    turns[id] = { ...turn, hooks: shown };
  }
  return turns === null ? next : { ...next, turns };
}

/**
 * `next` (the thread read again: its newest turns) keeping the older turns `previous` had already loaded
 * before `next`'s first turn, and their cursor, so that reading a thread again never hides what was shown.
 */
export function keepingOlderTurns(read: Conversation, previous: Conversation | undefined): Conversation {
  const next = keepingHookRuns(read, previous);
  const first = next.turnIds[0];
  if (previous === undefined || first === undefined || next.olderTurnsCursor === null) return next;
  const at = previous.turnIds.indexOf(first);
  if (at <= 0) return next;
  const turns = { ...next.turns };
  const older = previous.turnIds.slice(0, at);
  for (const id of older) {
    const turn = previous.turns[id];
    if (turn !== undefined) turns[id] = turn;
  }
  return { ...next, turns, turnIds: [...older, ...next.turnIds], olderTurnsCursor: previous.olderTurnsCursor };
}

/**
 * A turn's diff: live, the notifications keep it current, so the one the page has wins, unless the server
 * said it changed since (stale) and the read brings it; else the one the read brings.
 */
function diffOf(
  previous: TurnView | undefined,
  turn: Turn,
): Pick<TurnView, 'diff' | 'diffCut' | 'diffFiles' | 'diffStale'> {
  const kept = previous !== undefined && (previous.diff !== null || previous.diffStale);
  if (kept && !(previous.diffStale && turn.weftDiff !== undefined)) {
    return {
      diff: previous.diff,
      diffCut: previous.diffCut,
      diffFiles: previous.diffFiles,
      diffStale: previous.diffStale,
    };
  }
  const diff = turn.weftDiff ?? null;
  const diffCut = turn.weftDiffCut ?? null;
  return { diff, diffCut, diffFiles: diffCut?.files ?? (diff === null ? 0 : diffFileCount(diff)), diffStale: false };
}

export function emptyTurn(id: string): TurnView {
  return {
    id,
    status: 'inProgress',
    error: null,
    startedAt: null,
    completedAt: null,
    durationMs: null,
    itemIds: [],
    items: {},
    diff: null,
    diffCut: null,
    diffFiles: 0,
    diffStale: false,
    plan: null,
    notices: [],
    hooks: [],
  };
}

/** A fresh (mutable in this batch) conversation on a fresh state. */
export function ownConversation(
  draft: Draft,
  state: AppData,
  threadId: string,
): { state: AppData; conversation: Conversation } | null {
  const conversation = state.conversations[threadId];
  if (conversation === undefined) return null;
  const next = own(draft, state);
  next.conversations = own(draft, next.conversations);
  const owned = own(draft, conversation);
  next.conversations[threadId] = owned;
  return { state: next, conversation: owned };
}

/**
 * A fresh turn on a fresh state. With `create`, a turn not seen yet is added (running, empty); without,
 * a missing turn yields null.
 */
export function ownTurn(
  draft: Draft,
  state: AppData,
  threadId: string,
  turnId: string,
  create: boolean,
): { state: AppData; conversation: Conversation; turn: TurnView } | null {
  const conversation = state.conversations[threadId];
  if (conversation === undefined) return null;
  const existing = conversation.turns[turnId];
  if (existing === undefined && !create) return null;
  const path = ownConversation(draft, state, threadId);
  if (path === null) return null;
  const owned = path.conversation;
  owned.turns = own(draft, owned.turns);
  if (existing === undefined) {
    owned.turnIds = [...owned.turnIds, turnId];
    fresh(draft, owned.turnIds);
    owned.shape += 1;
  }
  const turn = existing === undefined ? fresh(draft, emptyTurn(turnId)) : own(draft, existing);
  owned.turns[turnId] = turn;
  return { state: path.state, conversation: owned, turn };
}

/** Replaces (or adds) one item entry of a turn; unchanged when `entry` is the one already there. */
export function putEntry(
  draft: Draft,
  state: AppData,
  threadId: string,
  turnId: string,
  itemId: string,
  entry: ItemEntry,
): AppData {
  const current = state.conversations[threadId]?.turns[turnId]?.items[itemId];
  if (current === entry) return state;
  const path = ownTurn(draft, state, threadId, turnId, true);
  if (path === null) return state;
  const { turn } = path;
  turn.items = own(draft, turn.items);
  if (turn.items[itemId] === undefined) {
    turn.itemIds = [...turn.itemIds, itemId];
    fresh(draft, turn.itemIds);
    path.conversation.shape += 1;
  }
  turn.items[itemId] = entry;
  return path.state;
}

/** The entry of a known item, if it is still open (not completed). */
export function openEntry(state: AppData, threadId: string, turnId: string, itemId: string): ItemEntry | null {
  const entry = state.conversations[threadId]?.turns[turnId]?.items[itemId];
  return entry !== undefined && !entry.completed ? entry : null;
}
