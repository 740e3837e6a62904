// The conversation as a flat list of rows for the virtualized view: each turn's items, each hook run right
// after the item it ran after, then one "turn end" row (plan, notices, status, actions). Row arrays are
// cached per turn by the identity of the turn's item list and hook runs, so streaming text into an item
// keeps every array (and the list's layout) as is.
import type { WeftHookRunPlace } from '../../src-preload/protocol';
import type { Conversation } from './state';

export type Row =
  | { kind: 'item'; key: string; turnId: string; itemId: string }
  /** The turn's hook run at `index` of its `hooks`. */
  | { kind: 'hook'; key: string; turnId: string; index: number }
  | { kind: 'turnEnd'; key: string; turnId: string }
  /** First row of a conversation whose older turns are not loaded: the control that loads them. */
  | { kind: 'older'; key: string };

const OLDER_ROW: Row[] = [{ kind: 'older', key: '$older' }];

type TurnRow = Exclude<Row, { kind: 'older' }>;

const perTurn = new WeakMap<string[], { hooks: readonly WeftHookRunPlace[]; rows: TurnRow[] }>();

function turnRows(turnId: string, itemIds: string[], hooks: readonly WeftHookRunPlace[]): TurnRow[] {
  const cached = perTurn.get(itemIds);
  if (cached !== undefined && cached.hooks === hooks && cached.rows[cached.rows.length - 1]?.turnId === turnId)
    return cached.rows;
  // Runs after an item the turn does not list (yet) go last; runs before any item, first.
  const after = new Map<string | null, number[]>();
  hooks.forEach((h, index) => {
    const place = h.afterItemId === null || itemIds.includes(h.afterItemId) ? h.afterItemId : '$end';
    after.set(place, [...(after.get(place) ?? []), index]);
  });
  const hookRows = (place: string | null): TurnRow[] =>
    (after.get(place) ?? []).map((index) => ({ kind: 'hook', key: `${turnId}/$hook/${index}`, turnId, index }));
  const rows: TurnRow[] = hookRows(null);
  for (const itemId of itemIds) {
    rows.push({ kind: 'item', key: `${turnId}/${itemId}`, turnId, itemId }, ...hookRows(itemId));
  }
  rows.push(...hookRows('$end'), { kind: 'turnEnd', key: `${turnId}/$end`, turnId });
  perTurn.set(itemIds, { hooks, rows });
  return rows;
}

export interface RowsCache {
  parts: Row[][];
  rows: Row[];
}

/** All rows of a conversation; returns `previous.rows` itself when no turn's item list changed. */
export function conversationRows(conversation: Conversation, previous: RowsCache | null): RowsCache {
  const parts: Row[][] = conversation.olderTurnsCursor === null ? [] : [OLDER_ROW];
  for (const turnId of conversation.turnIds) {
    const turn = conversation.turns[turnId];
    if (turn !== undefined) parts.push(turnRows(turnId, turn.itemIds, turn.hooks));
  }
  if (previous !== null && previous.parts.length === parts.length && previous.parts.every((p, i) => p === parts[i])) {
    return previous;
  }
  return { parts, rows: parts.flat() };
}
