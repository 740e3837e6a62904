// The start-up index check, on a worker thread (started by index-check.ts): it lists the rollouts, stats
// each one against its row, reads the changed ones and makes their outlines, reading the index through a
// read-only handle of its own (SQLite's WAL lets it read while the main thread writes). It writes no row:
// each batch of rows goes to the main thread, which writes it in one short transaction, so the index keeps
// one writer and a write never waits on this thread's lock. Saved outlines are files: it writes them itself.
// The thread runs below the host's main thread from its start (util/worker-thread.ts `startWorker`).
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { IndexCheckRequest, STOP, type IndexCheckMessage } from './index-check-messages';
import { forgetSavedOutline, writeSavedOutline } from './outline-snapshot';
import { repairIndex } from './repair';
import { ThreadIndex } from './thread-index';

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function post(m: IndexCheckMessage): void {
  parentPort?.postMessage(m);
}

/** Set when the main thread sends STOP: the check ends at its next slice (see index-check.ts `stop`). */
let stopAsked = false;

async function check(): Promise<void> {
  const request = IndexCheckRequest.parse(workerData);
  // The stop may have come while this thread was starting (it is read once the loading is done).
  await new Promise((resolve) => setImmediate(resolve));
  if (stopAsked) return;
  const db = new Database(request.indexPath, { readonly: true, fileMustExist: true });
  const outlineWarnings: string[] = [];
  try {
    const report = await repairIndex(new ThreadIndex(db), request.sources, {
      full: false,
      // Its slices (8 ms, the default) only pace the batches it sends, as on the main thread: the first
      // early, then about 100 threads or 2 MB of text each, each one transaction there.
      cancelled: () => stopAsked,
      outlines: {
        keep: (id, data) => {
          try {
            writeSavedOutline(request.home, id, data);
          } catch (error) {
            outlineWarnings.push(`the outline of thread ${id} could not be kept for its next read: ${message(error)}`);
          }
        },
        forget: (id) => {
          try {
            forgetSavedOutline(request.home, id);
          } catch {
            // A saved outline left behind is never used for another file (see outline-snapshot.ts).
          }
        },
      },
      write: (change) => post({ type: 'change', change }),
    });
    post({ type: 'done', report: { ...report, warnings: [...report.warnings, ...outlineWarnings] } });
  } finally {
    db.close();
  }
}

parentPort?.on('message', (m: unknown) => {
  if (m === STOP) stopAsked = true;
});

check()
  .catch((error: unknown) => {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : null;
    post({ type: 'failed', message: message(error), code });
  })
  // The port's listener would keep this thread alive: closing it lets the thread end by itself.
  .finally(() => parentPort?.close());
