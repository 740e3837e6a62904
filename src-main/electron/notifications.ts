// OS notifications when an approval waits or a long turn finishes (a click focuses the thread), and the
// dock / taskbar badge with the number of threads waiting. The rules are in notification-rules.ts.
import { Notification } from 'electron';
import type { App } from 'electron';
import type { AppHost } from '../server/app-host';
import { badgeCount, planNotification } from './notification-rules';
import type { NotificationPlan } from './notification-rules';
import type { ProjectWindows } from './project-windows';

export interface AttentionOptions {
  app: App;
  appHost: AppHost;
  windows: ProjectWindows;
  /** Brings the project's window forward and shows the thread (opens the window if it was closed). */
  focusThread: (plan: NotificationPlan, cwd: string) => void;
  log: (message: string) => void;
}

/** Wires attention events to notifications and the badge; returns the disposer. */
export function attachAttention(options: AttentionOptions): () => void {
  const shown = new Set<Notification>();

  const show = (plan: NotificationPlan, cwd: string): void => {
    if (!Notification.isSupported()) return;
    const notification = new Notification({ title: plan.title, body: plan.body, silent: false });
    shown.add(notification);
    const forget = (): void => {
      shown.delete(notification);
    };
    notification.on('click', () => {
      forget();
      options.focusThread(plan, cwd);
    });
    notification.on('close', forget);
    notification.on('failed', (_event, error) => {
      forget();
      options.log(`A notification could not be shown: ${error}`);
    });
    notification.show();
  };

  const offAttention = options.appHost.onAttention((event) => {
    const plan = planNotification(event, {
      openProjects: options.windows.projects(),
      focusedProject: options.windows.focusedProject(),
    });
    if (plan !== null) show(plan, event.cwd);
  });
  const offWaiting = options.appHost.onWaitingCountChanged((count) => {
    options.app.setBadgeCount(badgeCount(count));
  });

  return () => {
    offAttention();
    offWaiting();
    for (const notification of shown) notification.close();
    shown.clear();
    options.app.setBadgeCount(0);
  };
}
