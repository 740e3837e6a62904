// `weft/automations/*`: the automation files and their runs for clients (the files are the truth; these
// read and write them as `weft automations` does), and Run now through the host's scheduler when it has
// one (`weft serve`, `weft app-server`).
import { resolve } from 'node:path';
import type { WeftAutomation, WeftAutomationEntry, WeftAutomationSettings } from '../../../src-preload/protocol';
import { cronProblem, nextFire } from '../../automations/cron';
import { readRuns } from '../../automations/history';
import { notifyOf } from '../../automations/inbox';
import { isBroken, type Automation, type AutomationFile, type BrokenAutomation } from '../../automations/record';
import {
  AutomationError,
  createAutomation,
  listAutomations,
  newAutomationId,
  readAutomation,
  removeAutomation,
  updateAutomation,
  usableAutomation,
} from '../../automations/store';
import type { Client, HandlerTable } from '../dispatcher';
import { invalidParams, invalidRequest } from '../rpc-error';

type AutomationHandlers = Pick<
  HandlerTable,
  | 'weft/automations/list'
  | 'weft/automations/read'
  | 'weft/automations/create'
  | 'weft/automations/update'
  | 'weft/automations/remove'
  | 'weft/automations/runNow'
  | 'weft/automations/runs'
  | 'weft/automations/checkSchedule'
>;

/** Starts a run now: its run id, or null when one of it runs already. */
export type AutomationRunNow = (automation: Automation) => Promise<string | null>;

export interface AutomationHandlerContext {
  weftHome: string;
  now(): number;
  /** The host's scheduler's Run now; null when the host runs no automations. */
  runNow(): AutomationRunNow | null;
  /** A client that uses the automations is told of their runs' ends (`weft/automations/runEnded`). */
  seen(client: Client): void;
}

export function automationHandlers(ctx: AutomationHandlerContext): AutomationHandlers {
  const { weftHome } = ctx;
  const entry = async (found: Automation | BrokenAutomation): Promise<WeftAutomationEntry> => {
    const lastRun = (await readRuns(weftHome, found.id)).at(-1) ?? null;
    if (isBroken(found))
      return { id: found.id, file: found.file, automation: null, problem: found.problem, nextRunAt: null, lastRun };
    const trigger = found.trigger;
    const nextRunAt =
      found.enabled && trigger.type === 'schedule' ? nextFire(trigger.cron, trigger.timezone, ctx.now()) : null;
    return { id: found.id, file: found.file, automation: toWire(found), problem: null, nextRunAt, lastRun };
  };
  return {
    'weft/automations/list': async (_params, client) => {
      ctx.seen(client);
      return { data: await Promise.all((await listAutomations(weftHome)).map(entry)) };
    },
    'weft/automations/read': async ({ id }) => ({
      entry: await entry(await refused(() => readAutomation(weftHome, id))),
    }),
    'weft/automations/create': async (settings) => {
      const id = await newAutomationId(weftHome, settings.name);
      const created = await refused(() =>
        createAutomation(weftHome, id, { ...fromWire(settings), created_at: new Date(ctx.now()).toISOString() }),
      );
      return { entry: await entry(created) };
    },
    'weft/automations/update': async ({ id, changes }) => {
      const edits: { path: string[]; value: unknown }[] = [];
      for (const key of [
        'name',
        'prompt',
        'enabled',
        'environment',
        'remote',
        'sandbox',
        'notify',
        'model',
        'effort',
      ] as const) {
        const value = changes[key];
        if (value !== undefined) edits.push({ path: [key], value });
      }
      if (changes.project !== undefined) edits.push({ path: ['project'], value: resolve(changes.project) });
      if (changes.trigger !== undefined) edits.push({ path: ['trigger'], value: triggerFile(changes.trigger) });
      const updated = await refused(() => updateAutomation(weftHome, id, edits));
      return { entry: await entry(updated) };
    },
    'weft/automations/remove': async ({ id }) => {
      await refused(() => removeAutomation(weftHome, id));
      return {};
    },
    'weft/automations/runNow': async ({ id }, client) => {
      ctx.seen(client);
      const run = ctx.runNow();
      if (run === null)
        throw invalidRequest('this host runs no automations; run it with `weft automations run` or from weft serve');
      const automation = await refused(() => usableAutomation(weftHome, id));
      const runId = await run(automation);
      if (runId === null) throw invalidRequest(`a run of ${id} is under way; it starts again once that one ends`);
      return { runId };
    },
    'weft/automations/checkSchedule': async ({ cron, timezone }) => {
      const zone = timezone ?? undefined;
      const problem = cronProblem(cron, zone);
      return { problem, nextRunAt: problem === null ? nextFire(cron, zone, ctx.now()) : null };
    },
    'weft/automations/runs': async ({ id }) => {
      await refused(() => readAutomation(weftHome, id));
      return { runs: await readRuns(weftHome, id) };
    },
  };
}

/** A refusal of the files (bad id, value, missing automation) becomes -32602 with its message. */
async function refused<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AutomationError) throw invalidParams(error.message);
    throw error;
  }
}

function toWire(a: Automation): WeftAutomation {
  return {
    id: a.id,
    file: a.file,
    name: a.name,
    project: a.project,
    prompt: a.prompt,
    enabled: a.enabled,
    environment: a.environment,
    remote: a.remote ?? null,
    model: a.model ?? null,
    effort: a.effort ?? null,
    sandbox: a.sandbox,
    notify: notifyOf(a),
    trigger: triggerWire(a.trigger),
  };
}

function triggerWire(trigger: Automation['trigger']): WeftAutomation['trigger'] {
  switch (trigger.type) {
    case 'schedule':
      return { type: 'schedule', cron: trigger.cron, timezone: trigger.timezone ?? null };
    case 'manual':
      return { type: 'manual' };
    case 'commit':
      return { type: 'commit', branch: trigger.branch };
    case 'fileChange':
      return { type: 'fileChange', path: trigger.path ?? null, debounceSeconds: trigger.debounce_seconds ?? null };
  }
}

function triggerFile(trigger: WeftAutomationSettings['trigger']): AutomationFile['trigger'] {
  switch (trigger.type) {
    case 'manual':
      return { type: 'manual' };
    case 'schedule':
      return {
        type: 'schedule',
        cron: trigger.cron,
        ...(trigger.timezone === null ? {} : { timezone: trigger.timezone }),
      };
    case 'commit':
      return { type: 'commit', branch: trigger.branch };
    case 'fileChange':
      return {
        type: 'fileChange',
        ...(trigger.path === null ? {} : { path: trigger.path }),
        ...(trigger.debounceSeconds === null ? {} : { debounce_seconds: trigger.debounceSeconds }),
      };
  }
}

function fromWire(s: WeftAutomationSettings): AutomationFile {
  return {
    name: s.name,
    project: resolve(s.project),
    prompt: s.prompt,
    enabled: s.enabled ?? true,
    environment: s.environment ?? 'worktree',
    ...(s.remote === undefined || s.remote === null ? {} : { remote: s.remote }),
    ...(s.model === undefined || s.model === null ? {} : { model: s.model }),
    ...(s.effort === undefined || s.effort === null ? {} : { effort: s.effort }),
    sandbox: s.sandbox ?? 'workspace-write',
    notify: s.notify ?? 'changes',
    trigger: triggerFile(s.trigger),
  };
}
