/**
 * Giving the event loop back. The host serves every thread from one process (in the desktop app, the
 * process every window waits on), so checkpoint work that walks thousands of entries does it in slices:
 * `Slicer.maybeYield()` returns to the loop once the current slice has held it `sliceMs`.
 */

import { yieldToLoop } from '../util/slicer';

/** The longest stretch a checkpoint step keeps the loop; well under the host's 50 ms target. */
export const SLICE_MS = 10;

export class Slicer {
  private since = performance.now();

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** Yields when the current slice has run `sliceMs`; otherwise returns at once. */
  async maybeYield(): Promise<void> {
    if (performance.now() - this.since < this.sliceMs) return;
    await yieldToLoop();
    this.since = performance.now();
  }
}
