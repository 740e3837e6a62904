// Long work on the main thread in slices: the core runs in the desktop app's main process and serves every
// thread and window from it, so work that grows with its input (a patch of 10,000 hunks, the diff of a
// 50 MB file) gives the event loop back every few milliseconds instead of holding it until done.

/** How long a slice holds the event loop: well under the 50 ms in which another request must be answered. */
export const SLICE_MS = 8;

/** Paced work waiting for its next slice, resumed one per turn of the event loop (see `yieldToLoop`). */
const waiting: (() => void)[] = [];
let resumeQueued = false;

function resumeNext(): void {
  resumeQueued = false;
  waiting.shift()?.();
  // An immediate queued from an immediate runs in the next turn, after the loop has polled for I/O.
  if (waiting.length > 0) queueResume();
}

function queueResume(): void {
  resumeQueued = true;
  setImmediate(resumeNext);
}

/**
 * Gives the event loop back until this work's next turn: what waits is resumed one per turn of the loop, in
 * the order it paused, with I/O (another client's request) polled between each. Each task pausing with
 * its own `setImmediate` resumed with all the others in one turn, so eight busy threads, each diffing or
 * checkpointing in 8 ms slices, held the loop 64 ms at a time. All paced work of the main process yields
 * here (Slicer, the checkpoints' slices, the store's readers).
 */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!resumeQueued) queueResume();
  });
}

/**
 * Runs `steps` one after another with the event loop given back between them (`yieldToLoop`). Importing a
 * module graph reads, compiles and evaluates it in one stretch of the loop: a big graph imported as several
 * smaller ones, in order, lets requests be answered between them.
 */
export async function inSteps(steps: readonly (() => Promise<unknown>)[]): Promise<void> {
  for (const step of steps) {
    await step();
    await yieldToLoop();
  }
}

/**
 * Cuts a stretch of work into slices of about `ms`: call `due()` often (it reads the clock) and
 * `await pause()` when it says so; I/O, timers and other requests run in between. A background pass gives
 * `giveWay`: each pause also waits for it (for instance until nothing more urgent is queued).
 */
export class Slicer {
  private start = performance.now();

  constructor(
    private readonly ms: number = SLICE_MS,
    private readonly giveWay: () => Promise<void> = () => Promise.resolve(),
  ) {}

  /** Whether the current slice has used its time. */
  due(): boolean {
    return performance.now() - this.start >= this.ms;
  }

  /** Gives the event loop back once (and waits for `giveWay`), then starts a new slice. */
  async pause(): Promise<void> {
    await yieldToLoop();
    await this.giveWay();
    this.start = performance.now();
  }

  /** `pause()` if the slice is due; otherwise nothing. For loops whose steps are not tiny. */
  async pace(): Promise<void> {
    if (this.due()) await this.pause();
  }
}

/** What paced work needs of a Slicer. */
export type Pacer = Pick<Slicer, 'due' | 'pause' | 'pace'>;

/**
 * A pacer that never gives the event loop back, for a process that serves nothing else (a one-shot
 * command): its pauses would only let V8 run collection tasks it would otherwise never need before exit.
 */
export const UNPACED: Pacer = { due: () => false, pause: () => Promise.resolve(), pace: () => Promise.resolve() };
