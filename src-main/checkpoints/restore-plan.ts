/**
 * What a restore would do, worked out from a thread's records and the workspace as the tracker last saw
 * it. Pure: nothing here reads or writes files.
 */
import type { RestorePlanItem } from './service-types';
import { sameContent, type CheckpointRecord, type Entry } from './types';

/** A path's state before the first and after the last of the changes looked at. */
export interface ChangeSpan {
  first: Entry | null;
  last: Entry | null;
  /**
   * Commands of turns not among those looked at that were running in the background while the path was
   * changed: the change may be theirs.
   */
  background?: Set<string>;
}

/** The current entry of a path (null: absent). */
export type EntryOf = (path: string) => Entry | null;

/**
 * For each path the tool calls of `turnIds` changed (in `records`, oldest first): its span. A hunk undone
 * in one of those turns (a `hunk` record) carries the span on when it started from the span's last state
 * (what the agent left, as the turns' own changes made it); one made over someone else's edits does not:
 * those edits are not the turns' to take back silently, so the path stays a conflict.
 */
export function changeSpans(records: readonly CheckpointRecord[], turnIds: readonly string[]): Map<string, ChangeSpan> {
  const wanted = new Set(turnIds);
  const spans = new Map<string, ChangeSpan>();
  for (const record of records) {
    if (record.turnId === null || !wanted.has(record.turnId)) continue;
    if (record.source === 'hunk') {
      for (const change of record.changes) {
        const span = spans.get(change.path);
        if (span !== undefined && sameContent(span.last, change.before)) span.last = change.after;
      }
      continue;
    }
    if (record.source !== 'tool') continue;
    const others = (record.background ?? []).filter((command) => !wanted.has(command.turnId));
    for (const change of record.changes) {
      let span = spans.get(change.path);
      if (span === undefined) spans.set(change.path, (span = { first: change.before, last: change.after }));
      else span.last = change.after;
      for (const other of others) (span.background ??= new Set()).add(other.command);
    }
  }
  return spans;
}

/** Undoing the spans: each changed path back to its first state, sorted by path. */
export function planUndo(spans: ReadonlyMap<string, ChangeSpan>, entryOf: EntryOf): RestorePlanItem[] {
  const items: RestorePlanItem[] = [];
  for (const [path, span] of spans) {
    if (sameContent(span.first, span.last)) continue;
    const item = planItem(entryOf, path, span.last, span.first);
    if (span.background !== undefined) item.background = [...span.background];
    items.push(item);
  }
  return items.sort((a, b) => byPath(a.path, b.path));
}

/** Putting `path` from `expected` (what the agent left) back to `target`. */
export function planItem(
  entryOf: EntryOf,
  path: string,
  expected: Entry | null,
  target: Entry | null,
): RestorePlanItem {
  const current = entryOf(path);
  const item: RestorePlanItem = { path, expected, current, target, conflict: !sameContent(current, expected) };
  if (target?.kind === 'file' && target.hash === null)
    item.unrestorable = 'its earlier version was not checkpointed (too large)';
  // A folder is compared by existence only: its files are items of their own.
  if (expected?.kind === 'dir' && current?.kind === 'dir') item.conflict = false;
  return item;
}

export function byPath(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
