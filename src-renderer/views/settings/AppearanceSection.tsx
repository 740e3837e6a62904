// Appearance: the colour theme (system, light, dark).
import { useId } from 'react';
import { setThemeChoice, THEME_CHOICES, useThemeChoice } from '../../components/use-color-scheme';

export function AppearanceSection() {
  const themeId = useId();
  const theme = useThemeChoice();
  return (
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
  );
}

const THEME_LABELS = { system: 'Same as the system', light: 'Light', dark: 'Dark' } as const;
