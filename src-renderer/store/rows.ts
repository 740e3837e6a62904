// The conversation as a flat list of rows for the virtualized view: each turn's items, then one
// "turn end" row (plan, notices, status, actions). Row arrays are cached per turn by the identity of the
// turn's item list, so streaming text into an item keeps every array (and the list's layout) as is.
import type { Conversation } from './state';

export type Row =
  | { kind: 'item'; key: string; turnId: string; itemId: string }
  | { kind: 'turnEnd'; key: string; turnId: string }
  /** First row of a conversation whose older turns are not loaded: the control that loads them. */
  | { kind: 'older'; key: string };

const OLDER_ROW: Row[] = [{ kind: 'older', key: '$older' }];

type TurnRow = Exclude<Row, { kind: 'older' }>;

const perTurn = new WeakMap<string[], TurnRow[]>();

function turnRows(turnId: string, itemIds: string[]): TurnRow[] {
  const cached = perTurn.get(itemIds);
  if (cached !== undefined && cached[cached.length - 1]?.turnId === turnId) return cached;
  const rows: TurnRow[] = itemIds.map((itemId) => ({ kind: 'item', key: `${turnId}/${itemId}`, turnId, itemId }));
  rows.push({ kind: 'turnEnd', key: `${turnId}/$end`, turnId });
  perTurn.set(itemIds, rows);
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
    if (turn !== undefined) parts.push(turnRows(turnId, turn.itemIds));
  }
  if (previous !== null && previous.parts.length === parts.length && previous.parts.every((p, i) => p === parts[i])) {
    return previous;
  }
  return { parts, rows: parts.flat() };
}
