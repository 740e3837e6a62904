import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The usual report, then the slowest files (test/support/slowest-files-reporter.ts).
    reporters: ['default', './test/support/slowest-files-reporter.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Fails a unit or integration test file that leaves handles, ref'd timers or child processes behind.
    setupFiles: ['test/support/leak-check.ts'],
  },
});
