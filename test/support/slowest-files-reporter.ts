// Prints the test files that took longest, at the end of `vitest run`: where the suite's time goes.
import type { Reporter, TestModule } from 'vitest/node';

const SHOWN = 15;

export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = modules
      .map((module) => {
        const d = module.diagnostic();
        const ms = d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration;
        return { file: module.relativeModuleId, ms };
      })
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SHOWN);
    if (rows.length === 0) return;
    const lines = rows.map((row) => `  ${(row.ms / 1000).toFixed(1).padStart(6)} s  ${row.file}`);
    process.stdout.write(`\nSlowest ${rows.length} test files (import, set-up and tests):\n${lines.join('\n')}\n`);
  }
}
