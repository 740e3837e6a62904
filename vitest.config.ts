import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer } from 'vitest/node';
import type { TestSpecification } from 'vitest/node';

/**
 * Files that measure time (event-loop stalls, list waits, a list of a big home's new index answered
 * partial while 5,000 threads are indexed), and the restore race (a background process spinning to win
 * races against restores: beside other files it took a core from them and itself ran 5 times as long), run
 * first, one at a time, so that no other test file competes with them for the cores: only the static
 * checks, at a lower priority.
 */
const ALONE = [
  'test/integration/big-patch.test.ts',
  'test/integration/checkpoint-stalls.test.ts',
  'test/integration/restore-race.test.ts',
  'test/integration/store-stalls.test.ts',
  'test/integration/thread-list-indexing.test.ts',
  'test/unit/checkpoints/off-loop.test.ts',
  'test/unit/store/repair-gives-way.test.ts',
];

/**
 * Files that replace a module with `vi.mock`: the replacement must be in place before the code under test
 * is first imported, so they get a fresh module graph of their own. In a worker that runs files one after
 * another (isolate: false) an earlier file may have imported the real module already, and the mock then
 * silently does nothing. Found by reading the files, so that a new such file cannot be left out.
 */
const ROOT = fileURLToPath(new URL('.', import.meta.url));
const FRESH_MODULES = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file.split(sep).join('/')}`)
  .filter((file) => /\bvi\.(?:do)?[mM]ock\(/.test(readFileSync(join(ROOT, file), 'utf8')))
  .sort();

/**
 * Files that expect their worker process to have no child process at all at some point: a worker shared
 * with other files may hold one those started and keep for the process's life (esbuild's build service);
 * and the heap-growth file, which measures its process's heap (what other files left in a shared worker
 * is not the host's). They run beside the other files: a heap is no slower to measure on a busy core.
 */
const OWN_PROCESS = ['test/integration/thread-resources.test.ts', 'test/integration/thread-churn-memory.test.ts'];

/**
 * Two test files at a time even on two cores: most files spend much of their time waiting on the
 * processes they drive (weft, Chromium, git, bubblewrap), so a second worker fills the idle core.
 */
const WORKERS = Math.max(2, Math.min(4, availableParallelism()));

/**
 * The files run in three groups, one after another, while `npm test` runs the static checks beside them
 * at a lower priority (scripts/test.mjs). First the "alone" files, one at a time: the checks take the
 * core they leave. Then the unit, integration and "fresh" files, with one worker more than there are
 * cores: the integration files spend a third of their time waiting (on the timeouts they wait out, on
 * sshd, on servers leaving): on two cores they took 533 s of CPU in 327 s, with 109 s of cores left idle,
 * with two workers. Last the e2e files, also with one worker more than the cores: their tests wait too (on
 * the page, the server, the mock model), so two workers left about 60 s of two cores idle (557–627
 * s of CPU in 314–347 s); three took 566 s in 292 s with 13 s idle. Within a group the longest files start
 * first (LongFirstSequencer).
 */
const WAITING_WORKERS = WORKERS + 1;

/**
 * The order test files start in. vitest starts the files of a group longest first when it knows their
 * times from an earlier run (its cache, under node_modules), and largest first when it does not, as in a
 * fresh clone: there a long file could start last and run on alone while the other workers stood idle.
 * LONG_FIRST names the files measured to take longest on two cores (the slowest-files report at the end of
 * `npm test`); without cached times they start first, in this order.
 */
const LONG_FIRST = [
  // integration and fresh, 20–60 s each
  'test/integration/thread-churn-memory.test.ts',
  'test/integration/browser-faults.test.ts',
  'test/integration/environments-install.test.ts',
  'test/integration/automations-remote.test.ts',
  'test/integration/user-server.test.ts',
  'test/integration/environments-pipe.test.ts',
  'test/integration/app-server.test.ts',
  'test/integration/restore-crash.test.ts',
  'test/integration/environments-ssh.test.ts',
  'test/integration/browser-tool.test.ts',
  'test/integration/environments-side-by-side.test.ts',
  'test/integration/mcp-client.test.ts',
  'test/integration/weft-exec.test.ts',
  // e2e, 15–45 s each
  'test/e2e/environments-install.test.ts',
  'test/e2e/automations.test.ts',
  'test/e2e/terminal-composer.test.ts',
  'test/e2e/changes.test.ts',
  'test/e2e/environments-side-by-side.test.ts',
  'test/e2e/review-hunks.test.ts',
  'test/e2e/thread-lifecycle.test.ts',
  'test/e2e/environments-settings.test.ts',
  'test/e2e/changes-commands.test.ts',
  'test/e2e/mcp-settings.test.ts',
  'test/e2e/environments-reinstall.test.ts',
];

function rank(spec: TestSpecification): number {
  const at = LONG_FIRST.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
  return at === -1 ? LONG_FIRST.length : at;
}

class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const cache = this.ctx.cache;
    const timed = (spec: TestSpecification): boolean =>
      cache.getFileTestResults(`${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`) !== undefined;
    if (sorted.every(timed)) return sorted;
    // A stable sort: the groups and the projects keep their order (adjacent in `sorted`), and within a
    // project the listed files move to the front.
    const position = new Map(sorted.map((spec, i) => [spec, i]));
    const block = (spec: TestSpecification): string =>
      `${String(spec.project.config.sequence.groupOrder).padStart(4, '0')}:${spec.project.name}`;
    return [...sorted].sort(
      (a, b) =>
        (block(a) < block(b) ? -1 : block(a) > block(b) ? 1 : 0) ||
        rank(a) - rank(b) ||
        (position.get(a) ?? 0) - (position.get(b) ?? 0),
    );
  }
}

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // `expect.poll` waits as long as the page's own waits do (`page.setDefaultTimeout(20_000)` in the e2e
    // harness), not vitest's default of one second: on a loaded machine a request that spawns git can take
    // longer than that, and a poll is for what comes eventually.
    expect: { poll: { timeout: 20_000 } },
    pool: 'forks',
    sequence: { sequencer: LongFirstSequencer },
    // The usual report, then the slowest files (test/support/slowest-files-reporter.ts).
    reporters: ['default', './test/support/slowest-files-reporter.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Fails a unit or integration test file that leaves handles, ref'd timers or child processes behind.
    setupFiles: ['test/support/leak-check.ts'],
    projects: [
      {
        // Unit files run one after another in the same worker process (no fresh process and module graph
        // per file): most of a unit file's time was its worker starting and importing vitest and the code.
        // Each file still gets its own setup file run (the leak check) and restores what it changes.
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ALONE, ...FRESH_MODULES],
          isolate: false,
          maxWorkers: WAITING_WORKERS,
          sequence: { groupOrder: 2 },
        },
      },
      {
        // The e2e files too share their worker processes (playwright-core and the harness are imported
        // once per worker); each test still gets its own `weft serve`, home, project and browser context.
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...FRESH_MODULES],
          setupFiles: ['test/support/e2e-setup.ts'],
          isolate: false,
          maxWorkers: WAITING_WORKERS,
          sequence: { groupOrder: 3 },
        },
      },
      {
        // Integration files share their worker processes too: most of them drive `weft` and other
        // programs as subprocesses, and the leak check still runs per file.
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ALONE, ...OWN_PROCESS, ...FRESH_MODULES],
          isolate: false,
          maxWorkers: WAITING_WORKERS,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'fresh',
          include: [...FRESH_MODULES, ...OWN_PROCESS],
          maxWorkers: WAITING_WORKERS,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        // Not group 0: vitest runs a one-worker project of group 0 last, whatever the other groups.
        test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
