/** The changes between two states of a workspace (what a look reports, what a record holds). */
import { sameContent, type Change, type Entry } from './types';

/** The changes between two states, renames paired by content. */
export function diff(before: ReadonlyMap<string, Entry>, after: ReadonlyMap<string, Entry>): Change[] {
  const changes: Change[] = [];
  for (const [path, entry] of after) {
    const old = before.get(path) ?? null;
    if (old === null || !sameContent(old, entry)) changes.push({ path, before: old, after: entry });
  }
  for (const [path, entry] of before) if (!after.has(path)) changes.push({ path, before: entry, after: null });
  const removedByHash = new Map<string, string>();
  for (const change of changes) {
    if (change.after === null && change.before?.kind === 'file' && change.before.hash !== null)
      removedByHash.set(change.before.hash, change.path);
  }
  for (const change of changes) {
    if (change.before === null && change.after?.kind === 'file' && change.after.hash !== null) {
      const from = removedByHash.get(change.after.hash);
      if (from !== undefined) {
        change.renamedFrom = from;
        removedByHash.delete(change.after.hash);
      }
    }
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
