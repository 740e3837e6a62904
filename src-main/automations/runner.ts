// One run of an automation: under its lock (two runs never overlap, whichever process starts them),
// recorded in its history from start to end, the thread itself left to an executor (the app's core in
// practice, a stand-in in tests).
import { access } from 'node:fs/promises';
import { errorMessage } from '../util/errors';
import { latestFireIn } from './cron';
import {
  lastCommit,
  readRuns,
  recordEnd,
  recordStart,
  recordThread,
  settleAbandonedRuns,
  type AutomationRun,
  type RunFacts,
} from './history';
import { filesStillChanged, recordFilesNow } from './files-snapshot';
import { acquireRunLock } from './lock';
import type { Automation } from './record';

/** How a run's thread ended, as the executor saw it (and, when it knows them, the facts of its turn). */
export interface ExecutionResult extends Partial<RunFacts> {
  status: 'completed' | 'failed' | 'interrupted';
  reason: string | null;
  finalMessage: string | null;
}

/** Runs an automation's prompt in a thread of its own. */
export interface AutomationExecutor {
  execute(
    automation: Automation,
    hooks: { onThread(threadId: string, worktree: string | null): Promise<void>; signal: AbortSignal },
  ): Promise<ExecutionResult>;
}

export interface RunnerContext {
  weftHome: string;
  now(): number;
  executor: AutomationExecutor;
}

/** What starts a run; a `commit` run names the new commit it answers. */
export type RunTrigger =
  { type: 'manual' } | { type: 'schedule' } | { type: 'commit'; commit: string } | { type: 'fileChange' };

export type RunOutcome =
  | { type: 'ran'; runId: string; status: ExecutionResult['status']; reason: string | null }
  /** Another run of it is under way (in this process or another). */
  | { type: 'busy' }
  /**
   * A scheduled (commit, file change) run found its time (commit, change) already taken by another
   * process, or not come.
   */
  | { type: 'notDue' };

/**
 * The scheduled time a run of the automation is owed at `now`, if any: the latest firing after the last
 * scheduled run's time (else after `created_at`, else after the file was last changed). Several missed
 * firings owe one run.
 */
export function dueSlot(automation: Automation, runs: readonly AutomationRun[], now: number): number | null {
  if (!automation.enabled || automation.trigger.type !== 'schedule') return null;
  const lastSlot = runs.reduce<number | null>(
    (latest, run) => (run.slot !== null && (latest === null || run.slot > latest) ? run.slot : latest),
    null,
  );
  const created = automation.created_at === undefined ? automation.modifiedAt : Date.parse(automation.created_at);
  const since = Math.max(lastSlot ?? Number.NEGATIVE_INFINITY, created);
  return latestFireIn(automation.trigger.cron, automation.trigger.timezone, since, now);
}

export async function runAutomation(
  ctx: RunnerContext,
  automation: Automation,
  trigger: RunTrigger,
  signal: AbortSignal = new AbortController().signal,
  onStarted: (runId: string) => void = () => undefined,
): Promise<RunOutcome> {
  const { weftHome } = ctx;
  const lock = await acquireRunLock(weftHome, automation.id);
  if (lock === null) return { type: 'busy' };
  try {
    await settleAbandonedRuns(weftHome, automation.id, ctx.now());
    let slot: number | null = null;
    if (trigger.type === 'schedule') {
      // Read again under the lock: a process that held it may have just run this very slot.
      slot = dueSlot(automation, await readRuns(weftHome, automation.id), ctx.now());
      if (slot === null) return { type: 'notDue' };
    }
    // Read under the lock too: another process may have run for this commit just now.
    if (trigger.type === 'commit' && (await lastCommit(weftHome, automation.id)) === trigger.commit)
      return { type: 'notDue' };
    // And for a change of files: another process may have run for it (and recorded the files after).
    if (trigger.type === 'fileChange' && !(await filesStillChanged(weftHome, automation))) return { type: 'notDue' };
    const runId = await recordStart(weftHome, automation.id, {
      trigger: trigger.type,
      slot,
      at: ctx.now(),
      ...(trigger.type === 'commit' ? { commit: trigger.commit } : {}),
      ...(automation.remote === undefined ? {} : { environment: automation.remote }),
    });
    onStarted(runId);
    let result: ExecutionResult;
    try {
      result = await execute(ctx, automation, runId, signal);
    } catch (error) {
      result = { status: 'failed', reason: errorMessage(error), finalMessage: null };
    }
    await recordEnd(weftHome, automation.id, runId, { at: ctx.now(), ...result });
    // The files as the run leaves them: its own writes, and changes made while it ran, owe no run.
    await recordFilesNow(weftHome, automation, ctx.now());
    return { type: 'ran', runId, status: result.status, reason: result.reason };
  } finally {
    await lock.release();
  }
}

async function execute(
  ctx: RunnerContext,
  automation: Automation,
  runId: string,
  signal: AbortSignal,
): Promise<ExecutionResult> {
  // A remote run's project is a folder there: the executor asks the remote.
  const missing =
    automation.remote === undefined &&
    (await access(automation.project).then(
      () => false,
      () => true,
    ));
  if (missing)
    return {
      status: 'failed',
      reason: `the project folder ${automation.project} does not exist any more; change \`project\` in ${automation.file}`,
      finalMessage: null,
    };
  return ctx.executor.execute(automation, {
    signal,
    onThread: (threadId, worktree) => recordThread(ctx.weftHome, automation.id, runId, threadId, worktree),
  });
}
