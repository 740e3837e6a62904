import { describe, expect, it } from 'vitest';
import { inSteps, Slicer, yieldToLoop } from '../../../src-main/util/slicer';

/** Counts turns of the event loop: one tick per turn, from its own immediate, for as long as it runs. */
function loopTurns(): { readonly turn: number; stop(): void } {
  let turn = 0;
  let running = true;
  const tick = (): void => {
    turn++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get turn() {
      return turn;
    },
    stop: () => (running = false),
  };
}

/** Holds the thread for `ms`, as a slice of real work does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('paced work', () => {
  it('runs one slice per turn of the event loop however many tasks pause at once, in turns', async () => {
    const turns = loopTurns();
    const slices: { task: number; turn: number }[] = [];
    const task = async (n: number): Promise<void> => {
      const pacer = new Slicer(2);
      for (let k = 0; k < 5; k++) {
        slices.push({ task: n, turn: turns.turn });
        busy(3);
        await pacer.pace();
      }
    };
    await Promise.all([task(0), task(1), task(2), task(3)]);
    turns.stop();
    // Before, the four tasks paused together and all resumed in the same turn: 4 slices held it.
    const perTurn = new Map<number, number>();
    for (const { turn } of slices.slice(4)) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
    expect(Math.max(...perTurn.values())).toBe(1);
    // Round robin: each task's slices are spread among the others'.
    expect(slices.slice(4, 8).map((s) => s.task)).toEqual([0, 1, 2, 3]);
  });

  it('shares the turns between slices and plain yields', async () => {
    const turns = loopTurns();
    const seen: number[] = [];
    const checkpoint = async (): Promise<void> => {
      const slicer = new Slicer(2);
      for (let k = 0; k < 4; k++) {
        busy(3);
        await slicer.pace();
        seen.push(turns.turn);
      }
    };
    const plain = async (): Promise<void> => {
      for (let k = 0; k < 4; k++) {
        busy(3);
        await yieldToLoop();
        seen.push(turns.turn);
      }
    };
    await Promise.all([checkpoint(), plain()]);
    turns.stop();
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('runs steps in order with a turn of the event loop between each, and stops at one that fails', async () => {
    const turns = loopTurns();
    const ran: { step: number; turn: number }[] = [];
    const step = (n: number) => async (): Promise<void> => {
      ran.push({ step: n, turn: turns.turn });
      busy(2);
    };
    await inSteps([step(0), step(1), step(2)]);
    expect(ran.map((r) => r.step)).toEqual([0, 1, 2]);
    // Each step in a turn of its own: a request read in between is answered before the next step.
    expect(new Set(ran.map((r) => r.turn)).size).toBe(3);

    const failing = inSteps([step(3), () => Promise.reject(new Error('the module could not be loaded')), step(4)]);
    await expect(failing).rejects.toThrow('the module could not be loaded');
    turns.stop();
    expect(ran.map((r) => r.step)).toEqual([0, 1, 2, 3]);
  });
});
