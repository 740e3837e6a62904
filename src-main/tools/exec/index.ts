// The exec engine behind the `exec_command` / `write_stdin` tools.
export * from './constants';
export { approxTokenCount, formatExecOutput, truncateMiddle, truncateRetained } from './format';
export type { ExecOutputFields, RetainedParts, TruncatedText } from './format';
export { execYieldMs, outputTokenBudget, writeStdinYieldMs } from './limits';
export { ExecSessionManager } from './manager';
export type { ExecSessionManagerOptions } from './manager';
export { groupMembers, isGroupAlive, killProcessGroup, readProcStat, signalGroup } from './process-group';
export type { KillGroupOptions, ProcStat } from './process-group';
export type { CommandLauncher, ExecContext, ExecRequest, ExecResult, WriteStdinRequest } from './types';
