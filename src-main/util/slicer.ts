// Long work on the main thread in slices: the core runs in the desktop app's main process and serves every
// thread and window from it, so work that grows with its input (a patch of 10,000 hunks, the diff of a
// 50 MB file) gives the event loop back every few milliseconds instead of holding it until done.

/** How long a slice holds the event loop: well under the 50 ms in which another request must be answered. */
export const SLICE_MS = 8;

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Cuts a stretch of work into slices of about `ms`: call `due()` often (it reads the clock) and
 * `await pause()` when it says so; I/O, timers and other requests run in between.
 */
export class Slicer {
  private start = performance.now();

  constructor(private readonly ms: number = SLICE_MS) {}

  /** Whether the current slice has used its time. */
  due(): boolean {
    return performance.now() - this.start >= this.ms;
  }

  /** Gives the event loop back once, then starts a new slice. */
  async pause(): Promise<void> {
    await yieldToLoop();
    this.start = performance.now();
  }

  /** `pause()` if the slice is due; otherwise nothing. For loops whose steps are not tiny. */
  async pace(): Promise<void> {
    if (this.due()) await this.pause();
  }
}

/** What paced work needs of a Slicer. */
export type Pacer = Pick<Slicer, 'due' | 'pause' | 'pace'>;
