// The review inbox: every finished run of every automation, as the person reviews them (newest first),
// read from the runs histories, and whether a finished run is told as a notification (`notify`).
import type { WeftAutomationInboxItem, WeftAutomationNotify } from '../../src-preload/protocol';
import { readRuns, type AutomationRun } from './history';
import { isBroken, type Automation } from './record';
import { AutomationError, listAutomations, usableAutomation } from './store';

export function inboxItem(automation: Automation, run: AutomationRun): WeftAutomationInboxItem {
  return {
    automationId: automation.id,
    automationName: automation.name,
    project: automation.project,
    environment: automation.environment,
    run,
  };
}

/** The finished runs of every usable automation, newest end first. */
export async function inboxItems(weftHome: string): Promise<WeftAutomationInboxItem[]> {
  const items: WeftAutomationInboxItem[] = [];
  for (const automation of await listAutomations(weftHome)) {
    if (isBroken(automation)) continue;
    for (const run of await readRuns(weftHome, automation.id))
      if (run.status !== 'running') items.push(inboxItem(automation, run));
  }
  return items.sort((a, b) => (b.run.endedAt ?? b.run.startedAt) - (a.run.endedAt ?? a.run.startedAt));
}

/** One run of an automation, for the inbox; refused (naming both) when there is no such run. */
export async function findInboxItem(weftHome: string, id: string, runId: string): Promise<WeftAutomationInboxItem> {
  const automation = await usableAutomation(weftHome, id);
  const run = (await readRuns(weftHome, id)).find((r) => r.runId === runId);
  if (run === undefined)
    throw new AutomationError(`automation "${id}" has no run ${runId}; see weft automations runs ${id}`);
  return inboxItem(automation, run);
}

export function notifyOf(automation: Pick<Automation, 'notify'>): WeftAutomationNotify {
  return automation.notify ?? 'changes';
}

/**
 * Whether a finished run is told: `always`; `changes` when it did not complete or changed files (a run
 * whose changes are unknown counts as changed: better told once too often than a change missed); `never`.
 */
export function shouldNotify(notify: WeftAutomationNotify, run: AutomationRun): boolean {
  switch (notify) {
    case 'always':
      return true;
    case 'never':
      return false;
    case 'changes':
      return run.status !== 'completed' || run.changedFiles !== 0;
  }
}
