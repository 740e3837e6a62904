// Widgets that are costly to make (a terminal: xterm injects its styles and measures a character with a
// forced layout; a Monaco diff editor: two editors, their views and a diff) are made one at a time, each in
// a task of its own after the frame in which React showed their place. Made inside React's commit they
// made one long task of it: a thread opened with five command outputs and two diffs held the page for the
// whole set before anything of the thread was drawn, and beside busy agents every new output or diff
// streaming in cost a frame of its own plus the widget's. Now the thread is drawn first, and the widgets
// follow, one per frame, in the order their places were shown (top to bottom).

/** What a frame scheduler offers (the window's, or a test's). */
export interface FrameClock {
  requestAnimationFrame(callback: () => void): number;
  cancelAnimationFrame(handle: number): void;
  setTimeout(callback: () => void, ms: number): number;
  clearTimeout(handle: number): void;
}

export interface WidgetQueue {
  /** Makes a widget after the current frame, one per frame; the returned function cancels it if not yet made. */
  make(job: () => void): () => void;
}

export function createWidgetQueue(clock: FrameClock): WidgetQueue {
  const jobs: (() => void)[] = [];
  let frame: number | null = null;
  let timer: number | null = null;

  const runOne = (): void => {
    timer = null;
    const job = jobs.shift();
    if (job !== undefined) {
      try {
        job();
      } catch (error) {
        // One widget that fails to build must not stop the others.
        console.error(error);
      }
    }
    schedule();
  };
  // After the next frame has been drawn: a task queued from its animation-frame callbacks runs once the
  // frame's rendering is done.
  const schedule = (): void => {
    if (jobs.length === 0 || frame !== null || timer !== null) return;
    frame = clock.requestAnimationFrame(() => {
      frame = null;
      timer = clock.setTimeout(runOne, 0);
    });
  };

  return {
    make(job) {
      let pending = true;
      const entry = (): void => {
        pending = false;
        job();
      };
      jobs.push(entry);
      schedule();
      return () => {
        if (!pending) return;
        pending = false;
        const at = jobs.indexOf(entry);
        if (at >= 0) jobs.splice(at, 1);
        if (jobs.length === 0) {
          if (frame !== null) clock.cancelAnimationFrame(frame);
          if (timer !== null) clock.clearTimeout(timer);
          frame = null;
          timer = null;
        }
      };
    },
  };
}

let shared: WidgetQueue | null = null;

/** The page's queue. */
export function widgetQueue(): WidgetQueue {
  shared ??= createWidgetQueue({
    requestAnimationFrame: (callback) => window.requestAnimationFrame(callback),
    cancelAnimationFrame: (handle) => window.cancelAnimationFrame(handle),
    setTimeout: (callback, ms) => window.setTimeout(callback, ms),
    clearTimeout: (handle) => window.clearTimeout(handle),
  });
  return shared;
}
