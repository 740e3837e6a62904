/**
 * The shapes `CheckpointService` takes and gives: its options, what a restore would do and did, and the
 * turns that cannot be wholly undone.
 */
import type { ApplyHooks, NotRestored } from './restore-apply';
import type { ThreadRevert } from './restore-journal';
import type { CheckpointLimits, CheckpointRecord, Entry, RetentionPolicy } from './types';

export interface CheckpointServiceOptions {
  weftHome: string;
  limits?: Partial<CheckpointLimits>;
  retention?: Partial<RetentionPolicy>;
  /** Use directory watchers where available (default true). */
  watch?: boolean;
  now?: () => Date;
  /**
   * Workspaces whose tracker (file index and inotify watches) is kept at most (default 16); the
   * least recently used beyond it is closed. A closed tracker's index is saved, and the next look at
   * that workspace compares against it, so nothing is lost but the watches.
   */
  maxTrackers?: number;
  /** A tracker not used for this long is closed (default 10 minutes). */
  trackerIdleMs?: number;
}

/** A turn whose files were not (all) checkpointed, and why. */
export interface CheckpointGap {
  turnId: string;
  reason: string;
}

/** What a restore would do to one path. */
export interface RestorePlanItem {
  path: string;
  /** The state the agent left (what the file should be now). */
  expected: Entry | null;
  /** The state on disk now. */
  current: Entry | null;
  /** The state it will be put back to. */
  target: Entry | null;
  conflict: boolean;
  /** Why the path cannot be restored (e.g. its earlier version was not checkpointed: too large). */
  unrestorable?: string;
  /**
   * Commands of earlier turns (not undone) that were running in the background when the path was changed:
   * the change may be theirs, and an undo says so by name.
   */
  background?: string[];
}

export interface RestoreOutcome {
  /**
   * Files and links written, created or removed, and found so once the restore was done, through the
   * folders it wrote into (each still at its name); not folders.
   */
  restored: string[];
  /** Paths of the plan left as they were, each with the reason. */
  notRestored: NotRestored[];
  /** Paths that differed from what the agent left and were overwritten (force); their versions are in a `force-save` record. */
  overwritten: string[];
  /** Paths of the plan left as they were because the request kept them. */
  kept: string[];
  notes: string[];
  record: CheckpointRecord | null;
  /**
   * The journal of the restore, kept until the thread's revert is written (`finishRevert`); null when
   * the request named no thread revert or nothing was written.
   */
  pending: string | null;
}

export interface RestoreRequest {
  threadId: string;
  root: string;
  /** The turns whose changes are undone (the chosen turn and every later one). */
  turnIds: readonly string[];
  force?: boolean;
  /** Paths left exactly as they are now (the user keeps their version); every other path is restored. */
  keep?: readonly string[];
  hooks?: ApplyHooks;
  /**
   * The thread revert this restore is part of: after a crash, start-up finishes the files and then
   * drops these turns too (see `recover`).
   */
  thread?: ThreadRevert;
}
