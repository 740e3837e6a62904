// Automations (Weft): prompts the agent runs in a project on a schedule or when asked, each run a thread
// of its own (`weft/automations/*`). The files behind them are `WEFT_HOME/automations/<id>.toml`.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { ReasoningEffortValue, SandboxMode } from './common';
import { WeftDiffCut } from './items';
import { WeftCost } from './weft-cost';

export const WeftAutomationTrigger = lazySchema(() =>
  z.discriminatedUnion('type', [
    /** Five cron fields (or `@daily`…) in an IANA `timezone`; null = the machine's zone. */
    z.object({ type: z.literal('schedule'), cron: z.string().min(1), timezone: z.string().min(1).nullable() }),
    /** Only Run now starts it. */
    z.object({ type: z.literal('manual') }),
    /** A new commit on `branch` of the project (git polled at least once a minute). */
    z.object({ type: z.literal('commit'), branch: z.string().min(1) }),
    /**
     * A file changed under `path` (relative to the project; null: anywhere in it, `.git` aside), once no
     * change came for `debounceSeconds` (null: 10).
     */
    z.object({
      type: z.literal('fileChange'),
      path: z.string().min(1).nullable(),
      debounceSeconds: z.number().int().min(1).max(3600).nullable(),
    }),
  ]),
);
export type WeftAutomationTrigger = z.infer<typeof WeftAutomationTrigger>;

/** How a run ended; `running` while it runs (or until a run cut short is found and marked failed). */
export const WeftAutomationRunStatus = lazySchema(() => z.enum(['running', 'completed', 'failed', 'interrupted']));

export const WeftAutomationRun = lazySchema(() =>
  z.object({
    runId: z.string(),
    trigger: z.enum(['schedule', 'manual', 'commit', 'fileChange']),
    /** The scheduled time (ms since the epoch) a scheduled run answers; null for Run now. */
    slot: z.number().nullable(),
    startedAt: z.number(),
    endedAt: z.number().nullable(),
    status: WeftAutomationRunStatus,
    threadId: z.string().nullable(),
    /** The run's worktree folder; null for a local run (or before it was made). */
    worktree: z.string().nullable(),
    /**
     * The remote environment (`[environments.NAME]`) the run happened on: its thread and worktree (and so its
     * diff) are there, not on this machine. Null: this machine.
     */
    environment: z.string().nullable(),
    /** Why it failed or was stopped. */
    reason: z.string().nullable(),
    finalMessage: z.string().nullable(),
    /** The run's turn in its thread; null before it started (or for runs recorded before turns were). */
    turnId: z.string().nullable(),
    /** Files the run's turn changed; null when unknown (still running, or it never got a thread). */
    changedFiles: z.number().int().nonnegative().nullable(),
    /** What its tokens cost (the thread's whole cost); null when unknown. */
    cost: WeftCost.nullable(),
    /** The commands the agent ran (tests among them), in order, with how each exited (null: it did not). */
    commands: z.array(z.object({ command: z.string(), exitCode: z.number().int().nullable() })),
    /** Opened in the inbox (`inbox/markSeen`); an ended run is unread until then. */
    seen: z.boolean(),
    /** What the person did with it: `kept` (handed off), `discarded` (its worktree removed), or null. */
    decision: z.enum(['kept', 'discarded']).nullable(),
  }),
);
export type WeftAutomationRun = z.infer<typeof WeftAutomationRun>;

/**
 * When a finished run is told as a notification: `always`; `changes` (the default) when it failed or
 * changed files, not for a run that changed nothing; `never`.
 */
export const WeftAutomationNotify = lazySchema(() => z.enum(['always', 'changes', 'never']));
export type WeftAutomationNotify = z.infer<typeof WeftAutomationNotify>;

