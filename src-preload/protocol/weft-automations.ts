// Automations (Weft): prompts the agent runs in a project on a schedule or when asked, each run a thread
// of its own (`weft/automations/*`). The files behind them are `WEFT_HOME/automations/<id>.toml`.
import { z } from 'zod';
import { ReasoningEffortValue, SandboxMode } from './common';

export const WeftAutomationTrigger = z.discriminatedUnion('type', [
  /** Five cron fields (or `@daily`…) in an IANA `timezone`; null = the machine's zone. */
  z.object({ type: z.literal('schedule'), cron: z.string().min(1), timezone: z.string().min(1).nullable() }),
  /** Only Run now starts it. */
  z.object({ type: z.literal('manual') }),
]);
export type WeftAutomationTrigger = z.infer<typeof WeftAutomationTrigger>;

/** How a run ended; `running` while it runs (or until a run cut short is found and marked failed). */
export const WeftAutomationRunStatus = z.enum(['running', 'completed', 'failed', 'interrupted']);

export const WeftAutomationRun = z.object({
  runId: z.string(),
  trigger: z.enum(['schedule', 'manual']),
  /** The scheduled time (ms since the epoch) a scheduled run answers; null for Run now. */
  slot: z.number().nullable(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  status: WeftAutomationRunStatus,
  threadId: z.string().nullable(),
  /** The run's worktree folder; null for a local run (or before it was made). */
  worktree: z.string().nullable(),
  /** Why it failed or was stopped. */
  reason: z.string().nullable(),
  finalMessage: z.string().nullable(),
});
export type WeftAutomationRun = z.infer<typeof WeftAutomationRun>;

/** What a client may set; omitted = the default (worktree, workspace-write, enabled, the project's model). */
export const WeftAutomationSettings = z.object({
  name: z.string().min(1),
  /** An absolute folder. */
  project: z.string().min(1),
  prompt: z.string().min(1),
  enabled: z.boolean().optional(),
  environment: z.enum(['worktree', 'local']).optional(),
  model: z.string().min(1).nullable().optional(),
  effort: ReasoningEffortValue.nullable().optional(),
  sandbox: SandboxMode.optional(),
  trigger: WeftAutomationTrigger,
});
export type WeftAutomationSettings = z.infer<typeof WeftAutomationSettings>;

export const WeftAutomation = WeftAutomationSettings.required({
  enabled: true,
  environment: true,
  model: true,
  effort: true,
  sandbox: true,
}).extend({ id: z.string(), file: z.string() });
export type WeftAutomation = z.infer<typeof WeftAutomation>;

/**
 * One automation file: the automation, or (`automation` null) why its file cannot be used. `nextRunAt`:
 * the next scheduled time (ms) of an enabled schedule, else null; `lastRun`: its newest run, if any.
 */
export const WeftAutomationEntry = z.object({
  id: z.string(),
  file: z.string(),
  automation: WeftAutomation.nullable(),
  problem: z.string().nullable(),
  nextRunAt: z.number().nullable(),
  lastRun: WeftAutomationRun.nullable(),
});
export type WeftAutomationEntry = z.infer<typeof WeftAutomationEntry>;

const AutomationId = z.object({ id: z.string().min(1) });

export const WeftAutomationsListParams = z.object({}).optional();
export const WeftAutomationsListResult = z.object({ data: z.array(WeftAutomationEntry) });
export const WeftAutomationsReadParams = AutomationId;
export const WeftAutomationsReadResult = z.object({ entry: WeftAutomationEntry });
export const WeftAutomationsCreateParams = WeftAutomationSettings;
export const WeftAutomationsCreateResult = z.object({ entry: WeftAutomationEntry });
/** The settings to change; `model` or `effort` null removes it (the project's then applies). */
export const WeftAutomationsUpdateParams = AutomationId.extend({ changes: WeftAutomationSettings.partial() });
export const WeftAutomationsUpdateResult = z.object({ entry: WeftAutomationEntry });
/** Removes the file and its history; the threads and worktrees of its runs stay. */
export const WeftAutomationsRemoveParams = AutomationId;
export const WeftAutomationsRemoveResult = z.object({});
/** Starts a run now; answers once it is recorded as started (its thread follows); -32600 while a run of it is under way, or when this host runs no automations. */
export const WeftAutomationsRunNowParams = AutomationId;
export const WeftAutomationsRunNowResult = z.object({ runId: z.string() });
/** Its runs, oldest first. */
export const WeftAutomationsRunsParams = AutomationId;
export const WeftAutomationsRunsResult = z.object({ runs: z.array(WeftAutomationRun) });
