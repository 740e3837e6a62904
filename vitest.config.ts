import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that measure time (event-loop stalls, list waits), and the restore race (a background process
 * spinning to win races against restores: beside other files it took a core from them and itself ran 5
 * times as long), run after the rest, one at a time, so that no other test file competes with them for the
 * cores.
 */
const ALONE = [
  'test/integration/big-patch.test.ts',
  'test/integration/checkpoint-stalls.test.ts',
  'test/integration/restore-race.test.ts',
  'test/integration/store-stalls.test.ts',
  'test/unit/checkpoints/off-loop.test.ts',
  'test/unit/store/repair-gives-way.test.ts',
];

/**
 * Unit files that replace a module with `vi.mock`: the replacement must be in place before the code under
 * test is first imported, so they get a fresh module graph of their own.
 */
const FRESH_MODULES = ['test/unit/store/rollout-writer.test.ts'];

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

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
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
          maxWorkers: WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // The e2e files too share their worker processes (playwright-core and the harness are imported
        // once per worker); each test still gets its own `weft serve`, home, project and browser context.
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          setupFiles: ['test/support/e2e-setup.ts'],
          isolate: false,
          maxWorkers: WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // Integration files share their worker processes too: most of them drive `weft` and other
        // programs as subprocesses, and the leak check still runs per file.
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ALONE, ...OWN_PROCESS],
          isolate: false,
          maxWorkers: WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'fresh',
          include: [...FRESH_MODULES, ...OWN_PROCESS],
          maxWorkers: WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
