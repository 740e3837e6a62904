// Writing a handoff's plan into the destination checkout: every file at once through the checkpoints'
// restore (each new version staged in the destination, a journal, then renames; what a crash cuts short is
// finished at the next start, and nothing is written through a symlinked folder). A conflict is written
// only as the request resolves it; the version a resolution replaces is kept as a discard the Changes
// panel can put back. With `move`, what was brought over then leaves the source.
import { unlink } from 'node:fs/promises';
import type { WeftWorktreeHandoffResult } from '../../src-preload/protocol';
import type { BlobStore } from '../checkpoints/blob-store';
import type { DiscardStore } from '../checkpoints/discards';
import { applyRestore, type DesiredState } from '../checkpoints/restore-apply';
import { codeOf } from '../checkpoints/restore-ops';
import type { Entry } from '../checkpoints/types';
import { confinedPath, readWorkspaceEntry } from '../util/workspace-file';
import { sameState, type HandoffPlan, type PlannedPath, type SideState } from './handoff-plan';
import { restoreToHead, trackedAmong } from './handoff-scan';

/** The handoff was refused, nothing written: conflicts without a resolution, or a plan changed since its preview. */
export class HandoffConflictError extends Error {
  constructor(
    readonly conflicts: string[],
    readonly stale: boolean,
  ) {
    super(
      stale
        ? 'the files changed since the preview: nothing was written; look at the handoff again'
        : `${conflicts.length === 1 ? '1 file was' : `${conflicts.length} files were`} changed on both sides (${conflicts.join(', ')}): nothing was written; choose which side to keep for each`,
    );
    this.name = 'HandoffConflictError';
  }
}

/** A request that does not fit the plan (a resolution for a path the handoff does not write). */
export class HandoffInputError extends Error {
  override readonly name = 'HandoffInputError';
}

export interface HandoffApplyInput {
  plan: HandoffPlan;
  /** Conflicting paths → which side's version the destination ends with. */
  resolutions: ReadonlyMap<string, 'local' | 'worktree'>;
  move: boolean;
  blobs: BlobStore;
  journalDir: string;
  discards: DiscardStore;
}

export async function applyHandoff(input: HandoffApplyInput): Promise<Omit<WeftWorktreeHandoffResult, 'threadCwd'>> {
  const { plan } = input;
  const sourceSide = plan.direction === 'toLocal' ? 'worktree' : 'local';
  const byPath = new Map(plan.paths.map((p) => [p.path, p]));
  for (const path of input.resolutions.keys()) {
    const status = byPath.get(path)?.status;
    if (status !== 'conflict' && status !== 'apply' && status !== 'merge')
      throw new HandoffInputError(`resolutions: ${path} is not a file this handoff writes`);
  }
  const open = plan.paths.filter((p) => p.status === 'conflict' && !input.resolutions.has(p.path)).map((p) => p.path);
  if (open.length > 0) throw new HandoffConflictError(open, false);

  const writes: { planned: PlannedPath; target: SideState }[] = [];
  const merged: string[] = [];
  const overwritten: string[] = [];
  const kept: string[] = [];
  for (const planned of plan.paths) {
    if (planned.status !== 'apply' && planned.status !== 'merge' && planned.status !== 'conflict') continue;
    const take = input.resolutions.get(planned.path);
    if (take !== undefined && take !== sourceSide) kept.push(planned.path);
    else if (planned.status === 'apply') writes.push({ planned, target: planned.result ?? planned.source });
    else if (planned.status === 'merge' && take === undefined && planned.result !== null) {
      writes.push({ planned, target: planned.result });
      merged.push(planned.path);
    } else {
      // The source's version over a destination file that changed too: the person chose to replace it.
      writes.push({ planned, target: planned.source });
      overwritten.push(planned.path);
    }
  }
  const desired: DesiredState[] = [];
  for (const { planned, target } of writes)
    desired.push({
      path: planned.path,
      state: await entryOf(target, input.blobs),
      current: await entryOf(planned.dest, null),
    });
  const outcome =
    desired.length === 0
      ? { restored: [], notRestored: [] }
      : await applyRestore({ root: plan.destTop, journalDir: input.journalDir, blobs: input.blobs, desired });
  const written = new Set(outcome.restored);
  for (const { planned, target } of writes) {
    if (!written.has(planned.path) || !overwritten.includes(planned.path) || planned.dest.kind !== 'file') continue;
    await input.discards.keepReplaced({
      root: plan.destTop,
      path: planned.path,
      summary: `replaced by a handoff from the ${sourceSide === 'worktree' ? 'worktree' : 'local checkout'}`,
      before: { bytes: planned.dest.bytes, mode: planned.dest.mode },
      after: target.kind === 'file' ? target.bytes : null,
    });
  }
  const moved = input.move
    ? await takeBack(
        plan,
        plan.paths.filter((p) => written.has(p.path) || p.status === 'same'),
      )
    : [];
  return {
    direction: plan.direction,
    written: plan.paths.map((p) => p.path).filter((p) => written.has(p)),
    merged: merged.filter((p) => written.has(p)),
    overwritten: overwritten.filter((p) => written.has(p)),
    kept,
    notWritten: outcome.notRestored,
    moved,
  };
}

/**
 * `move`: the source's uncommitted changes to the files brought over go back to its HEAD (a file HEAD
 * and the index do not have is removed). A source file that changed since the plan read it stays.
 */
async function takeBack(plan: HandoffPlan, brought: readonly PlannedPath[]): Promise<string[]> {
  const unchanged: string[] = [];
  for (const planned of brought) {
    const now = await readWorkspaceEntry(plan.sourceTop, planned.path, Number.MAX_SAFE_INTEGER).catch(() => null);
    const state: SideState | null =
      now === null
        ? null
        : now.kind === 'missing'
          ? { kind: 'absent' }
          : now.kind === 'file'
            ? { kind: 'file', bytes: now.bytes, mode: now.mode & 0o777 }
            : now.kind === 'symlink'
              ? { kind: 'symlink', target: now.target }
              : null;
    if (state !== null && sameState(state, planned.source)) unchanged.push(planned.path);
  }
  const tracked = await trackedAmong(plan.sourceTop, unchanged);
  await restoreToHead(
    plan.sourceTop,
    unchanged.filter((p) => tracked.has(p)),
  );
  for (const path of unchanged.filter((p) => !tracked.has(p))) {
    await unlink(await confinedPath(plan.sourceTop, path)).catch((error: unknown) => {
      if (codeOf(error) !== 'ENOENT') throw error;
    });
  }
  return unchanged;
}

/** A side as the restore's entry (content stored in the blob store when `blobs` is given). */
async function entryOf(state: SideState, blobs: BlobStore | null): Promise<Entry | null> {
  switch (state.kind) {
    case 'absent':
    case 'other':
      return null;
    case 'file':
      return {
        kind: 'file',
        mode: 0o100000 | state.mode,
        size: state.bytes.length,
        mtimeMs: 0,
        ino: 0,
        hash: blobs === null ? null : (await blobs.put(state.bytes)).hash,
      };
    case 'symlink':
      return { kind: 'symlink', target: state.target, mtimeMs: 0, ino: 0 };
  }
}
