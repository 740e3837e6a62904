/**
 * What the tool path needs from checkpoints (the checkpoint service implements it): take stock before
 * a call that may change files, record what it changed after. Absent = no checkpoints.
 */

/** A path's state as a checkpoint saw it: `hash` names its content in the store (null: too large to keep). */
export type CheckpointedEntry =
  | { kind: 'file'; mode: number; hash: string | null }
  | { kind: 'symlink'; target: string }
  | { kind: 'dir'; mode: number };

/** One path a call changed (`path` is a workspace key: see `absolutePath`); null: the path did not exist. */
export interface CheckpointedChange {
  path: string;
  before: CheckpointedEntry | null;
  after: CheckpointedEntry | null;
}

/** A command of another turn that was running in the background while the changes were made. */
export interface BackgroundCommand {
  turnId: string;
  command: string;
}

export interface FileCheckpoints {
  /**
   * A turn starts in `root`: the first look at it (if none was taken yet) starts in the background. The
   * promise never rejects; nothing needs to wait for it.
   */
  prepare(root: string): Promise<void>;
  /**
   * Takes stock before a call. Changes found here were made between calls: they are recorded as the
   * turn `owner`'s (the turn of a command left running in the background), or belong to no turn.
   */
  beforeChange(
    root: string,
    owner?: { threadId: string; turnId: string },
  ): Promise<{ changes: readonly CheckpointedChange[] } | null>;
  /**
   * Records what changed since the last look as the turn's; `background` names commands of other turns
   * that were running meanwhile (any of the changes may be theirs). Null when nothing changed.
   */
  afterToolCall(input: {
    threadId: string;
    turnId: string;
    callId: string | null;
    root: string;
    background?: readonly BackgroundCommand[];
  }): Promise<{ changes: readonly CheckpointedChange[] } | null>;
  /** Records what changed since the last look as the turn `owner`'s, outside any tool call. */
  recordBetweenCalls(root: string, owner: { threadId: string; turnId: string }): Promise<unknown>;
  /** Marks the turn as not (wholly) undoable: taking its checkpoint failed, for `reason`. */
  checkpointFailed(input: { threadId: string; turnId: string; root: string; reason: string }): Promise<void>;
  /** Stored content by hash. */
  content(hash: string): Promise<Buffer>;
  /** The file system path of a workspace key. */
  absolutePath(root: string, key: string): string | Buffer;
}
