// The event triggers under a fake clock (no sleeps) and real git: a new commit on the watched branch starts
// one run (the commit there when watching began does not, nor does the same commit twice, whether the
// scheduler or `weft automations due` looks); a change under the watched folder starts a run once the
// files have been quiet for the debounce, changes inside `.git` or while a run is under way start nothing,
// and a disabled automation stops being watched; a host that starts compares the files with those last
// recorded, so a change made while nothing watched runs once.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filesDigest } from '../../../src-main/automations/files-snapshot';
import { lastCommit, lastFiles, readRuns } from '../../../src-main/automations/history';
import type { AutomationFile } from '../../../src-main/automations/record';
import type { AutomationExecutor, ExecutionResult } from '../../../src-main/automations/runner';
import { runDueAutomations, startScheduler, type AutomationScheduler } from '../../../src-main/automations/scheduler';
import { createAutomation, updateAutomation } from '../../../src-main/automations/store';
import type { FileWatch } from '../../../src-main/automations/triggers';
import { makeGitRepo, type GitRepo } from '../../support/git-repo';
import { waitFor } from '../../support/wait';
import { FakeClock } from './fake-clock';

const T0 = Date.parse('2026-03-05T10:00:30Z');
const SECOND = 1000;

let home: string;
let repo: GitRepo;
const schedulers: AutomationScheduler[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'weft-auto-home-'));
  repo = await makeGitRepo({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' });
});

afterEach(async () => {
  for (const s of schedulers.splice(0)) await s.close();
  await rm(home, { recursive: true, force: true });
  await repo.cleanup();
});

/** Runs end when the test says so; `count` tells how many started. */
class HeldExecutor implements AutomationExecutor {
  started = 0;
  #finish: ((r: ExecutionResult) => void)[] = [];
  #listeners = new Set<(n: number) => void>();

