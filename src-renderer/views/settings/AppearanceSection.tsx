// Appearance: the colour theme (system, light, dark), and notifications when Weft needs the person while
// the page is in the background (browser only: the desktop app notifies from its main process).
import { useId, useState } from 'react';
import { usePreference } from '../../components/preferences';
import { setThemeChoice, THEME_CHOICES, useThemeChoice } from '../../components/use-color-scheme';
import { useApp } from '../../store/app-context';

export const NOTIFY_PREFERENCE = 'weft.notify';
export const NOTIFY_VALUES = ['on', 'off'] as const;

export function AppearanceSection() {
  const { desktop } = useApp();
  const [notify, setNotify] = usePreference(NOTIFY_PREFERENCE, NOTIFY_VALUES, 'off');
  const [note, setNote] = useState<string | null>(null);
  const titleId = useId();
  const themeId = useId();
  const theme = useThemeChoice();
  const supported = typeof Notification !== 'undefined';

  const toggle = async (on: boolean): Promise<void> => {
    setNotify(on ? 'on' : 'off');
    setNote(null);
    if (!on || !supported || Notification.permission === 'granted') return;
    const permission = await Notification.requestPermission().catch(() => 'denied' as const);
    if (permission !== 'granted')
      setNote('The browser did not allow notifications; allow them for this page in its site settings.');
  };

  return (
    <>
      <section className="settings-section" aria-labelledby={themeId}>
        <h3 id={themeId}>Theme</h3>
        <div className="segmented settings-theme" role="radiogroup" aria-labelledby={themeId}>
          {THEME_CHOICES.map((choice) => (
            <label key={choice} className="settings-radio">
              <input
                type="radio"
                name="weft-theme"
                value={choice}
                checked={theme === choice}
                onChange={() => setThemeChoice(choice)}
              />
              {THEME_LABELS[choice]}
            </label>
          ))}
        </div>
      </section>
      <section className="settings-section" aria-labelledby={titleId}>
        <h3 id={titleId}>Notifications</h3>
        {desktop !== null ? (
          <p className="muted small">
            The desktop app notifies you when an approval waits or a long turn ends while its window is in the
            background.
          </p>
        ) : (
          <>
            <label className="settings-check">
              <input
                type="checkbox"
                checked={notify === 'on'}
                disabled={!supported}
                onChange={(e) => void toggle(e.target.checked)}
              />
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
    </>
  );
}

const THEME_LABELS = { system: 'Same as the system', light: 'Light', dark: 'Dark' } as const;
