// The scheduler under a fake clock (no sleeps, no real time): a schedule due every minute fires at the
// minute, a window missed while asleep runs once, a run under way is never doubled, a failing run keeps
// its reason, and a run whose process died is marked failed with its thread kept.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRuns, recordStart, recordThread } from '../../../src-main/automations/history';
import { lockFile, schedulerOwnership, type SchedulerOwnership } from '../../../src-main/automations/lock';
import type { Automation } from '../../../src-main/automations/record';
import type { AutomationExecutor, ExecutionResult, RunOutcome } from '../../../src-main/automations/runner';
import { runDueAutomations, startScheduler, type AutomationScheduler } from '../../../src-main/automations/scheduler';
import { createAutomation } from '../../../src-main/automations/store';
import { waitFor } from '../../support/wait';
import { FakeClock } from './fake-clock';

const T0 = Date.parse('2026-03-05T10:00:30Z');
const MINUTE = 60_000;

let home: string;
let project: string;
const schedulers: AutomationScheduler[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'weft-auto-home-'));
  project = await mkdtemp(join(tmpdir(), 'weft-auto-project-'));
});

afterEach(async () => {
  for (const s of schedulers.splice(0)) await s.close();
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

/** An executor that records what it was asked and ends each run when the test says so. */
class HeldExecutor implements AutomationExecutor {
  readonly started: string[] = [];
  #finish: ((r: ExecutionResult) => void)[] = [];
  #listeners = new Set<(started: number) => void>();

  execute(automation: Automation, hooks: Parameters<AutomationExecutor['execute']>[1]): Promise<ExecutionResult> {
    this.started.push(automation.id);
    return hooks.onThread(`thread-${this.started.length}`, null).then(
      () =>
        new Promise<ExecutionResult>((resolve) => {
          this.#finish.push(resolve);
          hooks.signal.addEventListener('abort', () =>
            resolve({ status: 'interrupted', reason: 'the host closed', finalMessage: null }),
          );
          for (const l of this.#listeners) l(this.#finish.length);
        }),
    );
  }

  /** Resolves once `n` runs are under way. */
  async waitStarted(n: number): Promise<void> {
    if (this.#finish.length >= n) return;
    await waitFor(
      (l: (started: number) => void) => {
        this.#listeners.add(l);
        return () => this.#listeners.delete(l);
      },
      (started) => started >= n,
      { label: `${n} runs started` },
    );
  }

  finishAll(result: ExecutionResult): void {
    for (const f of this.#finish.splice(0)) f(result);
  }
}

async function everyMinute(id = 'tick'): Promise<Automation> {
  return createAutomation(home, id, {
    name: 'Every minute',
    project,
    prompt: 'look around',
    enabled: true,
    environment: 'local',
    sandbox: 'workspace-write',
    created_at: new Date(T0 - 30_000).toISOString(),
    trigger: { type: 'schedule', cron: '* * * * *', timezone: 'UTC' },
  });
}

function start(clock: FakeClock, executor: AutomationExecutor, ownership?: SchedulerOwnership) {
  const outcomes: { id: string; outcome: RunOutcome }[] = [];
  const listeners = new Set<(count: number) => void>();
  const scheduler = startScheduler({
    weftHome: home,
    now: clock.now,
    clock,
    executor,
    ...(ownership === undefined ? {} : { owns: () => ownership.owns() }),
    log: (line) => {
      throw new Error(`unexpected log: ${line}`);
    },
    onRun: (id, outcome) => {
      outcomes.push({ id, outcome });
      for (const l of listeners) l(outcomes.length);
    },
  });
  schedulers.push(scheduler);
  const ended = (n: number) =>
    outcomes.length >= n
      ? Promise.resolve()
      : waitFor(
          (l: (count: number) => void) => {
            listeners.add(l);
            return () => listeners.delete(l);
          },
          (count) => count >= n,
          { label: `${n} runs ended` },
        ).then(() => undefined);
  return { scheduler, outcomes, ended };
}

describe('the automation scheduler', () => {
  it('fires a schedule due every minute at the minute, not before', async () => {
    await everyMinute();
    const clock = new FakeClock(T0);
    const executor = new HeldExecutor();
    const { scheduler, outcomes, ended } = start(clock, executor);
    await scheduler.tick();
    expect(executor.started).toEqual([]);
    expect(clock.nextTimer()).toBe(T0 + 30_000);

    clock.advance(30_000);
    await executor.waitStarted(1);
    executor.finishAll({ status: 'completed', reason: null, finalMessage: 'all quiet' });
    await ended(1);
    expect(outcomes).toEqual([
      { id: 'tick', outcome: { type: 'ran', runId: expect.any(String) as unknown, status: 'completed', reason: null } },
    ]);
    expect(await readRuns(home, 'tick')).toEqual([
      {
        runId: expect.any(String) as unknown,
        trigger: 'schedule',
        slot: T0 + 30_000,
        startedAt: T0 + 30_000,
        endedAt: T0 + 30_000,
        status: 'completed',
        threadId: 'thread-1',
        worktree: null,
        environment: null,
        reason: null,
        finalMessage: 'all quiet',
        turnId: null,
        changedFiles: null,
        cost: null,
        commands: [],
        seen: false,
        decision: null,
      },
    ]);
  });

  it('of two schedulers on one WEFT_HOME, only the scheduler lock holder runs; the other takes over once it closes', async () => {
    await everyMinute();
    const clock = new FakeClock(T0);
    const [firstOwner, secondOwner] = [schedulerOwnership(home), schedulerOwnership(home)];
    const [first, second] = [new HeldExecutor(), new HeldExecutor()];
    const one = start(clock, first, firstOwner);
    await one.scheduler.tick();
    const two = start(clock, second, secondOwner);
    await two.scheduler.tick();
    clock.advance(30_000);
    await first.waitStarted(1);
    first.finishAll({ status: 'completed', reason: null, finalMessage: null });
    await one.ended(1);
    await two.scheduler.tick();
    // The second never tried (a try would have ended `busy` or `notDue`).
    expect([first.started, second.started, two.outcomes]).toEqual([['tick'], [], []]);

    await one.scheduler.close();
    await firstOwner.release();
    // The second looks again within a minute, holds the lock now, and runs the next minute's time.
    clock.advance(MINUTE);
    await second.waitStarted(1);
    second.finishAll({ status: 'completed', reason: null, finalMessage: null });
    await two.ended(1);
    expect([first.started, second.started]).toEqual([['tick'], ['tick']]);
    expect((await readRuns(home, 'tick')).map((r) => r.slot)).toEqual([T0 + 30_000, T0 + 90_000]);
    await secondOwner.release();
  });

  it('runs a window missed while asleep once, for its latest time', async () => {
    await everyMinute();
    const clock = new FakeClock(T0);
    const executor = new HeldExecutor();
    const { scheduler, ended } = start(clock, executor);
    await scheduler.tick();
    clock.advance(10 * MINUTE); // ten firings slept through
    await executor.waitStarted(1);
    executor.finishAll({ status: 'completed', reason: null, finalMessage: null });
    await ended(1);
    await scheduler.tick();
    expect(executor.started).toEqual(['tick']);
    expect((await readRuns(home, 'tick')).map((r) => r.slot)).toEqual([T0 - 30_000 + 10 * MINUTE]);
  });

  it('never starts a second run while one is under way; the firings meanwhile owe one run', async () => {
    await everyMinute();
    const clock = new FakeClock(T0);
    const executor = new HeldExecutor();
    const { scheduler, ended } = start(clock, executor);
    await scheduler.tick();
    clock.advance(30_000);
    await executor.waitStarted(1);
    clock.advance(MINUTE);
    await scheduler.tick();
    clock.advance(MINUTE);
    await scheduler.tick();
    expect(executor.started).toEqual(['tick']);
    executor.finishAll({ status: 'completed', reason: null, finalMessage: null });
    await ended(1);
    await scheduler.tick();
    await executor.waitStarted(1);
    expect(executor.started).toEqual(['tick', 'tick']);
    executor.finishAll({ status: 'completed', reason: null, finalMessage: null });
    await ended(2);
    expect((await readRuns(home, 'tick')).map((r) => r.slot)).toEqual([T0 + 30_000, T0 + 30_000 + 2 * MINUTE]);
  });

  it('records why a run failed, and a project that is gone', async () => {
    await everyMinute();
    const clock = new FakeClock(T0 + 30_000);
    const failing: AutomationExecutor = {
      execute: async () => ({ status: 'failed', reason: 'the model refused: quota exceeded', finalMessage: null }),
    };
    expect(await runDueAutomations({ weftHome: home, now: clock.now, executor: failing }, () => undefined)).toEqual([
      {
        id: 'tick',
        outcome: {
          type: 'ran',
          runId: expect.any(String) as unknown,
          status: 'failed',
          reason: 'the model refused: quota exceeded',
        },
      },
    ]);
    await rm(project, { recursive: true });
    clock.advance(MINUTE);
    const [gone] = await runDueAutomations({ weftHome: home, now: clock.now, executor: failing }, () => undefined);
    expect(gone?.outcome).toEqual({
      type: 'ran',
      runId: expect.any(String) as unknown,
      status: 'failed',
      reason: `the project folder ${project} does not exist any more; change \`project\` in ${join(home, 'automations', 'tick.toml')}`,
    });
  });

  it('marks failed, with its thread kept, a run whose process died (a lock from another boot)', async () => {
    await everyMinute();
    const runId = await recordStart(home, 'tick', { trigger: 'schedule', slot: T0 - 30_000, at: T0 - 30_000 });
    await recordThread(home, 'tick', runId, 'thread-cut', null);
    await writeFile(lockFile(home, 'tick'), JSON.stringify({ pid: process.pid, boot: 'another-boot', token: 'x' }));
    const clock = new FakeClock(T0 + 30_000);
    const done: AutomationExecutor = {
      execute: async () => ({ status: 'completed', reason: null, finalMessage: null }),
    };
    await runDueAutomations({ weftHome: home, now: clock.now, executor: done }, () => undefined);
    const runs = await readRuns(home, 'tick');
    expect(runs.map((r) => [r.status, r.threadId, r.reason])).toEqual([
      [
        'failed',
        'thread-cut',
        'the run was cut short before it finished (the machine restarted or its process was killed); its thread thread-cut is kept as far as it got',
      ],
      ['completed', null, null],
    ]);
  });
});
