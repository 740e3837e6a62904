// The exec engine behind the `exec_command` / `write_stdin` tools.
export * from './constants';
export { approxTokenCount, formatExecOutput, truncateMiddle, truncateRetained } from './format';

export { execYieldMs, outputTokenBudget, writeStdinYieldMs } from './limits';
export { ExecSessionManager } from './manager';

export { killProcessGroup } from './process-group';

export type { CommandLauncher, ExecContext, ExecResult } from './types';
