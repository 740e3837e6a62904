// The colour scheme the page shows: the person's choice in Settings (system, light, dark; kept in this
// browser) resolved against the OS scheme, applied to <html data-theme> for the style sheets and told,
// live, to Monaco, the terminals and any component that asks.
import { useSyncExternalStore } from 'react';

export type ThemeChoice = 'system' | 'light' | 'dark';
export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];
const STORAGE_KEY = 'weft.theme';

const query = (): MediaQueryList => window.matchMedia('(prefers-color-scheme: dark)');
const listeners = new Set<() => void>();
let choice: ThemeChoice = readChoice();

function readChoice(): ThemeChoice {
  try {
    const stored = window.localStorage.getItem(STORAGE_KEY);
    return THEME_CHOICES.find((c) => c === stored) ?? 'system';
  } catch {
    return 'system';
  }
}

export function resolvedScheme(): 'light' | 'dark' {
  if (choice !== 'system') return choice;
  return query().matches ? 'dark' : 'light';
}

function apply(): void {
  const scheme = resolvedScheme();
  document.documentElement.dataset['theme'] = scheme;
  document.documentElement.style.colorScheme = scheme;
  for (const listener of [...listeners]) listener();
}

query().addEventListener('change', () => {
  if (choice === 'system') apply();
});
apply();

/** Calls `onChange` whenever the scheme shown (or the choice) changes; returns the unsubscribe. */
export function subscribeScheme(onChange: () => void): () => void {
  listeners.add(onChange);
  return () => listeners.delete(onChange);
}

export function themeChoice(): ThemeChoice {
  return choice;
}

export function setThemeChoice(next: ThemeChoice): void {
  choice = next;
  try {
    window.localStorage.setItem(STORAGE_KEY, next);
  } catch {
    // Kept for this page only.
  }
  apply();
}

export function useThemeChoice(): ThemeChoice {
  return useSyncExternalStore(subscribeScheme, themeChoice);
}
