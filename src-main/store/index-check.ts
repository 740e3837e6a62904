// The start-up index check run in a worker thread (index-check-worker.ts), so that the main thread, which
// answers every request, never holds a slice of it: the stat of every rollout and the reading of the
// changed ones happen there. The main thread only writes the rows the worker sends, each batch in one
// transaction (a few ms for ~100 threads, nothing when no rollout changed), when no request is in flight.
// A host may start the worker as soon as it opens the store (its start-up, tens of ms, then overlaps the
// host's own) and let the writes begin once it is assembled (`run`): what arrives before waits.
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../util/worker-thread';
import { IndexCheckMessage } from './index-check-messages';
import { STOP, type IndexCheckRequest } from './index-check-request';
import type { RolloutSource } from './index-changes';
import type { IndexChange, RepairReport } from './repair';

/**
 * The worker's young generation, at most. Left to V8 (Node 24 lets it grow to tens of MiB on a short burst
 * of allocation), the check of 10,000 threads raised the app server's resident memory by 17 MiB for good:
 * the process keeps the pages. Its garbage is small and short-lived, and the check is background work.
 */
const CHECK_YOUNG_GENERATION_MB = 4;

/** What the check's writes need of the store. */
export interface IndexCheckWriter {
  /** Writes one batch of rows (throws what the index throws: a damaged index ends the check). */
  write: (change: IndexChange) => void;
  /** Awaited before each write: resolves when no request is in flight (see Catalog.inForeground). */
  giveWay: () => Promise<void>;
}

/** An error the worker reported, with SQLite's code when it had one (a damaged index is recognized by it). */
class IndexCheckError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** How long `stop` waits for the worker to end by itself before it terminates it. */
const STOP_GRACE_MS = 5000;

const CANCELLED: RepairReport = { indexed: 0, removed: 0, files: 0, warnings: [], cancelled: true };

/** One check in a worker thread, from its start to its report. */
export class IndexCheck {
  /** What the worker said before `run` (and, after it, what is not handled yet), in order. */
  private readonly inbox: (IndexCheckMessage | { type: 'ended'; error: Error | null })[] = [];
  private deliver: (() => void) | null = null;
  private stopped = false;
  private markWarm: () => void = () => undefined;
  /**
   * Resolves once the worker has sent its first rows (or its report, or ended): its start-up is over (a
   * new thread with its own heap, whose code runs cold at first and builds its schemas on first use).
   */
  readonly warmedUp = new Promise<void>((resolve) => (this.markWarm = resolve));
  private readonly worker: Promise<Worker | null>;
  private markExited: (code: number | null) => void = () => undefined;
  /**
   * The worker's exit code once it has ended (0: it ended by itself, as `stop` has it do), null when
   * none ran.
   */
  readonly exited = new Promise<number | null>((resolve) => (this.markExited = resolve));

  /**
   * Starts the worker; see `run`. A `background` check (the default) runs below the main thread
   * (util/pool-priority.ts); one that requests wait for runs beside it.
   */
  constructor(options: { home: string; indexPath: string; sources: RolloutSource[]; background?: boolean }) {
    const request: IndexCheckRequest = { home: options.home, indexPath: options.indexPath, sources: options.sources };
    this.worker = startWorker(
      'index-check-worker',
      {
        workerData: request,
        resourceLimits: { maxYoungGenerationSizeMb: CHECK_YOUNG_GENERATION_MB },
      },
      { background: options.background ?? true },
    ).then(
      (worker) => {
        if (worker === null) {
          this.push({ type: 'ended', error: null });
          return null;
        }
        if (this.stopped) worker.postMessage(STOP);
        worker.on('message', (raw: unknown) => {
          // The check's last message (its report, usually its only one) without zod's compiled fast path:
          // compiling the parser for one message took 1–2 ms of the main thread while it answers its first
          // requests. Rows of changes, which may come by the thousand, keep it.
          const once = typeof raw === 'object' && raw !== null && 'type' in raw && raw.type !== 'change';
          const parsed = IndexCheckMessage.safeParse(raw, { jitless: once });
          this.push(
            parsed.success
              ? parsed.data
              : {
                  type: 'failed',
                  message: `the index check sent an unknown message: ${parsed.error.message}`,
                  code: null,
                },
          );
        });
        worker.on('error', (error) => this.push({ type: 'ended', error }));
        // Every message the worker posted is delivered before 'exit'.
        worker.on('exit', (code) => {
          this.markExited(code);
          this.push({ type: 'ended', error: null });
        });
        return worker;
      },
      (error: unknown) => {
        this.push({ type: 'ended', error: error instanceof Error ? error : new Error(String(error)) });
        return null;
      },
    );
    void this.worker.then((worker) => {
      if (worker === null) this.markExited(null);
    });
  }

  private push(m: IndexCheckMessage | { type: 'ended'; error: Error | null }): void {
    this.markWarm();
    this.inbox.push(m);
    this.deliver?.();
  }

  /**
   * Writes what the worker finds, in order, each batch when no request is in flight; resolves with its
   * report once every batch is written. Resolves null when there is no worker, or it failed before a row
   * was written (the caller then checks on its own thread); rejects with the first error after that.
   */
  async run(writer: IndexCheckWriter): Promise<RepairReport | null> {
    let wrote = false;
    const fallBack = (error: Error): null => {
      if (wrote) throw error;
      return null;
    };
    try {
      for (;;) {
        const m = this.inbox.shift() ?? (await this.next());
        switch (m.type) {
          case 'change':
            await writer.giveWay();
            if (this.stopped) return CANCELLED;
            writer.write(m.change);
            wrote = true;
            break;
          case 'done':
            return this.stopped ? { ...m.report, cancelled: true } : m.report;
          case 'failed':
            return fallBack(new IndexCheckError(m.message, m.code ?? undefined));
          case 'ended':
            if (this.stopped) return CANCELLED;
            return fallBack(m.error ?? new Error('the index check stopped before it finished'));
        }
      }
    } finally {
      await this.stop(false);
    }
  }

  private next(): Promise<IndexCheckMessage | { type: 'ended'; error: Error | null }> {
    return new Promise((resolve) => {
      this.deliver = () => {
        const m = this.inbox.shift();
        if (m === undefined) return;
        this.deliver = null;
        resolve(m);
      };
    });
  }

  /** Stops the worker (a check under way ends as cancelled). */
  async stop(cancel = true): Promise<void> {
    if (cancel) {
      this.stopped = true;
      // A `run` waiting for the worker's next message ends now.
      this.push({ type: 'ended', error: null });
    }
    const worker = await this.worker;
    if (worker === null) return;
    // Asked, not terminated: a worker terminated while it is inside a native call (loading SQLite's addon,
    // opening or closing the index) can abort the whole process ("FATAL ERROR: Error::New
    // napi_get_last_error_info"). It ends at its next slice, or once the call it is in returns; only one
    // that has not ended after STOP_GRACE_MS is terminated.
    worker.postMessage(STOP);
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = await Promise.race([
      this.exited.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STOP_GRACE_MS))),
    ]);
    clearTimeout(timer);
    if (gaveUp) await worker.terminate();
  }
}
