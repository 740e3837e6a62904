// The file-change trigger without a host (`weft automations due`), on a real folder under a fake clock: the
// first look records the files and runs nothing; a change under the watched path owes one run, once; the
// run's own writes, changes inside `.git` or outside the path owe nothing; two `due`s at once run a change
// once; and a run of the host's watcher records the files too, so a later `due` does not run it again.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filesDigest } from '../../../src-main/automations/files-snapshot';
import { lastFiles, readRuns } from '../../../src-main/automations/history';
import type { AutomationExecutor, RunnerContext } from '../../../src-main/automations/runner';
import { runAutomation } from '../../../src-main/automations/runner';
import { runDueAutomations } from '../../../src-main/automations/scheduler';
import { createAutomation } from '../../../src-main/automations/store';
import { makeGitRepo, type GitRepo } from '../../support/git-repo';
import { FakeClock } from './fake-clock';

const T0 = Date.parse('2026-03-05T10:00:30Z');

let home: string;
let repo: GitRepo;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'weft-auto-home-'));
  repo = await makeGitRepo({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' });
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await repo.cleanup();
});

/** A local run that writes under the watched folder, as an agent fixing things there would. */
function writingExecutor(): AutomationExecutor & { runs: number } {
  const executor = {
    runs: 0,
    async execute() {
      executor.runs += 1;
      await writeFile(repo.path(`src/written-by-run-${executor.runs}.txt`), 'the run wrote this\n');
      return { status: 'completed' as const, reason: null, finalMessage: 'done' };
    },
  };
  return executor;
}

const ran = async (ctx: RunnerContext): Promise<string[]> =>
  (await runDueAutomations(ctx, () => undefined)).map((r) => `${r.id} ${r.outcome.type}`);

describe('the file-change trigger in weft automations due', () => {
  it('runs once per change under the path since the last look, never for its own writes, .git or other paths', async () => {
    const automation = await createAutomation(home, 'on-src', {
      name: 'On src',
      project: repo.dir,
      prompt: 'look at src',
      enabled: true,
      environment: 'local',
      sandbox: 'workspace-write',
      trigger: { type: 'fileChange', path: 'src' },
    });
    const clock = new FakeClock(T0);
    const executor = writingExecutor();
    const ctx: RunnerContext = { weftHome: home, now: clock.now, executor };

    // The first look records the files and owes nothing; nor does a look with nothing changed.
    expect(await ran(ctx)).toEqual([]);
    expect(await lastFiles(home, 'on-src')).toBe(await filesDigest(repo.path('src')));
    clock.advance(60_000);
    expect(await ran(ctx)).toEqual([]);

    // A change under src owes one run; the next look (the run's own file is new) owes none.
    await writeFile(repo.path('src/b.txt'), 'b changed by hand\n');
    clock.advance(60_000);
    expect(await ran(ctx)).toEqual(['on-src ran']);
    clock.advance(60_000);
    expect(await ran(ctx)).toEqual([]);

    // Inside .git (a commit) and outside the path: nothing.
    await writeFile(repo.path('a.txt'), 'a changed\n');
    await repo.git('add', '-A');
    await repo.git('commit', '-qm', 'by hand');
    clock.advance(60_000);
    expect(await ran(ctx)).toEqual([]);

    // Two looks at once after a change: one run.
    await writeFile(repo.path('src/new.txt'), 'new\n');
    clock.advance(60_000);
    const both = [...(await Promise.all([ran(ctx), ran(ctx)]))].flat().sort();
    expect(both.filter((r) => r === 'on-src ran')).toHaveLength(1);

    // A run started by the host's watcher records the files too: due does not run that change again.
    await writeFile(repo.path('src/b.txt'), 'b changed while the app was open\n');
    expect(await runAutomation(ctx, automation, { type: 'fileChange' })).toMatchObject({ type: 'ran' });
    clock.advance(60_000);
    expect(await ran(ctx)).toEqual([]);

    expect(executor.runs).toBe(3);
    expect((await readRuns(home, 'on-src')).map((r) => [r.trigger, r.status, r.startedAt])).toEqual([
      ['fileChange', 'completed', T0 + 120_000],
      ['fileChange', 'completed', T0 + 300_000],
      ['fileChange', 'completed', T0 + 300_000],
    ]);
  });
});
