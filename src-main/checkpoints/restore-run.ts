/**
 * Carrying out a restore plan: conflicts refuse it (unless forced, the user's versions saved first), the
 * files are put back (restore-apply.ts), and what was restored is recorded (what Redo takes back).
 */
import type { BlobStore } from './blob-store';
import { CheckpointConflictError } from './errors';
import { shown } from './path-key';
import { applyRestore, type DesiredState, type NotRestored } from './restore-apply';
import { byPath } from './restore-plan';
import type { RestoreOutcome, RestorePlanItem, RestoreRequest } from './service-types';
import type { WorkspaceTracker } from './tracker';
import { sameContent, type Change, type CheckpointRecord, type RecordSource } from './types';

export interface RestoreRun {
  request: RestoreRequest;
  plan: RestorePlanItem[];
  /** The workspace's tracker, held (`exclusive`) by the caller. */
  tracker: WorkspaceTracker;
  blobs: BlobStore;
  journalDir: string;
  /** Appends a record of the restore's thread. */
  append: (source: RecordSource, changes: Change[], notes: string[]) => Promise<CheckpointRecord>;
}

/** A plan item about a folder: it goes back to a folder, or a folder goes away (not a file or link). */
export function isFolder(item: Pick<RestorePlanItem, 'expected' | 'current' | 'target'>): boolean {
  if (item.target !== null) return item.target.kind === 'dir';
  return item.current?.kind === 'dir' || item.expected?.kind === 'dir';
}

/**
 * Names, per command, the restored paths that were changed while a command of an earlier turn (not
 * undone) was running in the background: their changes may have been that command's.
 */
function backgroundNotes(items: readonly RestorePlanItem[]): string[] {
  const byCommand = new Map<string, string[]>();
  for (const item of items)
    for (const command of item.background ?? []) {
      const paths = byCommand.get(command) ?? [];
      paths.push(item.path);
      byCommand.set(command, paths);
    }
  return [...byCommand].map(([command, paths]) => {
    const count = paths.length === 1 ? '1 file was' : `${paths.length} files were`;
    return `${count} changed while a background command of an earlier turn was running (${command}); ${paths.length === 1 ? 'it was' : 'they were'} restored too: ${paths.map(shown).join(', ')}`;
  });
}

export async function executeRestore(input: RestoreRun): Promise<RestoreOutcome> {
  const { request, plan, tracker, blobs, journalDir, append } = input;
  const lost: NotRestored[] = plan.flatMap((item) =>
    item.unrestorable !== undefined ? [{ path: item.path, reason: item.unrestorable }] : [],
  );
  const active = plan.filter((item) => item.unrestorable === undefined && !sameContent(item.current, item.target));
  const conflicts = active.filter((item) => item.conflict).map((item) => item.path);
  if (conflicts.length > 0 && request.force !== true) throw new CheckpointConflictError(conflicts);
  if (conflicts.length > 0) {
    // The user's versions go into the store first, so the forced restore can itself be undone.
    const saved: Change[] = active
      .filter((item) => item.conflict)
      .map((item) => ({ path: item.path, before: item.expected, after: item.current }));
    await append('force-save', saved, []);
  }
  if (active.length === 0)
    return { restored: [], notRestored: lost, overwritten: [], kept: [], notes: [], record: null, pending: null };
  const desired: DesiredState[] = active.map((item) => ({
    path: item.path,
    state: item.target,
    current: item.current,
  }));
  const applied = await applyRestore({
    root: request.root,
    journalDir,
    blobs,
    desired,
    hooks: request.hooks,
    thread: request.thread ?? null,
  });
  // The index follows the workspace; what the restore did is what applyRestore found through the
  // folders it wrote into. A look by path cannot tell that: while a process moves folders it reads
  // whatever the names lead to at that moment (outside the workspace, through a swapped-in symlink).
  await tracker.syncUnlocked(null);
  const planned = new Map(active.map((item) => [item.path, item]));
  const restored = applied.restored;
  const notRestored = [...lost, ...applied.notRestored].sort((a, b) => byPath(a.path, b.path));
  const done = new Set(restored);
  // Folders come and go with their files; what a restore says it restored is files and links, as the
  // preview lists them.
  const folders = new Set(active.filter((item) => isFolder(item)).map((item) => item.path));
  const notes = notRestored.map((item) => `${shown(item.path)}: not restored: ${item.reason}`);
  // The record (what Redo takes back) holds the restore's own changes only: what another process
  // changed meanwhile (a folder it moved, files it wrote) is not the restore's to take back.
  const changes: Change[] = restored.flatMap((path) => {
    const item = planned.get(path);
    return item === undefined ? [] : [{ path, before: item.current, after: item.target }];
  });
  const record = changes.length > 0 ? await append('restore', changes, notes) : null;
  tracker.persistSoon();
  const restoredFiles = restored.filter((path) => !folders.has(path));
  return {
    restored: restoredFiles,
    notRestored,
    overwritten: conflicts.filter((path) => done.has(path)),
    kept: [],
    notes: backgroundNotes(restoredFiles.flatMap((path) => planned.get(path) ?? [])),
    record,
    pending: applied.pending,
  };
}
