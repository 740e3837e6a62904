import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that measure time or memory (event-loop stalls, list waits, heap growth): they run after the rest,
 * one at a time, so that no other test file competes with them for the cores while they measure.
 */
const ALONE = [
  'test/integration/big-patch.test.ts',
  'test/integration/checkpoint-stalls.test.ts',
  'test/integration/store-stalls.test.ts',
  'test/integration/thread-churn-memory.test.ts',
  'test/unit/checkpoints/off-loop.test.ts',
  'test/unit/store/repair-gives-way.test.ts',
];

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
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ALONE],
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
