// Browser notifications (Settings → Notifications) while the page is hidden or another window has the focus:
// an approval or a question starts waiting, a turn finishes or fails, each as `[notifications]` in
// config.toml allows; a request still unanswered is told again every `repeat_minutes`, until it is
// answered. A click brings the page forward on that thread with its request focused. The desktop app
// notifies from its main process instead (src-main/electron/notifications.ts).
import { localFolder } from '../store/project-key';
import { useEffect, useState } from 'react';
import { NOTIFICATION_DEFAULTS, notificationSettings, type NotificationSettings } from '../../src-preload/protocol';
import { usePreference } from '../components/preferences';
import { useApp, useController } from '../store/app-context';
import { attachAttentionNotifier } from './attention-notifier';
import type { News } from './notification-news';
import { openAutomations } from '../store/automations-ui';

/**
 * Whether this browser shows notifications once the browser allows them (the page's own switch, on unless
 * the person turns it off in Settings; the browser's permission, asked by Settings' Allow step, is the other).
 */
export const NOTIFY_PREFERENCE = 'weft.notify';
export const NOTIFY_VALUES = ['on', 'off'] as const;
/** Sent on `window` when Settings changed `[notifications]`: the page reads the table again. */
export const NOTIFICATION_SETTINGS_CHANGED = 'weft-notification-settings';

/** `[notifications]` of the config, read again whenever Settings changes it. */
export function useNotificationSettings(): NotificationSettings {
  const controller = useController();
  const { store } = useApp();
  const [settings, setSettings] = useState<NotificationSettings>(NOTIFICATION_DEFAULTS);
  useEffect(() => {
    let live = true;
    const load = (): void => {
      controller.request('config/read', { cwd: localFolder(store.getState().data.cwd) }).then(
        (read) => live && setSettings(notificationSettings(read.config['notifications'])),
        () => undefined,
      );
    };
    load();
    window.addEventListener(NOTIFICATION_SETTINGS_CHANGED, load);
    return () => {
      live = false;
      window.removeEventListener(NOTIFICATION_SETTINGS_CHANGED, load);
    };
  }, [controller, store]);
  return settings;
}

/** A short two-note chime (the page's own, as an OS may play no sound for a browser's notification). */
export function playChime(): void {
  try {
    const audio = new AudioContext();
    const gain = audio.createGain();
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.5);
    gain.connect(audio.destination);
    [880, 1320].forEach((frequency, i) => {
      const tone = audio.createOscillator();
      tone.frequency.value = frequency;
      tone.connect(gain);
      tone.start(audio.currentTime + i * 0.12);
      tone.stop(audio.currentTime + 0.5);
      if (i === 1) tone.onended = () => void audio.close();
    });
  } catch {
    // No audio output (or the browser refuses it before a click on the page): the notification still shows.
  }
}

/** Frames a click waits for the thread's request to be drawn before it gives up focusing it. */
const FOCUS_FRAMES = 120;

/**
 * Focuses the waiting request of the thread shown (its card, or its dialog) and scrolls it into view, once
 * it is drawn (a thread just selected draws it a few frames later); nothing when none comes.
 */
export function focusWaitingRequest(frames = FOCUS_FRAMES): void {
  const card = document.querySelector<HTMLElement>('.composer-dock [role="dialog"], .composer-dock .approval');
  if (card === null) {
    if (frames > 0) requestAnimationFrame(() => focusWaitingRequest(frames - 1));
    return;
  }
  card.scrollIntoView({ block: 'nearest' });
  if (!card.contains(document.activeElement)) card.focus();
}

export function useAttentionNotifications(): void {
  const { store, desktop } = useApp();
  const controller = useController();
  const [notify] = usePreference(NOTIFY_PREFERENCE, NOTIFY_VALUES, 'on');
  const settings = useNotificationSettings();
  useEffect(() => {
    if (desktop !== null || notify !== 'on' || typeof Notification === 'undefined') return;
    const open = async (news: News): Promise<void> => {
      window.focus();
      if (news.inbox === true) {
        openAutomations('inbox');
        return;
      }
      await controller.selectThread(news.threadId);
      if (news.requestId !== null) focusWaitingRequest();
    };
    return attachAttentionNotifier({
      store,
      settings,
      away: () => document.hidden || !document.hasFocus(),
      show: (news, reminder) => {
        if (Notification.permission !== 'granted') return;
        const notification = new Notification(news.title, {
          body: reminder ? `Still waiting. ${news.body}` : news.body,
          tag: news.key,
          silent: !settings.sound,
        });
        if (settings.sound) playChime();
        notification.onclick = () => {
          notification.close();
          void open(news);
        };
      },
    });
  }, [store, desktop, notify, settings, controller]);
}
