// What a loaded thread's session keeps of each turn for clients that attach later (`thread/resume`,
// `thread/read` of a loaded thread): its completed items, the items still open as they stand now (the text
// an answer has streamed so far, a patch waiting for review), its latest aggregated diff and its hook runs.
import type { ServerNotification, ThreadItem } from '../../src-preload/protocol';
import type { TurnRecord } from './types';

/** Keeps `turns` current with a notification the session sends. */
export function noteInTurns(turns: readonly TurnRecord[], n: ServerNotification): void {
  switch (n.method) {
    case 'turn/diff/updated': {
      const turn = turns.find((t) => t.turn.id === n.params.turnId);
      if (turn) {
        turn.diff = n.params.diff;
        turn.diffCut = n.params.weftDiffCut;
      }
      return;
    }
    case 'hook/completed': {
      const turn = turns.find((t) => t.turn.id === n.params.turnId);
      if (!turn) return;
      (turn.hookRuns ??= []).push({ run: n.params.run, afterItemId: turn.items.at(-1)?.id ?? null });
      return;
    }
    case 'item/started': {
      const turn = turns.find((t) => t.turn.id === n.params.turnId);
      if (!turn) return;
      turn.open ??= new Map();
      turn.open.set(n.params.item.id, n.params.item);
      return;
    }
    case 'item/completed': {
      const turn = turns.find((t) => t.turn.id === n.params.turnId);
      if (!turn) return;
      const { item } = n.params;
      if (turn.open?.delete(item.id) === true) {
        turn.items.push(item);
        return;
      }
      // Completed again (a retried model request said it anew): the newer one replaces it.
      const at = lastIndexOfItem(turn.items, item.id);
      if (at >= 0) turn.items[at] = item;
      else turn.items.push(item);
      return;
    }
    case 'item/agentMessage/delta':
    case 'item/reasoning/summaryPartAdded':
    case 'item/reasoning/summaryTextDelta':
    case 'item/reasoning/textDelta': {
      const open = turns.find((t) => t.turn.id === n.params.turnId)?.open;
      const item = open?.get(n.params.itemId);
      if (!open || !item) return;
      const next = withDelta(item, n);
      if (next !== item) open.set(item.id, next);
      return;
    }
    default:
      return;
  }
}

/** Drops an item from a turn's completed and open items. */
export function dropFromTurn(turn: TurnRecord | undefined, itemId: string): void {
  if (!turn) return;
  turn.open?.delete(itemId);
  const at = lastIndexOfItem(turn.items, itemId);
  if (at >= 0) turn.items.splice(at, 1);
}

/** An open item with a streamed delta applied (a new object: the old one may have been sent as it was). */
function withDelta(
  item: ThreadItem,
  n: Extract<
    ServerNotification,
    {
      method:
        | 'item/agentMessage/delta'
        | 'item/reasoning/summaryPartAdded'
        | 'item/reasoning/summaryTextDelta'
        | 'item/reasoning/textDelta';
    }
  >,
): ThreadItem {
  switch (n.method) {
    case 'item/agentMessage/delta':
      return item.type === 'agentMessage' ? { ...item, text: item.text + n.params.delta } : item;
    case 'item/reasoning/summaryPartAdded':
      return item.type === 'reasoning' ? { ...item, summary: withPart(item.summary, n.params.summaryIndex, '') } : item;
    case 'item/reasoning/summaryTextDelta':
      return item.type === 'reasoning'
        ? { ...item, summary: withPart(item.summary, n.params.summaryIndex, n.params.delta) }
        : item;
    case 'item/reasoning/textDelta':
      return item.type === 'reasoning'
        ? { ...item, content: withPart(item.content, n.params.contentIndex, n.params.delta) }
        : item;
  }
}

/** `parts` with `delta` appended to part `index` (parts up to it created empty). */
function withPart(parts: readonly string[], index: number, delta: string): string[] {
  const next = [...parts];
  while (next.length <= index) next.push('');
  next[index] = (next[index] ?? '') + delta;
  return next;
}

/** Where an item is among a turn's completed items (searched from the newest), or -1. */
function lastIndexOfItem(items: readonly ThreadItem[], id: string): number {
  for (let i = items.length - 1; i >= 0; i--) if (items[i]?.id === id) return i;
  return -1;
}
