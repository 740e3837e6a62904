// OS notifications when an approval or a question waits (again every `[notifications] repeat_minutes` until
// it is answered) or a turn fails or a long one finishes (a click focuses the thread), or an automation's
// run ends while no Weft window has the focus (a click opens it in the review inbox), and the dock /
// taskbar badge with the number of threads waiting. The rules are in notification-rules.ts and
// automation-run-notice.ts.
import { Notification } from 'electron';
import type { App } from 'electron';
import type { NotificationSettings } from '../../src-preload/protocol';
import type { AppHost } from '../server/app-host';
import { clickTarget, planAutomationRunNotice, type AutomationRunClick } from './automation-run-notice';
import { badgeCount, planNotification } from './notification-rules';
import type { NotificationPlan } from './notification-rules';
import type { ProjectWindows } from './project-windows';

export interface AttentionOptions {
  app: App;
  appHost: AppHost;
  windows: ProjectWindows;
  /** Brings the project's window forward and shows the thread (opens the window if it was closed). */
  focusThread: (plan: NotificationPlan, cwd: string) => void;
  /** Brings a window forward (the automation's project's, else the one in front) on the run in the inbox. */
  openInboxRun: (click: AutomationRunClick) => void;
  log: (message: string) => void;
  /** `[notifications]` of the user's config, read at each event (so a change in Settings applies at once). */
  settings: () => Promise<NotificationSettings>;
}

/** Wires attention events to notifications and the badge; returns the disposer. */
export function attachAttention(options: AttentionOptions): () => void {
  const shown = new Set<Notification>();

  /** Reminders of threads still waiting, by thread id. */
  const reminders = new Map<string, ReturnType<typeof setInterval>>();
  const stopReminding = (threadId: string): void => {
    clearInterval(reminders.get(threadId));
    reminders.delete(threadId);
  };

  const notify = (plan: { title: string; body: string; silent: boolean }, onClick: () => void): void => {
    if (!Notification.isSupported()) return;
    const notification = new Notification({ title: plan.title, body: plan.body, silent: plan.silent });
    shown.add(notification);
    const forget = (): void => {
      shown.delete(notification);
    };
    notification.on('click', () => {
      forget();
      onClick();
    });
    notification.on('close', forget);
    notification.on('failed', (_event, error) => {
      forget();
      options.log(`A notification could not be shown: ${error}`);
    });
    notification.show();
  };
  const show = (plan: NotificationPlan, cwd: string): void => notify(plan, () => options.focusThread(plan, cwd));

  const context = () => ({
    openProjects: options.windows.projects(),
    focusedProject: options.windows.focusedProject(),
  });
  const offAttention = options.appHost.onAttention((event) => {
    if (event.kind === 'answered' || event.kind === 'turnFinished') stopReminding(event.threadId);
    void options.settings().then((settings) => {
      const plan = planNotification(event, context(), settings);
      if (plan === null) return;
      show(plan, event.cwd);
      if (plan.remindEveryMs === null) return;
      stopReminding(event.threadId);
      reminders.set(
        event.threadId,
        setInterval(() => {
          // Told again only while its window is still in the background.
          const again = planNotification(event, context(), settings);
          if (again !== null) show({ ...again, body: `Still waiting. ${again.body}` }, event.cwd);
        }, plan.remindEveryMs),
      );
    });
  });
  const offRuns = options.appHost.onAutomationRunEnded((ended) => {
    void options.settings().then((settings) => {
      const notice = planAutomationRunNotice(
        ended,
        { openProjects: options.windows.projects(), focused: options.windows.focusedProject() !== null },
        settings,
      );
      if (notice !== null) notify(notice, () => options.openInboxRun(clickTarget(notice)));
    });
  });
  const offWaiting = options.appHost.onWaitingCountChanged((count) => {
    options.app.setBadgeCount(badgeCount(count));
  });

  return () => {
    offAttention();
    offRuns();
    offWaiting();
    for (const threadId of [...reminders.keys()]) stopReminding(threadId);
    for (const notification of shown) notification.close();
    shown.clear();
    options.app.setBadgeCount(0);
  };
}
