// The watch of the runs histories: a run ended before the watch began is not told; one that ends after is
// told once, on the folder's event (after the debounce) or, when no event comes, on the slow poll; a run
// this host claimed (its own scheduler told it) is not told again.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordEnd, recordStart } from '../../../src-main/automations/history';
import { watchRunEnds, type RunEndWatch } from '../../../src-main/automations/run-watch';
import type { FileWatch } from '../../../src-main/automations/triggers';
import { FakeClock } from './fake-clock';

let home: string;
let watch: RunEndWatch | null = null;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'weft-run-watch-'));
});

afterEach(async () => {
  await watch?.close();
  watch = null;
  await rm(home, { recursive: true, force: true });
});

async function finishedRun(id: string): Promise<string> {
  const runId = await recordStart(home, id, { trigger: 'schedule', slot: 1, at: 1 });
  await recordEnd(home, id, runId, { at: 2, status: 'completed', reason: null, finalMessage: 'done' });
  return runId;
}

/** A watcher the test fires by hand (`fire(name)`), as fs.watch would. */
function handWatch(): { watch: FileWatch; fire(name: string | null): void } {
  let listener: ((name: string | null) => void) | null = null;
  return {
    watch: (_dir, onChange) => {
      listener = onChange;
      return () => {
        listener = null;
      };
    },
    fire: (name) => listener?.(name),
  };
}

describe('watchRunEnds', () => {
  it('tells each run that ends after it began once: on an event after the debounce, or on the poll', async () => {
    const before = await finishedRun('nightly');
    const clock = new FakeClock(0);
    const told: string[] = [];
    let onTold: (() => void) | null = null;
    const nextTold = (): Promise<void> =>
      new Promise((resolve) => {
        onTold = resolve;
      });
    const events = handWatch();
    watch = await watchRunEnds({
      weftHome: home,
      onEnded: (id, runId) => {
        told.push(`${id} ${runId}`);
        onTold?.();
      },
      log: () => undefined,
      watch: events.watch,
      setTimer: clock.setTimer,
      pollMs: 30_000,
    });

    const byEvent = await finishedRun('nightly');
    events.fire('nightly.runs.jsonl');
    events.fire('nightly.toml');
    // Only the debounce's timer is pending (the poll's comes later), and it is the history's event's.
    expect(clock.nextTimer()).toBe(200);
    let told1 = nextTold();
    clock.advance(200);
    await told1;
    expect(told).toEqual([`nightly ${byEvent}`]);

    // No event at all (a file system that sends none): the poll finds it.
    const byPoll = await finishedRun('weekly');
    told1 = nextTold();
    clock.advance(30_000 - 200);
    await told1;
    expect(told).toEqual([`nightly ${byEvent}`, `weekly ${byPoll}`]);

    // Claimed by this host's scheduler first: not told by the watch.
    const claimed = await finishedRun('weekly');
    expect(watch.claim('weekly', claimed)).toBe(true);
    await watch.rescan();
    expect(watch.claim('weekly', claimed)).toBe(false);
    expect(told).toEqual([`nightly ${byEvent}`, `weekly ${byPoll}`]);
    expect(before).not.toBe(byEvent);
  });

  it('makes no automations folder in a home without one, and watches it from the poll after it is made', async () => {
    const clock = new FakeClock(0);
    const told: string[] = [];
    let onTold: (() => void) | null = null;
    const events = handWatch();
    const watching: string[] = [];
    watch = await watchRunEnds({
      weftHome: home,
      onEnded: (id, runId) => {
        told.push(`${id} ${runId}`);
        onTold?.();
      },
      log: () => undefined,
      watch: (dir, onChange) => {
        watching.push(dir);
        return events.watch(dir, onChange);
      },
      setTimer: clock.setTimer,
      pollMs: 30_000,
    });
    expect([await readdir(home), watching]).toEqual([[], []]);

    const first = await finishedRun('nightly');
    const toldFirst = new Promise<void>((resolve) => {
      onTold = resolve;
    });
    clock.advance(30_000);
    await toldFirst;
    expect([told, watching]).toEqual([[`nightly ${first}`], [join(home, 'automations')]]);
  });
});
