// Notifications: when Weft tells you a thread needs you or has ended while you are elsewhere. In a browser,
// first "Allow notifications" (the browser asks you), then this page's switch; in both faces the kinds,
// the reminders and the sound are `[notifications]` in config.toml, which the desktop app reads too.
import { useId, useState, useSyncExternalStore } from 'react';
import { NOTIFICATION_KINDS, type NotificationKind } from '../../../src-preload/protocol';
import { usePreference } from '../../components/preferences';
import { useApp, useController } from '../../store/app-context';
import {
  NOTIFICATION_SETTINGS_CHANGED,
  NOTIFY_PREFERENCE,
  NOTIFY_VALUES,
  useNotificationSettings,
} from '../notifications';

const KIND_LABELS: Record<NotificationKind, string> = {
  approval: 'An approval waits',
  question: 'The agent asks a question',
  turn_finished: 'A turn finished',
  turn_failed: 'A turn failed',
};

const REPEAT_CHOICES = [0, 1, 5, 15, 30] as const;

/** The browser's permission, followed as it changes (the person may change it in the site settings). */
function usePermission(): NotificationPermission | 'unsupported' {
  return useSyncExternalStore(
    (changed) => {
      if (typeof navigator === 'undefined' || navigator.permissions === undefined) return () => undefined;
      let status: PermissionStatus | null = null;
      let live = true;
      navigator.permissions.query({ name: 'notifications' }).then(
        (s) => {
          if (!live) return;
          status = s;
          s.addEventListener('change', changed);
        },
        () => undefined,
      );
      return () => {
        live = false;
        status?.removeEventListener('change', changed);
      };
    },
    () => (typeof Notification === 'undefined' ? 'unsupported' : Notification.permission),
  );
}

export function NotificationsSection() {
  const { desktop } = useApp();
  const controller = useController();
  const titleId = useId();
  const settings = useNotificationSettings();
  const [notify, setNotify] = usePreference(NOTIFY_PREFERENCE, NOTIFY_VALUES, 'on');
  const permission = usePermission();
  const [asked, setAsked] = useState<NotificationPermission | null>(null);
  const [error, setError] = useState<string | null>(null);
  // What the browser says now wins (the person may change it in the site settings); until it has decided,
  // the answer to the Allow step (a browser that asks nobody answers "denied" at once).
  const decided = permission === 'default' && asked !== null ? asked : permission;
  const allowed = decided === 'granted';

  const allow = async (): Promise<void> => {
    const answer = await Notification.requestPermission().catch(() => 'denied' as const);
    setAsked(answer);
    if (answer === 'granted') setNotify('on');
  };
  const write = async (key: string, value: boolean | number): Promise<void> => {
    try {
      await controller.request('config/value/write', { keyPath: `notifications.${key}`, value });
      setError(null);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
    window.dispatchEvent(new Event(NOTIFICATION_SETTINGS_CHANGED));
  };

  return (
    <section className="settings-section" aria-labelledby={titleId}>
      <h3 id={titleId}>Notifications</h3>
      {desktop !== null ? (
        <p className="muted small">
          The desktop app tells you, while its window is in the background, what you choose below.
        </p>
      ) : permission === 'unsupported' ? (
        <p className="muted small">This browser cannot show notifications.</p>
      ) : (
        <div className="notify-allow">
          {allowed ? (
            <label className="settings-check">
              <input
                type="checkbox"
                checked={notify === 'on'}
                onChange={(e) => setNotify(e.target.checked ? 'on' : 'off')}
              />
              Notify me in this browser while this page is in the background
            </label>
          ) : decided === 'denied' ? (
            <p className="settings-status settings-status-error" role="alert">
              This browser blocks notifications from this page: allow them in its site settings (the icon left of the
              address), then come back here.
            </p>
          ) : (
            <>
              <p className="muted small">Step 1: let this page show notifications. Your browser asks you once.</p>
              <button type="button" className="btn btn-primary" onClick={() => void allow()}>
                Allow notifications
              </button>
            </>
          )}
        </div>
      )}
      <fieldset className="settings-fieldset">
        <legend className="small">Tell me when</legend>
        {NOTIFICATION_KINDS.map((kind) => (
          <label key={kind} className="settings-check">
            <input type="checkbox" checked={settings[kind]} onChange={(e) => void write(kind, e.target.checked)} />
            {KIND_LABELS[kind]}
          </label>
        ))}
      </fieldset>
      <label className="settings-field notify-repeat">
        <span className="muted">Remind me of an unanswered approval or question</span>
        <select
          className="select"
          value={String(settings.repeat_minutes)}
          onChange={(e) => void write('repeat_minutes', Number(e.target.value))}
        >
          {[...new Set([...REPEAT_CHOICES, settings.repeat_minutes])].map((minutes) => (
            <option key={minutes} value={minutes}>
              {minutes === 0 ? 'Never' : `Every ${minutes} min`}
            </option>
          ))}
        </select>
      </label>
      <label className="settings-check">
        <input type="checkbox" checked={settings.sound} onChange={(e) => void write('sound', e.target.checked)} />
        Play a sound
      </label>
      {error !== null && (
        <p className="settings-status settings-status-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
