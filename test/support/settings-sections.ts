// The Settings dialog's sections that fill in after it opens (each asks the server for its content): until
// they have, they grow and push down what is below them, so a test that wheels to something further down
// waits for the sections above it first, as a person would wait for the page to stop moving.
import { expect } from 'vitest';
import type { Locator } from 'playwright-core';

/** The sections that load, top to bottom (Appearance and Notifications need nothing from the server). */
const LOADING_SECTIONS = ['providers', 'defaults', 'usage', 'rules', 'hooks', 'checkpoints'] as const;
export type LoadingSection = (typeof LOADING_SECTIONS)[number];

async function loaded(settings: Locator, section: LoadingSection): Promise<void> {
  const part = (title: string): Locator =>
    settings.locator('.settings-section').filter({ has: settings.page().getByRole('heading', { name: title }) });
  switch (section) {
    case 'providers':
      await settings.getByLabel('Loading the providers').waitFor({ state: 'detached' });
      return;
    case 'defaults':
      await settings.getByRole('combobox', { name: 'Default model' }).waitFor();
      await settings.getByLabel('Loading the defaults').waitFor({ state: 'detached' });
      return;
    case 'usage':
      await part('Usage').getByText('Reading the threads…').waitFor({ state: 'detached' });
      return;
    case 'rules':
      await part('Remembered approvals').locator('p, ul').first().waitFor();
      return;
    case 'hooks':
      await part('Hooks').locator('ul, p:not(:first-of-type)').first().waitFor();
      return;
    case 'checkpoints':
      await expect.poll(() => settings.getByLabel('Checkpoint store size').textContent()).not.toBe('…');
      return;
  }
}

/** Waits until every section that loads above `below` (one of them, or `mcp`, the last) has loaded. */
export async function settingsLoadedAbove(settings: Locator, below: LoadingSection | 'mcp'): Promise<void> {
  for (const section of LOADING_SECTIONS) {
    if (section === below) return;
    await loaded(settings, section);
  }
}