/** What a client may set; omitted = the default (worktree, workspace-write, enabled, the project's model). */
export const WeftAutomationSettings = lazySchema(() =>
  z.object({
    name: z.string().min(1),
    /** An absolute folder. */
    project: z.string().min(1),
    prompt: z.string().min(1),
    enabled: z.boolean().optional(),
    environment: z.enum(['worktree', 'local']).optional(),
    /**
     * The remote environment (`[environments.NAME]` of config.toml) whose app server runs it, `project` a
     * folder there; null or omitted: this machine (null in an update removes it).
     */
    remote: z.string().min(1).nullable().optional(),
    model: z.string().min(1).nullable().optional(),
    effort: ReasoningEffortValue.nullable().optional(),
    sandbox: SandboxMode.optional(),
    notify: WeftAutomationNotify.optional(),
    trigger: WeftAutomationTrigger,
  }),
);
export type WeftAutomationSettings = z.infer<typeof WeftAutomationSettings>;

export const WeftAutomation = lazySchema(() =>
  WeftAutomationSettings.required({
    enabled: true,
    environment: true,
    remote: true,
    model: true,
    effort: true,
    sandbox: true,
    notify: true,
  }).extend({ id: z.string(), file: z.string() }),
);
export type WeftAutomation = z.infer<typeof WeftAutomation>;

/**
 * One automation file: the automation, or (`automation` null) why its file cannot be used. `nextRunAt`:
 * the next scheduled time (ms) of an enabled schedule, else null; `lastRun`: its newest run, if any.
 */
export const WeftAutomationEntry = lazySchema(() =>
  z.object({
    id: z.string(),
    file: z.string(),
    automation: WeftAutomation.nullable(),
    problem: z.string().nullable(),
    nextRunAt: z.number().nullable(),
    lastRun: WeftAutomationRun.nullable(),
  }),
);
export type WeftAutomationEntry = z.infer<typeof WeftAutomationEntry>;

const AutomationId = lazySchema(() => z.object({ id: z.string().min(1) }));

export const WeftAutomationsListParams = lazySchema(() => z.object({}).optional());
export const WeftAutomationsListResult = lazySchema(() => z.object({ data: z.array(WeftAutomationEntry) }));
export const WeftAutomationsReadParams = AutomationId;
export const WeftAutomationsReadResult = lazySchema(() => z.object({ entry: WeftAutomationEntry }));
export const WeftAutomationsCreateParams = WeftAutomationSettings;
export const WeftAutomationsCreateResult = lazySchema(() => z.object({ entry: WeftAutomationEntry }));
/** The settings to change; `model` or `effort` null removes it (the project's then applies). */
export const WeftAutomationsUpdateParams = lazySchema(() =>
  AutomationId.extend({ changes: WeftAutomationSettings.partial() }),
);
export const WeftAutomationsUpdateResult = lazySchema(() => z.object({ entry: WeftAutomationEntry }));
/** Removes the file and its history; the threads and worktrees of its runs stay. */
export const WeftAutomationsRemoveParams = AutomationId;
export const WeftAutomationsRemoveResult = lazySchema(() => z.object({}));
/** Starts a run now; answers once it is recorded as started (its thread follows); -32600 while a run of it is under way, or when this host runs no automations. */
export const WeftAutomationsRunNowParams = AutomationId;
export const WeftAutomationsRunNowResult = lazySchema(() => z.object({ runId: z.string() }));
/** Its runs, oldest first. */
export const WeftAutomationsRunsParams = AutomationId;
export const WeftAutomationsRunsResult = lazySchema(() => z.object({ runs: z.array(WeftAutomationRun) }));

/**
 * Checks a schedule without saving it (the form's inline check): `problem` says why it cannot be used
 * (as saving it would refuse it), else `nextRunAt` is its next time after now (null: it never fires again).
 */
export const WeftAutomationsCheckScheduleParams = lazySchema(() =>
  z.object({
    cron: z.string(),
    timezone: z.string().min(1).nullable(),
  }),
);
export const WeftAutomationsCheckScheduleResult = lazySchema(() =>
  z.object({
    problem: z.string().nullable(),
    nextRunAt: z.number().nullable(),
  }),
);

