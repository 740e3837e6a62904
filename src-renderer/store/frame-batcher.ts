// Buffers values (notifications) and hands them over in one call per animation frame, so that 2,000
// deltas a second cost one state update and one render per frame. In a hidden page, where animation
// frames stop, a timer takes over so that the buffer cannot grow without bound.

export interface FrameScheduler {
  /** Runs `callback` once, soon; returns a function that cancels it. */
  schedule(callback: () => void): () => void;
}

/** requestAnimationFrame, raced by a 100 ms timer for hidden pages. */
export function animationFrameScheduler(win: Window): FrameScheduler {
  return {
    schedule(callback) {
      let done = false;
      const run = (): void => {
        if (done) return;
        done = true;
        win.cancelAnimationFrame(frame);
        win.clearTimeout(timer);
        callback();
      };
      const frame = win.requestAnimationFrame(run);
      const timer = win.setTimeout(run, 100);
      return () => {
        done = true;
        win.cancelAnimationFrame(frame);
        win.clearTimeout(timer);
      };
    },
  };
}

export interface FrameBatcher<T> {
  push(value: T): void;
  /** Hands over whatever is buffered now, synchronously. */
  flush(): void;
  /** Drops the buffer and cancels the pending frame. */
  dispose(): void;
}

export function createFrameBatcher<T>(scheduler: FrameScheduler, deliver: (values: T[]) => void): FrameBatcher<T> {
  let buffer: T[] = [];
  let cancel: (() => void) | null = null;

  const flush = (): void => {
    cancel?.();
    cancel = null;
    if (buffer.length === 0) return;
    const values = buffer;
    buffer = [];
    deliver(values);
  };

  return {
    push(value) {
      buffer.push(value);
      if (cancel === null) cancel = scheduler.schedule(flush);
    },
    flush,
    dispose() {
      cancel?.();
      cancel = null;
      buffer = [];
    },
  };
}
