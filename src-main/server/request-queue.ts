import type { RequestQueueMode } from '../../src-preload/protocol';

/** How a request takes its thread's queue: the method table's `queue` (see `RequestQueueMode`). */
export type QueueMode = RequestQueueMode;

const settled = (): void => undefined;

/**
 * One thread's request queue. It orders the *handling* of requests (until each has its answer), never
 * what they start: a turn runs after `turn/start` has answered, and the queue is free meanwhile.
 */
export class RequestQueue {
  /** Settles once everything queued so far has been handled. */
  private all: Promise<void> = Promise.resolve();
  /** Settles once every exclusive request queued so far has been handled. */
  private exclusives: Promise<void> = Promise.resolve();
  private waiting = 0;

  /** Requests queued or being handled. */
  get size(): number {
    return this.waiting;
  }

  /** Runs `work` when its turn comes; resolves or rejects as it does. `onIdle` runs once nothing is left. */
  run<T>(mode: QueueMode, work: () => Promise<T>, onIdle: () => void = settled): Promise<T> {
    this.waiting += 1;
    const start = mode === 'exclusive' ? this.all : this.exclusives;
    const result = start.then(work);
    const done = result.then(settled, settled).then(() => {
      this.waiting -= 1;
      if (this.waiting === 0) onIdle();
    });
    if (mode === 'exclusive') {
      this.all = done;
      this.exclusives = done;
    } else if (mode === 'shared') {
      this.all = Promise.all([this.all, done]).then(settled);
    }
    return result;
  }
}
