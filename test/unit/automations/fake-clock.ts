// A clock the test moves by hand: timers fire when `advance` passes their time, never on their own.
import type { SchedulerClock } from '../../../src-main/automations/scheduler';

export class FakeClock implements SchedulerClock {
  #timers: { at: number; fn: () => void }[] = [];

  constructor(private time: number) {}

  now = (): number => this.time;

  setTimer = (fn: () => void, ms: number): (() => void) => {
    const timer = { at: this.time + ms, fn };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  };

  /** Moves time on by `ms` and fires, in time order, each timer whose time has come. */
  advance(ms: number): void {
    this.time += ms;
    const due = this.#timers.filter((t) => t.at <= this.time).sort((a, b) => a.at - b.at);
    this.#timers = this.#timers.filter((t) => !due.includes(t));
    for (const t of due) t.fn();
  }

  /** When the earliest pending timer fires (ms), if any. */
  nextTimer(): number | null {
    return this.#timers.reduce<number | null>((min, t) => (min === null || t.at < min ? t.at : min), null);
  }
}
