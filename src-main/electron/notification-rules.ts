// When an attention event becomes an OS notification, and what it says. Pure: the glue
// (notifications.ts) supplies which project window is focused and shows the result.
import { NOTIFICATION_DEFAULTS, type NotificationSettings } from '../../src-preload/protocol';
import type { AttentionEvent } from '../server/app-host';

/** A turn shorter than this finishes silently: the person is probably still watching it. */
export const LONG_TURN_MS = 30_000;

export interface AttentionContext {
  /** Folders of the open project windows. */
  openProjects: readonly string[];
  /** Folder of the focused Weft window; null when no Weft window has focus. */
  focusedProject: string | null;
}

export interface NotificationPlan {
  title: string;
  body: string;
  threadId: string;
  /** The window a click focuses; null when no open window holds the thread's folder. */
  project: string | null;
  /** Shown without the system's sound (`[notifications] sound = false`). */
  silent: boolean;
  /** Told again this often while the thread still waits (an approval or a question); null = once. */
  remindEveryMs: number | null;
}

function isInside(child: string, parent: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith('/') || parent.endsWith('\\') ? parent : `${parent}/`;
  return child.startsWith(prefix) || (parent.includes('\\') && child.startsWith(`${parent}\\`));
}

/** The open project holding `cwd`: the deepest folder that is `cwd` or one of its parents. */
export function projectForCwd(cwd: string, openProjects: readonly string[]): string | null {
  let best: string | null = null;
  for (const project of openProjects) {
    if (isInside(cwd, project) && (best === null || project.length > best.length)) best = project;
  }
  return best;
}

/** `45 s`, `2 min 5 s`, `1 h 3 min`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}

/**
 * Whether to notify, and with what. Nothing is shown while the thread's own project window has focus
 * (the person sees it there), nor for a kind `[notifications]` turns off. An approval or a question
 * notifies otherwise, and again every `repeat_minutes` while it waits; a failed turn always; a finished
 * turn only when it ran at least `longTurnMs`; a stopped one never.
 */
export function planNotification(
  event: AttentionEvent,
  context: AttentionContext,
  settings: NotificationSettings = NOTIFICATION_DEFAULTS,
  longTurnMs: number = LONG_TURN_MS,
): NotificationPlan | null {
  const project = projectForCwd(event.cwd, context.openProjects);
  if (project !== null && project === context.focusedProject) return null;
  const title = event.title.trim() === '' ? 'Weft' : event.title.trim();
  const detail = event.detail.trim();
  const plan = { title, threadId: event.threadId, project, silent: !settings.sound, remindEveryMs: null };
  switch (event.kind) {
    case 'approval':
    case 'question': {
      if (!settings[event.kind]) return null;
      const waiting = event.kind === 'question' ? 'The agent has a question for you.' : 'Waiting for your approval.';
      const remindEveryMs = settings.repeat_minutes > 0 ? settings.repeat_minutes * 60_000 : null;
      return { ...plan, body: detail === '' ? waiting : detail, remindEveryMs };
    }
    case 'answered':
      return null;
    case 'turnFinished': {
      if (event.status === 'interrupted') return null;
      if (event.status === 'failed') {
        if (!settings.turn_failed) return null;
        return { ...plan, body: detail === '' ? 'The turn failed.' : detail };
      }
      if (!settings.turn_finished) return null;
      if (event.durationMs === undefined || event.durationMs < longTurnMs) return null;
      const ran = `Finished after ${formatDuration(event.durationMs)}.`;
      return { ...plan, body: detail === '' ? ran : `${ran} ${detail}` };
    }
  }
}

/** The dock / taskbar badge for `waiting` threads: a count, or nothing at zero. */
export function badgeCount(waiting: number): number {
  return Number.isInteger(waiting) && waiting > 0 ? waiting : 0;
}
