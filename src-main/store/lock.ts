// The write lock of a thread: at most one writer (window, process or session) appends to a rollout.
//
// The lock is an exclusive SQLite transaction on `WEFT_HOME/locks/<thread id>.lock` (an empty database
// file). SQLite takes it with POSIX advisory locks, so it is held between processes and between connections
// of one process, and the kernel drops it when its process dies — a `kill -9` never leaves a stale lock.
// Lock files are tiny and left in place (removing one while another process waits on it would split the
// lock in two).
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { StoreError, ThreadLockedError } from './errors';
import { locksDir } from './paths';

export interface ThreadLock {
  readonly threadId: string;
  release(): void;
}

function isBusy(error: unknown): boolean {
  if (!(error instanceof Error) || !('code' in error)) return false;
  return error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_LOCKED';
}

/** Takes the write lock of `threadId`, or throws `ThreadLockedError` when someone holds it. */
export function acquireThreadLock(home: string, threadId: string): ThreadLock {
  const dir = locksDir(home);
  mkdirSync(dir, { recursive: true });
  if (!/^[0-9A-Za-z-]+$/.test(threadId)) throw new StoreError(`"${threadId}" is not a thread id`);
  let db: Database.Database;
  try {
    db = new Database(join(dir, `${threadId}.lock`), { timeout: 0 });
  } catch (error) {
    throw new StoreError(`could not open the lock file of thread ${threadId} in ${dir}: ${String(error)}`, {
      cause: error,
    });
  }
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if (isBusy(error)) throw new ThreadLockedError(threadId);
    throw new StoreError(`could not lock thread ${threadId} in ${dir}: ${String(error)}`, { cause: error });
  }
  let held = true;
  return {
    threadId,
    release() {
      if (!held) return;
      held = false;
      try {
        db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    },
  };
}
