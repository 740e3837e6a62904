// Notifications when Weft needs the person while the page is in the background (browser only: the
// desktop app notifies from its main process).
import { useId, useState } from 'react';
import { usePreference } from '../../components/preferences';
import { useApp } from '../context';

export const NOTIFY_PREFERENCE = 'weft.notify';
export const NOTIFY_VALUES = ['on', 'off'] as const;

export function AppearanceSection() {
  const { desktop } = useApp();
  const [notify, setNotify] = usePreference(NOTIFY_PREFERENCE, NOTIFY_VALUES, 'off');
  const [note, setNote] = useState<string | null>(null);
  const titleId = useId();
  const supported = typeof Notification !== 'undefined';

  const toggle = async (on: boolean): Promise<void> => {
    setNotify(on ? 'on' : 'off');
    setNote(null);
    if (!on || !supported || Notification.permission === 'granted') return;
    const permission = await Notification.requestPermission().catch(() => 'denied' as const);
    if (permission !== 'granted') setNote('The browser did not allow notifications; allow them for this page in its site settings.');
  };

  return (
    <section className="settings-section" aria-labelledby={titleId}>
      <h3 id={titleId}>Notifications</h3>
      {desktop !== null ? (
        <p className="muted small">The desktop app notifies you when an approval waits or a long turn ends while its window is in the background.</p>
      ) : (
        <>
          <label className="settings-check">
            <input type="checkbox" checked={notify === 'on'} disabled={!supported} onChange={(e) => void toggle(e.target.checked)} />
            Notify me when an approval waits or a turn ends while this page is in the background
          </label>
          {!supported && <p className="muted small">This browser cannot show notifications.</p>}
          {note !== null && (
            <p className="settings-status settings-status-error" role="alert">
              {note}
            </p>
          )}
        </>
      )}
    </section>
  );
}
