// Long passes over rollouts share the event loop: they work in slices of a few milliseconds and give the
// loop back between them (util/slicer.ts), as the app host serves every thread from one process (see
// ARCHITECTURE.md, "The main process never waits").

import { Slicer } from '../util/slicer';

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
