/**
 * `CheckpointService.revertHunk`: one hunk of what a turn changed in a file goes back, written like a
 * restore (staged, journalled, atomic) and recorded as a `hunk` record of that turn, so a later undo of
 * the whole turn starts from the file as the hunk's undo left it.
 */
import { Slicer } from '../util/slicer';
import { diffBytes } from '../util/line-diff';
import type { BlobStore } from './blob-store';
import { CheckpointConflictError, CheckpointError } from './errors';
import { hunksOf, rangeText, sameRange, withHunkUndone, type HunkRange } from './hunk-undo';
import { shown } from './path-key';
import { applyRestore } from './restore-apply';
import type { WorkspaceTracker } from './tracker';
import type { Change, CheckpointRecord, Entry } from './types';

export interface HunkRevertRequest {
  threadId: string;
  turnId: string;
  root: string;
  /**
   * As the turn's diff names it: workspace-relative, or relative to the repository root above the
   * workspace (`repoPrefix` is the workspace's path below that root, '' when they are the same).
   */
  path: string;
  repoPrefix?: string;
  /** The hunk as the turn's diff numbers it (its header). */
  hunk: HunkRange;
}

export interface HunkRevertDeps {
  records: readonly CheckpointRecord[];
  blobs: BlobStore;
  journalDir: string;
  tracker: WorkspaceTracker;
  /** Writes the record of the hunk's undo. */
  record: (changes: Change[]) => Promise<CheckpointRecord>;
}

/** The path's state before the turn's first and after its last tool call that changed it. */
function turnSpan(
  records: readonly CheckpointRecord[],
  turnId: string,
  path: string,
): { before: Entry | null; after: Entry | null } | null {
  let span: { before: Entry | null; after: Entry | null } | null = null;
  for (const record of records) {
    if (record.source !== 'tool' || record.turnId !== turnId) continue;
    for (const change of record.changes) {
      if (change.path !== path) continue;
      if (span === null) span = { before: change.before, after: change.after };
      else span.after = change.after;
    }
  }
  return span;
}

async function contentOf(blobs: BlobStore, entry: Entry | null, path: string, what: string): Promise<Buffer> {
  if (entry === null) return Buffer.alloc(0);
  if (entry.kind !== 'file')
    throw new CheckpointError(`${shown(path)} ${what} is not a file: its changes have no hunks to undo.`);
  if (entry.hash === null)
    throw new CheckpointError(
      `${shown(path)} ${what} was too large to checkpoint: its hunks cannot be undone one by one.`,
    );
  return blobs.read(entry.hash);
}

/** Runs inside the tracker's exclusive section, after a look at the workspace. */
export async function revertHunkUnlocked(request: HunkRevertRequest, deps: HunkRevertDeps): Promise<CheckpointRecord> {
  const prefix = request.repoPrefix ?? '';
  const inWorkspace =
    prefix !== '' && request.path.startsWith(`${prefix}/`) ? request.path.slice(prefix.length + 1) : null;
  let path = request.path;
  let span = turnSpan(deps.records, request.turnId, path);
  if (span === null && inWorkspace !== null) {
    path = inWorkspace;
    span = turnSpan(deps.records, request.turnId, path);
  }
  if (span === null) throw new CheckpointError(`The turn did not change ${shown(path)}: it has no hunks to undo.`);
  if (span.after === null)
    throw new CheckpointError(`The turn removed ${shown(path)}: undo the whole turn to bring the file back.`);
  const pacer = new Slicer();
  const base = await contentOf(deps.blobs, span.before, path, 'before the turn');
  const agent = await contentOf(deps.blobs, span.after, path, 'as the turn left it');
  const turn = await diffBytes(base, agent, pacer);
  const hunk = hunksOf(turn).find((h) => sameRange(h.range, request.hunk));
  if (hunk === undefined)
    throw new CheckpointError(
      `The turn's changes to ${shown(path)} have no hunk ${rangeText(request.hunk)}: read the turn's diff again.`,
    );
  const current = deps.tracker.entry(path);
  if (current?.kind !== 'file' || current.hash === null) throw new CheckpointConflictError([path]);
  const undone = await withHunkUndone(turn, hunk, await deps.blobs.read(current.hash), pacer);
  if (undone === null) throw new CheckpointConflictError([path]);
  // A file the turn created whose last lines go back is removed, as it was before the turn.
  let target: Entry | null = null;
  if (span.before !== null || undone.length > 0) {
    const { hash } = await deps.blobs.put(undone);
    target = { kind: 'file', mode: current.mode, size: undone.length, mtimeMs: 0, ino: 0, hash };
  }
  const applied = await applyRestore({
    root: request.root,
    journalDir: deps.journalDir,
    blobs: deps.blobs,
    desired: [{ path, state: target, current }],
  });
  const refused = applied.notRestored[0];
  if (refused !== undefined) throw new CheckpointError(`The hunk of ${shown(path)} was not undone: ${refused.reason}.`);
  await deps.tracker.syncUnlocked(null);
  deps.tracker.persistSoon();
  return deps.record([{ path, before: current, after: target }]);
}
