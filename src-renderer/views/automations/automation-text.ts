// How automations and their runs read in the UI. Pure.
import type {
  WeftAutomation,
  WeftAutomationNotify,
  WeftAutomationRun,
  WeftAutomationTrigger,
} from '../../../src-preload/protocol';
import { costText } from '../../components/format';

export function triggerText(trigger: WeftAutomationTrigger): string {
  switch (trigger.type) {
    case 'manual':
      return 'Manual (Run now)';
    case 'schedule':
      return `${trigger.cron}${trigger.timezone === null ? '' : ` (${trigger.timezone})`}`;
    case 'commit':
      return `On a commit to ${trigger.branch}`;
    case 'fileChange':
      return `On a change under ${trigger.path ?? 'the project'}`;
  }
}

export const TRIGGER_LABELS: Record<WeftAutomationRun['trigger'], string> = {
  schedule: 'Scheduled',
  manual: 'Run now',
  commit: 'New commit',
  fileChange: 'Files changed',
};

/** "Mon 9 Mar, 09:00" in the page's zone, with the year when it is not this year. */
export function whenText(ms: number): string {
  const date = new Date(ms);
  const sameYear = date.getFullYear() === new Date().getFullYear();
  return date.toLocaleString(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    ...(sameYear ? {} : { year: 'numeric' }),
    hour: '2-digit',
    minute: '2-digit',
  });
}

export function nextRunText(automation: WeftAutomation, nextRunAt: number | null): string {
  if (!automation.enabled) return 'Disabled';
  switch (automation.trigger.type) {
    case 'manual':
      return 'Only when run';
    case 'commit':
      return `At the next commit to ${automation.trigger.branch}`;
    case 'fileChange':
      return 'At the next change';
    case 'schedule':
      return nextRunAt === null ? 'Never again' : whenText(nextRunAt);
  }
}

export const STATUS_LABELS: Record<WeftAutomationRun['status'], string> = {
  running: 'Running',
  completed: 'Finished',
  failed: 'Failed',
  interrupted: 'Stopped',
};

/** The `status-*` class of a run's status chip. */
export function statusTone(status: WeftAutomationRun['status']): string {
  switch (status) {
    case 'running':
      return 'status-running';
    case 'completed':
      return 'status-ok';
    case 'failed':
      return 'status-failed';
    case 'interrupted':
      return 'status-muted';
  }
}

export const NOTIFY_LABELS: Record<WeftAutomationNotify, string> = {
  always: 'Every run',
  changes: 'Failures and runs that changed files',
  never: 'Never',
};

/** "2 files changed · 3 commands · $0.04", the run's facts in one line (empty when none is known). */
export function runFacts(run: WeftAutomationRun): string {
  const parts: string[] = [];
  if (run.changedFiles !== null)
    parts.push(
      run.changedFiles === 0
        ? 'nothing changed'
        : `${run.changedFiles} ${run.changedFiles === 1 ? 'file' : 'files'} changed`,
    );
  if (run.commands.length > 0)
    parts.push(`${run.commands.length} ${run.commands.length === 1 ? 'command' : 'commands'}`);
  if (run.cost !== null) parts.push(costText(run.cost));
  return parts.join(' · ');
}
