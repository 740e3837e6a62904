// E2E: every modal (Review changes, Open folder, Settings) keeps Tab inside, closes with Esc and gives
// focus back; a review closed with Esc keeps waiting and opens again from the conversation; the command
// approval card takes focus and shows its shortcuts.
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

const PATCH = [
  '*** Begin Patch',
  '*** Update File: README.md',
  '@@',
  '-# Demo project',
  '+# Demo project, renamed',
  '*** End Patch',
].join('\n');

let e2e: E2e | undefined;

const focusInside = (dialog: Locator): Promise<boolean> => dialog.evaluate((el) => el.contains(document.activeElement));
const isFocused = (target: Locator): Promise<boolean> => target.evaluate((el) => el === document.activeElement);

/** Tabs forward and backward through more stops than the dialog has; focus never leaves it. */
async function tabsStayInside(page: Page, dialog: Locator, stops = 25): Promise<void> {
  expect(await focusInside(dialog)).toBe(true);
  // Backwards first: from the first control Shift+Tab must wrap to the last, and Tab back round to the first.
  for (const key of ['Shift+Tab', 'Tab']) {
    for (let n = 0; n < stops; n++) {
      await page.keyboard.press(key);
      expect(await focusInside(dialog)).toBe(true);
    }
  }
}

describe('modals and keyboard', () => {
  it(
    'trap focus, close with Esc, give focus back, and keep a closed review reachable',
    { timeout: 480_000 },
    async () => {
      e2e = await startE2e({ viewport: { width: 1400, height: 900 } });
      const { page, mock, workspace } = e2e;

      // Settings → Theme: Dark applies at once and is kept across a reload.
      await clickCentre(page, page.getByRole('button', { name: 'Settings', exact: true }));
      const settings = page.getByRole('dialog', { name: 'Settings' });
      const dark = settings.getByRole('radio', { name: 'Dark' });
      // Theme is in the last group ("This machine"): the sections above it grow as they load, so the wheel
      // goes there once they have.
      for (const loading of ['Loading the providers', 'Loading the defaults'])
        await settings.getByRole('img', { name: loading }).waitFor({ state: 'detached' });
      await wheelIntoView(page, dark, settings.locator('.settings-body'));
      await clickCentre(page, dark);
      expect(await page.evaluate(() => document.documentElement.dataset['theme'])).toBe('dark');
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(23, 24, 28)');
      await screenshotSizes(e2e, 'modals-settings-dark');
      await page.keyboard.press('Escape');
      await settings.waitFor({ state: 'detached' });
      await page.reload();
      await page.getByRole('navigation', { name: 'Threads' }).waitFor();
      expect(await page.evaluate(() => document.documentElement.dataset['theme'])).toBe('dark');

      // Settings and Open folder.
      for (const [opener, name] of [
        [page.getByRole('button', { name: 'Settings', exact: true }).last(), 'Settings'],
        [page.getByRole('button', { name: 'Open folder' }), 'Open folder'],
      ] as const) {
        await clickCentre(page, opener);
        const dialog = page.getByRole('dialog', { name });
        await dialog.waitFor();
        await tabsStayInside(page, dialog);
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
        expect(await isFocused(opener)).toBe(true);
      }

      // A command approval takes focus and shows its keys.
      mock.enqueueMany([
        {
          kind: 'sse',
          events: [
            evCreated(),
            evFunctionCall('call_c', 'exec_command', { cmd: 'touch made-by-command' }),
            evCompleted(),
          ],
        },
        {
          kind: 'sse',
          events: [evCreated(), evFunctionCall('call_p', 'apply_patch', { input: PATCH }), evCompleted()],
        },
        answerTurn('Renamed the project.'),
      ]);
      await sendMessage(page, 'Touch a file, then rename the project');
      const card = page.getByRole('dialog', { name: 'Approve command' });
      await card.waitFor();
      await page.waitForFunction(() => document.activeElement?.getAttribute('role') === 'dialog');
      expect(await isFocused(card)).toBe(true);
      expect(await card.locator('kbd').allInnerTexts()).toEqual(['Y', 'A', 'N']);
      await screenshotSizes(e2e, 'modals-command-card');
      await page.keyboard.press('y');
      await card.waitFor({ state: 'detached' });

      // The review: Tab stays in it; Esc closes it without answering; the conversation offers it again.
      const review = page.getByRole('dialog', { name: 'Review changes' });
      await review.waitFor();
      await review.locator('.diff-zone').first().waitFor({ state: 'attached', timeout: 90_000 });
      // Past the last control and back before the first (the review has a few of its own before its diffs).
      await tabsStayInside(page, review, 8);
      await page.keyboard.press('Escape');
      await review.waitFor({ state: 'detached' });
      const waiting = page.getByRole('status').filter({ hasText: 'Proposed changes wait for your review.' });
      await waiting.waitFor();
      expect(await workspace.read('README.md')).toBe('# Demo project\n');
      await screenshotSizes(e2e, 'modals-review-set-aside');
      await clickCentre(page, waiting.getByRole('button', { name: 'Review changes' }));
      await review.waitFor();
      expect(await focusInside(review)).toBe(true);
      await clickCentre(page, review.getByRole('button', { name: 'Accept', exact: true }));
      await conversation(page).getByText('Renamed the project.').waitFor();
      expect(await workspace.read('README.md')).toBe('# Demo project, renamed\n');
      expect(await waiting.count()).toBe(0);
    },
  );
});
