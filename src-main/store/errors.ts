// Errors the thread store raises. Each message says what happened, to which thread or file, and what to do.

/** Base class: anything the store refuses or cannot do. */
export class StoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/** The caller asked for something that cannot be (a malformed cursor, id or count): the caller's mistake. */
export class StoreInputError extends StoreError {
  constructor(message: string) {
    super(message);
    this.name = 'StoreInputError';
  }
}

/** Another window or process (or another session in this one) is writing the thread. */
export class ThreadLockedError extends StoreError {
  constructor(readonly threadId: string) {
    super(`thread ${threadId} is open in another window`);
    this.name = 'ThreadLockedError';
  }
}

/** No rollout for that id in the sessions folders (nor in an imported Codex home). */
export class ThreadNotFoundError extends StoreError {
  constructor(
    readonly threadId: string,
    where: string,
  ) {
    super(`no thread ${threadId} in ${where}; check the id with \`weft threads list\``);
    this.name = 'ThreadNotFoundError';
  }
}

/** What became of the lines a rollout refused. */
export type UnsavedLines =
  /** Kept in memory, in order, and retried until the disk takes them. */
  | { type: 'kept' }
  /**
   * Moved to a rescue file outside the thread's folder (the memory bound was reached or the thread closed).
   * `whole`: the rollout was never created, the rescue file is the whole thread (session_meta first).
   */
  | { type: 'rescued'; file: string; whole: boolean }
  /** Could not be kept anywhere. */
  | { type: 'lost' };

/** Lines could not be written to a rollout (disk full, permissions): the thread is not being saved. */
export class RolloutWriteError extends StoreError {
  constructor(
    readonly threadId: string,
    readonly path: string,
    readonly pendingLines: number,
    cause: unknown,
    readonly fate: UnsavedLines = { type: 'kept' },
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const what =
      fate.type === 'kept'
        ? `${pendingLines} line(s) are kept in memory and will be written when the disk accepts them; free some space or check the folder permissions.`
        : fate.type === 'rescued'
          ? fate.whole
            ? `The thread (${pendingLines} line(s) after its first) was saved to ${fate.file} instead; move that file to ${path} once the disk has room.`
            : `${pendingLines} line(s) that could not be written were saved to ${fate.file} instead; append them to ${path} once the disk has room.`
          : `${pendingLines} line(s) could not be written anywhere and are lost.`;
    super(`could not save thread ${threadId} to ${path}: ${reason}. ${what}`, { cause });
    this.name = 'RolloutWriteError';
  }
}
