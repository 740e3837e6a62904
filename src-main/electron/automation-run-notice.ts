// When the end of an automation's run becomes an OS notification of the desktop app, what it says, and
// where a click leads. Pure: the glue (notifications.ts) supplies whether a Weft window has the focus and
// which projects are open, shows the plan, and on a click does what `clickTarget` says.
import {
  NOTIFICATION_DEFAULTS,
  automationRunEndText,
  type NotificationSettings,
  type WeftAutomationRunEndedNotification,
} from '../../src-preload/protocol';
import { projectForCwd } from './notification-rules';

/** Longer bodies are cut (the systems show about two lines). */
const MAX_BODY = 160;

export interface AutomationRunNotice {
  title: string;
  body: string;
  /** Shown without the system's sound (`[notifications] sound = false`). */
  silent: boolean;
  automationId: string;
  runId: string;
  /** The open project window that holds the automation's project; null when none does. */
  project: string | null;
}

export interface AutomationRunContext {
  /** Folders of the open project windows. */
  openProjects: readonly string[];
  /** Whether a Weft window has the focus: the person sees the inbox's count there. */
  focused: boolean;
}

/**
 * The notification of a run that ended, or null: none while a Weft window has the focus, none when the
 * automation's `notify` does not ask (`runEnded`'s `notify`: by default a run that failed or changed
 * files), and none for a kind `[notifications]` turns off (a run that failed or was stopped is a failed
 * turn's kind, a finished one a finished turn's).
 */
export function planAutomationRunNotice(
  ended: WeftAutomationRunEndedNotification,
  context: AutomationRunContext,
  settings: NotificationSettings = NOTIFICATION_DEFAULTS,
): AutomationRunNotice | null {
  if (context.focused || !ended.notify) return null;
  const { automationRun } = ended;
  const { run } = automationRun;
  if (run.status === 'running') return null;
  if (!settings[run.status === 'completed' ? 'turn_finished' : 'turn_failed']) return null;
  const body = automationRunEndText(run).replace(/\s+/g, ' ').trim();
  return {
    title: `Automation: ${automationRun.automationName}`,
    body: body.length > MAX_BODY ? `${body.slice(0, MAX_BODY - 1)}…` : body,
    silent: !settings.sound,
    automationId: automationRun.automationId,
    runId: run.runId,
    // A remote run's project is a folder there: no window here holds it.
    project: run.environment === null ? projectForCwd(automationRun.project, context.openProjects) : null,
  };
}

/**
 * What a click does: bring forward the window of the automation's project when one is open, else the
 * window in front (or, with none open, the most recent project), and open the run in its review inbox.
 */
export type AutomationRunClick =
  | { window: 'project'; project: string; automationId: string; runId: string }
  | { window: 'any'; automationId: string; runId: string };

export function clickTarget(notice: AutomationRunNotice): AutomationRunClick {
  const run = { automationId: notice.automationId, runId: notice.runId };
  return notice.project === null ? { window: 'any', ...run } : { window: 'project', project: notice.project, ...run };
}
