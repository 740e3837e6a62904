import { describe, expect, it, vi } from 'vitest';
import { createWidgetQueue } from '../../../src-renderer/components/widget-queue';
import type { FrameClock } from '../../../src-renderer/components/widget-queue';

/** A clock whose frames and timers run when the test says so. */
function fakeClock() {
  let next = 1;
  const frames = new Map<number, () => void>();
  const timers = new Map<number, () => void>();
  const clock: FrameClock = {
    requestAnimationFrame: (callback) => {
      frames.set(next, callback);
      return next++;
    },
    cancelAnimationFrame: (handle) => void frames.delete(handle),
    setTimeout: (callback) => {
      timers.set(next, callback);
      return next++;
    },
    clearTimeout: (handle) => void timers.delete(handle),
  };
  const run = (from: Map<number, () => void>): number => {
    const due = [...from.values()];
    from.clear();
    for (const callback of due) callback();
    return due.length;
  };
  return {
    clock,
    /** Runs the animation-frame callbacks due, then the tasks they queued (a frame and what follows it). */
    frame: (): void => {
      run(frames);
      run(timers);
    },
    pending: () => frames.size + timers.size,
  };
}

describe('the widget queue', () => {
  it('makes nothing in the task that asked, and one widget per frame after it, in order', () => {
    const { clock, frame } = fakeClock();
    const queue = createWidgetQueue(clock);
    const made: string[] = [];
    queue.make(() => made.push('terminal 1'));
    queue.make(() => made.push('diff'));
    queue.make(() => made.push('terminal 2'));
    expect(made).toEqual([]);
    frame();
    expect(made).toEqual(['terminal 1']);
    frame();
    expect(made).toEqual(['terminal 1', 'diff']);
    frame();
    expect(made).toEqual(['terminal 1', 'diff', 'terminal 2']);
  });

  it('drops a widget whose place went away before it was made, and stops asking for frames when none is left', () => {
    const { clock, frame, pending } = fakeClock();
    const queue = createWidgetQueue(clock);
    const made: string[] = [];
    const cancelFirst = queue.make(() => made.push('first'));
    queue.make(() => made.push('second'));
    cancelFirst();
    frame();
    expect(made).toEqual(['second']);
    const cancelThird = queue.make(() => made.push('third'));
    cancelThird();
    expect(pending()).toBe(0);
    frame();
    expect(made).toEqual(['second']);
    // Cancelling after it was made does nothing.
    const cancelFourth = queue.make(() => made.push('fourth'));
    frame();
    cancelFourth();
    expect(made).toEqual(['second', 'fourth']);
  });

  it('goes on after a widget that throws', () => {
    const { clock, frame } = fakeClock();
    const queue = createWidgetQueue(clock);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const made: string[] = [];
    queue.make(() => {
      throw new Error('no canvas');
    });
    queue.make(() => made.push('next'));
    frame();
    expect(error).toHaveBeenCalledTimes(1);
    frame();
    expect(made).toEqual(['next']);
    error.mockRestore();
  });

  it('makes a widget asked for while another is made in a later frame', () => {
    const { clock, frame } = fakeClock();
    const queue = createWidgetQueue(clock);
    const made: string[] = [];
    queue.make(() => {
      made.push('outer');
      queue.make(() => made.push('inner'));
    });
    frame();
    expect(made).toEqual(['outer']);
    frame();
    expect(made).toEqual(['outer', 'inner']);
  });
});
