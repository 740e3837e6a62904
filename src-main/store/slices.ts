// Long passes over rollouts share the event loop: they work in slices of a few milliseconds and give the
// loop back between them (`setImmediate`, so I/O and timers waiting meanwhile run first), as the app host
// serves every thread from one process (see ARCHITECTURE.md, "The main process never waits").

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Tells when a slice of `ms` is used up; `pause` gives the loop back (and waits for `giveWay`), then starts the next. */
export class Slicer {
  private start = performance.now();
  constructor(
    private readonly ms: number,
    private readonly giveWay: () => Promise<void> = () => Promise.resolve(),
  ) {}
  due(): boolean {
    return performance.now() - this.start >= this.ms;
  }
  async pause(): Promise<void> {
    await yieldToLoop();
    await this.giveWay();
    this.start = performance.now();
  }
}

/**
 * Runs a stepwise pass (a generator that yields between steps, such as `lineSteps` or `summarizeSteps`)
 * to its end, giving the event loop back whenever it has held it for `sliceMs`.
 */
export async function runSliced<T>(steps: Generator<unknown, T>, sliceMs: number): Promise<T> {
  const slicer = new Slicer(sliceMs);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (slicer.due()) await slicer.pause();
  }
}
