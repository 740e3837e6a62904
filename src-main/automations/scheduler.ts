// The scheduler inside a host (the desktop app, `weft serve`, `weft app-server`): it wakes at the next
// firing of any automation (at least once a minute, so a file added or edited by hand is noticed, and the
// branches of `commit` triggers are looked at), watches the files of `fileChange` triggers, starts every
// run that is owed and does not wait for it: a long run holds only its own automation's lock. Only the
// host owning the WEFT_HOME's scheduling (`owns`) does this. When it starts watching an automation's files
// (at start, or once it owns the scheduling) it first compares them with the digest its history last
// recorded, as `due` does, so a change made while nothing watched runs once. Its clock (and the files'
// watcher) come in from outside, so tests drive them.
import { errorMessage } from '../util/errors';
import { nextFire } from './cron';
import { filesChanged, watchedFolder } from './files-snapshot';
import { readRuns } from './history';
import { isBroken, type Automation } from './record';
import { dueSlot, runAutomation, type RunnerContext, type RunOutcome, type RunTrigger } from './runner';
import { commitDue, FileTriggers, fsWatch, type FileWatch } from './triggers';
import { listAutomations } from './store';

export interface SchedulerClock {
  now(): number;
  /** Calls `fn` once after `ms`; the returned function cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

export const systemClock: SchedulerClock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** The longest the scheduler sleeps: files changed by hand are read again at least this often. */
const MAX_SLEEP_MS = 60_000;

export interface SchedulerOptions extends RunnerContext {
  clock: SchedulerClock;
  log(line: string): void;
  /** Told each run's outcome (tests, notifications). */
  onRun?(automationId: string, outcome: RunOutcome): void;
  /** How `fileChange` triggers watch files; omitted = `fs.watch`. */
  watch?: FileWatch;
  /**
   * Whether this scheduler runs the schedule and the triggers now (the host holding the WEFT_HOME's
   * scheduler lock does); asked at each pass. Omitted = always. Run now works either way.
   */
  owns?(): Promise<boolean>;
}

export interface AutomationScheduler {
  /** Looks for owed runs now (also what each timer does); resolves once it has looked, not when the runs end. */
  tick(): Promise<void>;
  /**
   * Starts a run of the automation now (Run now); resolves with its run id once it is recorded as started,
   * null when a run of it is under way. The run goes on; `close` stops it like the scheduled ones.
   */
  runNow(automation: Automation): Promise<string | null>;
  /** Stops the timer, stops the runs under way (they end `interrupted`) and waits for them. */
  close(): Promise<void>;
}

export function startScheduler(options: SchedulerOptions): AutomationScheduler {
  const { clock } = options;
  const running = new Map<string, Promise<void>>();
  const stop = new AbortController();
  let cancelTimer: (() => void) | null = null;
  let closed = false;
  let ticking: Promise<void> | null = null;
  let manualRuns = 0;
  /** `fileChange` automations (id and folder) whose files were compared since this host began watching. */
  const compared = new Set<string>();

  const schedule = (ms: number): void => {
    cancelTimer?.();
    if (closed) return;
    cancelTimer = clock.setTimer(() => void tick(), Math.max(0, ms));
  };

  /** Starts a run of the automation on its trigger unless one of it is under way; does not wait for it. */
  const launch = (automation: Automation, trigger: RunTrigger): void => {
    if (closed || running.has(automation.id)) return;
    const run = runAutomation({ ...options, now: clock.now }, automation, trigger, stop.signal).then(
      (outcome) => options.onRun?.(automation.id, outcome),
      (error: unknown) =>
        options.log(`weft automations: ${automation.id}: the run could not be recorded: ${errorMessage(error)}`),
    );
    running.set(
      automation.id,
      run.finally(() => running.delete(automation.id)),
    );
  };

  const files = new FileTriggers({
    watch: options.watch ?? fsWatch,
    setTimer: clock.setTimer,
    start: (automation) => launch(automation, { type: 'fileChange' }),
    running: (id) => running.has(id),
  });

  const pass = async (): Promise<void> => {
    if (options.owns !== undefined && !(await options.owns())) {
      files.sync([]);
      compared.clear();
      schedule(MAX_SLEEP_MS);
      return;
    }
    const now = clock.now();
    let wake = now + MAX_SLEEP_MS;
    const usable: Automation[] = [];
    for (const automation of await listAutomations(options.weftHome)) {
      if (isBroken(automation) || !automation.enabled) continue;
      usable.push(automation);
      const trigger = automation.trigger;
      if (trigger.type === 'schedule') {
        const next = nextFire(trigger.cron, trigger.timezone, now);
        if (next !== null) wake = Math.min(wake, next);
        if (running.has(automation.id)) continue;
        if (dueSlot(automation, await readRuns(options.weftHome, automation.id), now) === null) continue;
        launch(automation, { type: 'schedule' });
      } else if (trigger.type === 'commit' && !running.has(automation.id)) {
        const commit = await commitDue(options.weftHome, automation, now);
        if (commit !== null) launch(automation, { type: 'commit', commit });
      } else if (trigger.type === 'fileChange') {
        // Once per watch: later changes are the watcher's to see.
        const key = `${automation.id}\0${watchedFolder(automation) ?? ''}`;
        if (compared.has(key) || running.has(automation.id)) continue;
        compared.add(key);
        if (await filesChanged(options.weftHome, automation, now)) launch(automation, { type: 'fileChange' });
      }
    }
    files.sync(usable);
    schedule(wake - clock.now());
  };

  const tick = (): Promise<void> => {
    ticking ??= pass()
      .catch((error: unknown) => {
        options.log(`weft automations: could not read the automations: ${errorMessage(error)}`);
        schedule(MAX_SLEEP_MS);
      })
      .finally(() => {
        ticking = null;
      });
    return ticking;
  };

  const runNow = (automation: Automation): Promise<string | null> =>
    new Promise((resolve, reject) => {
      const run = runAutomation(
        { ...options, now: clock.now },
        automation,
        { type: 'manual' },
        stop.signal,
        resolve,
      ).then(
        (outcome) => {
          if (outcome.type !== 'ran') resolve(null);
          options.onRun?.(automation.id, outcome);
        },
        (error: unknown) => {
          reject(error instanceof Error ? error : new Error(String(error)));
          options.log(`weft automations: ${automation.id}: the run could not be recorded: ${errorMessage(error)}`);
        },
      );
      const key = `${automation.id} now ${String(++manualRuns)}`;
      running.set(
        key,
        run.finally(() => running.delete(key)),
      );
    });

  void tick();
  return {
    tick,
    runNow,
    async close() {
      closed = true;
      cancelTimer?.();
      files.close();
      await ticking;
      stop.abort();
      await Promise.all(running.values());
    },
  };
}

/**
 * Runs every automation owed a run now, each once, and waits for them (`weft automations due`): a time of
 * its schedule, a new commit, or a change of its files since the last look (`files-snapshot.ts`).
 */
export async function runDueAutomations(
  ctx: RunnerContext,
  log: (line: string) => void,
): Promise<{ id: string; outcome: RunOutcome }[]> {
  const now = ctx.now();
  const owed: { automation: Automation; trigger: RunTrigger }[] = [];
  for (const automation of await listAutomations(ctx.weftHome)) {
    if (isBroken(automation)) {
      log(`weft automations: skipped: ${automation.problem}`);
      continue;
    }
    if (dueSlot(automation, await readRuns(ctx.weftHome, automation.id), now) !== null)
      owed.push({ automation, trigger: { type: 'schedule' } });
    const commit = await commitDue(ctx.weftHome, automation, now);
    if (commit !== null) owed.push({ automation, trigger: { type: 'commit', commit } });
    if (await filesChanged(ctx.weftHome, automation, now)) owed.push({ automation, trigger: { type: 'fileChange' } });
  }
  return Promise.all(
    owed.map(async ({ automation, trigger }) => ({
      id: automation.id,
      outcome: await runAutomation(ctx, automation, trigger),
    })),
  );
}
