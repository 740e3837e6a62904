// Browser notifications (Settings → Notifications) when an approval starts waiting or a turn ends while
// the page is hidden. The desktop app notifies from its main process instead.
import { useEffect } from 'react';
import { usePreference } from '../components/preferences';
import { threadTitle, findThread } from '../store/selectors';
import { useApp } from '../store/app-context';
import { NOTIFY_PREFERENCE, NOTIFY_VALUES } from './settings/AppearanceSection';

export function useAttentionNotifications(): void {
  const { store, desktop } = useApp();
  const [notify] = usePreference(NOTIFY_PREFERENCE, NOTIFY_VALUES, 'off');
  useEffect(() => {
    if (desktop !== null || notify !== 'on' || typeof Notification === 'undefined') return;
    const show = (title: string, body: string): void => {
      if (!document.hidden || Notification.permission !== 'granted') return;
      const n = new Notification(title, { body });
      n.onclick = () => window.focus();
    };
    return store.subscribe((state, previous) => {
      const { data } = state;
      if (data.approvals.length > previous.data.approvals.length) show('Weft needs you', 'An approval is waiting.');
      for (const [threadId, status] of Object.entries(data.lastTurnStatus)) {
        if (status === previous.data.lastTurnStatus[threadId] || status === 'inProgress') continue;
        const thread = findThread(data, threadId);
        const title = thread === undefined ? 'Weft' : threadTitle(thread);
        show(
          title,
          status === 'failed'
            ? 'The turn failed.'
            : status === 'interrupted'
              ? 'The turn was stopped.'
              : 'The turn finished.',
        );
      }
    });
  }, [store, desktop, notify]);
}