  async execute(_a: unknown, hooks: Parameters<AutomationExecutor['execute']>[1]): Promise<ExecutionResult> {
    this.started += 1;
    await hooks.onThread(`thread-${this.started}`, null);
    return new Promise<ExecutionResult>((resolve) => {
      this.#finish.push(resolve);
      hooks.signal.addEventListener('abort', () =>
        resolve({ status: 'interrupted', reason: 'closed', finalMessage: null }),
      );
      for (const l of this.#listeners) l(this.started);
    });
  }

  async waitStarted(n: number): Promise<void> {
    if (this.started >= n && this.#finish.length > 0) return;
    await waitFor(
      (l: (n: number) => void) => {
        this.#listeners.add(l);
        return () => this.#listeners.delete(l);
      },
      (started) => started >= n,
      { label: `${n} runs started` },
    );
  }

  finishAll(): void {
    for (const f of this.#finish.splice(0)) f({ status: 'completed', reason: null, finalMessage: 'done' });
  }
}

function automation(trigger: AutomationFile['trigger']): AutomationFile {
  return {
    name: 'Watcher',
    project: repo.dir,
    prompt: 'look',
    enabled: true,
    environment: 'local',
    sandbox: 'workspace-write',
    created_at: new Date(T0).toISOString(),
    trigger,
  };
}

function start(clock: FakeClock, executor: AutomationExecutor, watch?: FileWatch) {
  let ended = 0;
  const listeners = new Set<(n: number) => void>();
  const scheduler = startScheduler({
    weftHome: home,
    now: clock.now,
    clock,
    executor,
    ...(watch === undefined ? {} : { watch }),
    log: (line) => {
      throw new Error(`unexpected log: ${line}`);
    },
    onRun: () => {
      ended += 1;
      for (const l of listeners) l(ended);
    },
  });
  schedulers.push(scheduler);
  const endedRuns = (n: number): Promise<unknown> =>
    ended >= n
      ? Promise.resolve()
      : waitFor(
          (l: (n: number) => void) => {
            listeners.add(l);
            return () => listeners.delete(l);
          },
          (count) => count >= n,
          { label: `${n} runs ended` },
        );
  return { scheduler, endedRuns };
}

const head = async (): Promise<string> => (await repo.git('rev-parse', 'HEAD')).trim();

describe('the commit trigger', () => {
  it('runs once per new commit on the branch, never for the commit there when watching began', async () => {
    await createAutomation(home, 'on-main', automation({ type: 'commit', branch: 'main' }));
    const clock = new FakeClock(T0);
    const executor = new HeldExecutor();
    const { scheduler, endedRuns } = start(clock, executor);
    await scheduler.tick();
    expect(executor.started).toBe(0);
    expect(await lastCommit(home, 'on-main')).toBe(await head());

    // A pass with no new commit starts nothing; a new commit starts one run at the next pass.
    clock.advance(60 * SECOND);
    await scheduler.tick();
    expect(executor.started).toBe(0);
    await repo.git('commit', '--allow-empty', '-qm', 'second');
    clock.advance(60 * SECOND);
    await executor.waitStarted(1);
    executor.finishAll();
    await endedRuns(1);
    await scheduler.tick();
    expect(executor.started).toBe(1);
    expect((await readRuns(home, 'on-main')).map((r) => [r.trigger, r.status])).toEqual([['commit', 'completed']]);
    expect(await lastCommit(home, 'on-main')).toBe(await head());

    // `weft automations due` looks too, and runs a commit once, not again on a second look.
    await scheduler.close();
    await repo.git('commit', '--allow-empty', '-qm', 'third');
    const ctx = {
      weftHome: home,
      now: clock.now,
      executor: { execute: async () => ({ status: 'completed' as const, reason: null, finalMessage: null }) },
    };
    expect((await runDueAutomations(ctx, () => undefined)).map((r) => [r.id, r.outcome.type])).toEqual([
      ['on-main', 'ran'],
    ]);
    expect(await runDueAutomations(ctx, () => undefined)).toEqual([]);
    expect((await readRuns(home, 'on-main')).map((r) => r.trigger)).toEqual(['commit', 'commit']);
  });
});

describe('the file-change trigger', () => {
  it('runs once the files are quiet for the debounce; .git, changes during a run and a disabled automation start nothing', async () => {
    await createAutomation(home, 'on-change', automation({ type: 'fileChange', debounce_seconds: 5 }));
    const watched = new Map<string, (path: string | null) => void>();
    const watch: FileWatch = (dir, onChange) => {
      watched.set(dir, onChange);
      return () => watched.delete(dir);
    };
    // A real write, then the watcher's event: a run starts only when the files differ from those recorded.
    let writes = 0;
    const change = async (path: string): Promise<void> => {
      const onChange = watched.get(repo.dir);
      if (onChange === undefined) throw new Error(`${repo.dir} is not watched`);
      await writeFile(repo.path(path), `write ${++writes}\n`);
      onChange(path);
    };
    const clock = new FakeClock(T0);
    const executor = new HeldExecutor();
    const { scheduler, endedRuns } = start(clock, executor, watch);
    await scheduler.tick();
    expect([...watched.keys()]).toEqual([repo.dir]);

    await change('.git/weft-test');
    expect(clock.nextTimer()).toBe(T0 + 60 * SECOND); // only the scheduler's own wake-up
    await change('src/b.txt');
    clock.advance(3 * SECOND);
    await change('a.txt'); // the quiet starts again
    expect(clock.nextTimer()).toBe(T0 + 8 * SECOND);
    clock.advance(3 * SECOND);
    expect(executor.started).toBe(0);
    clock.advance(2 * SECOND);
    await executor.waitStarted(1);
    // A change while the run is under way (its own writes) starts nothing.
    await change('a.txt');
    expect(clock.nextTimer()).toBe(T0 + 60 * SECOND);
    clock.advance(10 * SECOND);
    executor.finishAll();
    await endedRuns(1);
    expect(executor.started).toBe(1);
    expect((await readRuns(home, 'on-change')).map((r) => [r.trigger, r.slot, r.status])).toEqual([
      ['fileChange', null, 'completed'],
    ]);

    // Disabled: the next pass stops watching.
    await updateAutomation(home, 'on-change', [{ path: ['enabled'], value: false }]);
    await scheduler.tick();
    expect(watched.size).toBe(0);
  });

  it('finds at start a change made while no host watched, runs once for it, and records the files at a first look', async () => {
    await createAutomation(home, 'on-change', automation({ type: 'fileChange', debounce_seconds: 5 }));
    // A watcher that never fires: only the comparison with the recorded files can find the change.
    const watch: FileWatch = () => () => undefined;
    const clock = new FakeClock(T0);
    const executor = new HeldExecutor();
    // The timer's `due` looked at the files once (recording them), then nothing ran while they changed.
    expect(await runDueAutomations({ weftHome: home, now: clock.now, executor }, () => undefined)).toEqual([]);
    await writeFile(repo.path('src/b.txt'), 'b changed while nothing ran\n');
    clock.advance(60 * SECOND);

    const first = start(clock, executor, watch);
    await first.scheduler.tick();
    await executor.waitStarted(1);
    executor.finishAll();
    await first.endedRuns(1);
    expect((await readRuns(home, 'on-change')).map((r) => [r.trigger, r.status])).toEqual([
      ['fileChange', 'completed'],
    ]);
    // Later passes of the same host do not compare again; the watcher is theirs.
    clock.advance(60 * SECOND);
    await first.scheduler.tick();
    expect(executor.started).toBe(1);
    await first.scheduler.close();

    // A host starting with the files as the run left them runs nothing.
    const second = start(clock, executor, watch);
    await second.scheduler.tick();
    expect(executor.started).toBe(1);
    await second.scheduler.close();

    // With no files recorded yet, a start records them and owes nothing.
    await createAutomation(home, 'on-a', automation({ type: 'fileChange' }));
    const third = start(clock, executor, watch);
    await third.scheduler.tick();
    expect(await lastFiles(home, 'on-a')).toBe(await filesDigest(repo.dir));
    expect(executor.started).toBe(1);
  });
});
