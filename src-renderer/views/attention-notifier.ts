// The browser page's notifier without the browser: what to tell (notification-news.ts), filtered by the
// `[notifications]` kinds, told only while the person is elsewhere, and told again every `repeat_minutes`
// while a request waits, until it is answered. notifications.ts gives it the Web Notification to show.
import type { NotificationSettings } from '../../src-preload/protocol';
import type { AppData } from '../store/state';
import { newsBetween, requestNews, type News } from './notification-news';

export interface NotifierInput {
  store: {
    getState(): { data: AppData };
    subscribe(listener: (state: { data: AppData }, previous: { data: AppData }) => void): () => void;
  };
  settings: NotificationSettings;
  /** Whether the person is elsewhere: the page hidden, or another window focused. */
  away: () => boolean;
  /** Shows one notification (`reminder`: the request is told again). */
  show: (news: News, reminder: boolean) => void;
}

/** Starts telling; returns what stops it (and its reminders). */
export function attachAttentionNotifier(input: NotifierInput): () => void {
  const { store, settings } = input;
  const tell = (news: News, reminder: boolean): void => {
    if (input.away()) input.show(news, reminder);
  };
  const reminders = new Map<string, ReturnType<typeof setInterval>>();
  const remind = (news: News): void => {
    const id = news.requestId;
    if (id === null || settings.repeat_minutes === 0 || reminders.has(id)) return;
    const every = settings.repeat_minutes * 60_000;
    reminders.set(
      id,
      setInterval(() => {
        const request = store.getState().data.approvals.find((r) => String(r.id) === id);
        if (request !== undefined) tell({ ...news, ...requestNews(request) }, true);
      }, every),
    );
  };
  const unsubscribe = store.subscribe((state, previous) => {
    for (const news of newsBetween(previous.data, state.data)) {
      if (!settings[news.kind]) continue;
      tell(news, false);
      remind(news);
    }
    // An answered request is not told again.
    if (state.data.approvals === previous.data.approvals) return;
    for (const [id, timer] of reminders) {
      if (state.data.approvals.some((r) => String(r.id) === id)) continue;
      clearInterval(timer);
      reminders.delete(id);
    }
  });
  return () => {
    unsubscribe();
    for (const timer of reminders.values()) clearInterval(timer);
    reminders.clear();
  };
}
