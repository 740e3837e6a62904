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

/** A line could not be written to a rollout (disk full, permissions); the line is kept in memory and retried. */
export class RolloutWriteError extends StoreError {
  constructor(
    readonly threadId: string,
    readonly path: string,
    readonly pendingLines: number,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `could not save thread ${threadId} to ${path}: ${reason}. ${pendingLines} line(s) are kept in memory and ` +
        'will be written when the disk accepts them; free some space or check the folder permissions.',
      { cause },
    );
    this.name = 'RolloutWriteError';
  }
}
