import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { whenQuiet } from '../../../src-main/util/quiet';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('whenQuiet', () => {
  it('runs once nothing touched it for the quiet time, and only once', () => {
    const run = vi.fn();
    const quiet = whenQuiet(100, null, run);
    vi.advanceTimersByTime(90);
    quiet.touch();
    vi.advanceTimersByTime(90);
    quiet.touch();
    vi.advanceTimersByTime(99);
    expect(run).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(run).toHaveBeenCalledTimes(1);
    quiet.touch();
    vi.advanceTimersByTime(1_000);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('runs by the deadline however busy it stays', () => {
    const run = vi.fn();
    const quiet = whenQuiet(100, 250, run);
    for (let t = 0; t < 240; t += 60) {
      vi.advanceTimersByTime(60);
      quiet.touch();
    }
    expect(run).not.toHaveBeenCalled();
    vi.advanceTimersByTime(10);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('never runs once stopped', () => {
    const run = vi.fn();
    const quiet = whenQuiet(100, 200, run);
    vi.advanceTimersByTime(50);
    quiet.stop();
    quiet.touch();
    vi.advanceTimersByTime(1_000);
    expect(run).not.toHaveBeenCalled();
  });
});