/** A finished run as the review inbox shows it, with the automation it belongs to. */
export const WeftAutomationInboxItem = lazySchema(() =>
  z.object({
    automationId: z.string(),
    automationName: z.string(),
    project: z.string(),
    environment: z.enum(['worktree', 'local']),
    run: WeftAutomationRun,
  }),
);
export type WeftAutomationInboxItem = z.infer<typeof WeftAutomationInboxItem>;

const InboxRun = lazySchema(() => z.object({ id: z.string().min(1), runId: z.string().min(1) }));

/** Every finished run of every automation, newest first; `unseen` counts those not opened yet. */
export const WeftAutomationsInboxListParams = lazySchema(() => z.object({}).optional());
export const WeftAutomationsInboxListResult = lazySchema(() =>
  z.object({
    items: z.array(WeftAutomationInboxItem),
    unseen: z.number().int().nonnegative(),
  }),
);
/**
 * One run for review: `diff` is its turn's aggregated diff as the thread recorded it (null: no turn, or it
 * changed nothing), cut like a turn's (`diffCut`). A run on a remote environment answers no diff and no
 * turn: its thread is there, read it with `thread/read {threadId, includeTurns, weftEnvironment}`.
 */
export const WeftAutomationsInboxReadParams = InboxRun;
export const WeftAutomationsInboxReadResult = lazySchema(() =>
  z.object({
    item: WeftAutomationInboxItem,
    /** The turn the diff is of (the run's, else its thread's last); null when it has none. */
    turnId: z.string().nullable(),
    diff: z.string().nullable(),
    diffCut: WeftDiffCut.nullable(),
  }),
);
export type WeftAutomationsInboxReadResult = z.infer<typeof WeftAutomationsInboxReadResult>;
/** Marks the run seen (recorded in its history: every client shows it read). */
export const WeftAutomationsInboxMarkSeenParams = InboxRun;
export const WeftAutomationsInboxMarkSeenResult = lazySchema(() => z.object({ item: WeftAutomationInboxItem }));
/** Records that the person kept the run's work (after handing it off with `weft/worktree/handoff`). */
export const WeftAutomationsInboxKeepParams = InboxRun;
export const WeftAutomationsInboxKeepResult = lazySchema(() => z.object({ item: WeftAutomationInboxItem }));
/**
 * Discards a run: removes its worktree (`git worktree remove --force`, its branch kept) and archives its
 * thread (kept, never deleted). A local run's files are the project's own: nothing is removed, the thread
 * is archived. -32600 while the run is under way. A run on a remote environment has its worktree and
 * thread there: the client removes and archives them there first (`weft/worktree/remove`, `thread/archive`,
 * with `weftEnvironment`), and this records the decision (`worktreeRemoved` false).
 */
export const WeftAutomationsInboxDiscardParams = InboxRun;
export const WeftAutomationsInboxDiscardResult = lazySchema(() =>
  z.object({
    item: WeftAutomationInboxItem,
    worktreeRemoved: z.boolean(),
  }),
);

/**
 * A run of an automation ended (any host running it: the app's scheduler, Run now). `notify`: whether the
 * automation's `notify` setting asks to tell the person about this one.
 */
export const WeftAutomationRunEndedNotification = lazySchema(() =>
  z.object({
    automationRun: WeftAutomationInboxItem,
    notify: z.boolean(),
  }),
);
export type WeftAutomationRunEndedNotification = z.infer<typeof WeftAutomationRunEndedNotification>;

/**
 * How a run ended, in words, for the notifications of the page and of the desktop app: why it failed or
 * was stopped, or how many files it changed and its final message.
 */
export function automationRunEndText(run: WeftAutomationRun): string {
  if (run.status !== 'completed')
    return `The run ${run.status === 'interrupted' ? 'was stopped' : 'failed'}: ${run.reason ?? 'no reason given'}`;
  const files =
    run.changedFiles === null ? '' : `, ${run.changedFiles} ${run.changedFiles === 1 ? 'file' : 'files'} changed`;
  return `The run finished${files}. ${run.finalMessage ?? ''}`;
}
