// The start-up index check, on a worker thread (started by index-check.ts): it lists the rollouts, stats
// each one against its row, reads the changed ones and makes their outlines, reading the index through a
// read-only handle of its own (SQLite's WAL lets it read while the main thread writes). It writes no row:
// each batch of rows goes to the main thread, which writes it in one short transaction, so the index keeps
// one writer and a write never waits on this thread's lock. Saved outlines are files: it writes them itself.
// The thread runs below the host's main thread from its start (util/worker-thread.ts `startWorker`).
//
// What it loads at its start is only the stat pass (index-changes.ts). The rollout reader, with zod and the
// protocol's schemas, is imported when a rollout changed or went: a worker compiles and keeps its own copy
// of whatever it loads, and with all of it loaded up front the check of an index that was already right
// raised the app server's resident memory by about 50 MiB.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { indexFileReader, nothingChanged, scanIndex } from './index-changes';
import type { IndexCheckMessage } from './index-check-messages';
import { STOP, readIndexCheckRequest } from './index-check-request';
import { Slicer } from '../util/slicer';

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function post(m: IndexCheckMessage): void {
  parentPort?.postMessage(m);
}

/** Set when the main thread sends STOP: the check ends at its next slice (see index-check.ts `stop`). */
let stopAsked = false;

async function check(): Promise<void> {
  const request = readIndexCheckRequest(workerData);
  // The stop may have come while this thread was starting (it is read once the loading is done).
  await new Promise((resolve) => setImmediate(resolve));
  if (stopAsked) return;
  const db = new Database(request.indexPath, { readonly: true, fileMustExist: true });
  try {
    const cancelled = (): boolean => stopAsked;
    // Its slices (8 ms, the default) only pace the batches it sends, as on the main thread: the first
    // early, then about 100 threads or 2 MB of text each, each one transaction there.
    const slicer = new Slicer();
    const scan = await scanIndex(indexFileReader(db), request.sources, { full: false, slicer, cancelled });
    if (scan === null || stopAsked) {
      post({ type: 'done', report: { indexed: 0, removed: 0, files: 0, warnings: [], cancelled: true } });
      return;
    }
    if (nothingChanged(scan)) {
      post({ type: 'done', report: { indexed: 0, removed: 0, files: scan.files, warnings: [], cancelled: false } });
      return;
    }
    const [{ repairIndex }, { ThreadIndex }, { forgetSavedOutline, writeSavedOutline }] = await Promise.all([
      import('./repair'),
      import('./thread-index'),
      import('./outline-snapshot'),
    ]);
    const outlineWarnings: string[] = [];
    const report = await repairIndex(new ThreadIndex(db), request.sources, {
      full: false,
      scan,
      slicer,
      cancelled,
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
