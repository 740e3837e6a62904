/**
 * What the tool path needs from checkpoints (the checkpoint service implements it): take stock before
 * a call that may change files, record what it changed after. Absent = no checkpoints.
 */
export interface FileCheckpoints {
  /** Changes found here were made by someone else and belong to no call. */
  beforeChange(root: string): Promise<void>;
  /** Records what changed since the last look as the turn's. */
  afterToolCall(input: { threadId: string; turnId: string; callId: string | null; root: string }): Promise<unknown>;
  /** Marks the turn as not (wholly) undoable: taking its checkpoint failed, for `reason`. */
  checkpointFailed(input: { threadId: string; turnId: string; root: string; reason: string }): Promise<void>;
}
