// E2E: the Undo and Restore dialogs take the focus when they open (on their Restore button once the
// preview is ready), keep Tab inside, close with Esc giving the focus back, and restore with Enter. By
// mouse and keyboard through `weft serve`, at 1400×900 and 900×700.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, SCREENSHOT_SIZES, sendMessage, startE2e } from '../support/weft-serve';

const command = (id: string, cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd }), evCompleted()],
});

const isFocused = (target: Locator): Promise<boolean> => target.evaluate((el) => el === document.activeElement);
const focusInside = (dialog: Locator): Promise<boolean> => dialog.evaluate((el) => el.contains(document.activeElement));

async function clickAction(page: Page, name: string): Promise<Locator> {
  const button = conversation(page).getByRole('button', { name }).first();
  await wheelIntoView(page, button, conversation(page));
  await clickCentre(page, button);
  return button;
}

describe('Undo and Restore dialogs and the keyboard', () => {
  for (const size of SCREENSHOT_SIZES) {
    it(
      `take the focus, keep it, and answer Esc and Enter (${size.width}×${size.height})`,
      { timeout: 180_000 },
      async () => {
        const e2e = await startE2e({ viewport: size, approvalPolicy: 'never' });
        const { page, mock, workspace } = e2e;
        mock.enqueueMany([
          command('c1', 'echo one > one.txt'),
          answerTurn('First done.'),
          command('c2', 'echo two > two.txt'),
          answerTurn('Second done.'),
        ]);
        await sendMessage(page, 'First');
        await conversation(page).getByText('First done.').waitFor();
        await sendMessage(page, 'Second');
        await conversation(page).getByText('Second done.').waitFor();

        // Undo this turn: the dialog has the focus, on Restore once the preview is ready; Esc gives it back.
        const opener = await clickAction(page, 'Undo this turn');
        const undo = page.getByRole('dialog', { name: 'Undo this turn' });
        const restoreOne = undo.getByRole('button', { name: 'Restore 1 file' });
        await restoreOne.waitFor();
        await expect.poll(() => isFocused(restoreOne)).toBe(true);
        for (let n = 0; n < 8; n++) {
          await page.keyboard.press('Tab');
          expect(await focusInside(undo)).toBe(true);
        }
        await e2e.screenshot(`dialog-focus-undo-${size.width}x${size.height}`);
        await page.keyboard.press('Escape');
        await undo.waitFor({ state: 'detached' });
        expect(await isFocused(opener)).toBe(true);
        expect(existsSync(workspace.path('two.txt'))).toBe(true);

        // Restore to here on the first turn, with the keyboard only once open: Enter restores.
        await clickAction(page, 'Restore to here');
        const restore = page.getByRole('dialog', { name: 'Restore to here' });
        const button = restore.getByRole('button', { name: 'Restore 1 file' });
        await button.waitFor();
        await expect.poll(() => isFocused(button)).toBe(true);
        await page.keyboard.press('Enter');
        await restore.waitFor({ state: 'detached' });
        await conversation(page).getByText('Second done.').waitFor({ state: 'detached' });
        expect([existsSync(workspace.path('one.txt')), existsSync(workspace.path('two.txt'))]).toEqual([true, false]);
      },
    );
  }
});
