// E2E: notices in the corner. A notice that only informs ("No changes in this thread yet.") goes by
// itself after a few seconds, and stays while the pointer is on it; an error stays until dismissed; and
// neither ever covers a dialog: with the Undo dialog open, its Cancel and Restore buttons are what the
// pointer hits. By mouse and keyboard through `weft serve`, at 1400×900 and 900×700.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { answerTurn } from '../support/sse';
import { conversation, SCREENSHOT_SIZES, sendMessage, startE2e } from '../support/weft-serve';

/** Runs a `/` command from the composer with the keyboard. */
async function slash(page: Page, command: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await clickCentre(page, box);
  await page.keyboard.type(command);
  await page.getByRole('listbox', { name: 'Commands' }).waitFor();
  await page.keyboard.press('Enter');
}

describe('toasts', () => {
  for (const size of SCREENSHOT_SIZES) {
    it(
      `go by themselves unless pointed at, and never cover a dialog (${size.width}×${size.height})`,
      { timeout: 180_000 },
      async () => {
        const e2e = await startE2e({ viewport: size, approvalPolicy: 'never' });
        const { page, mock } = e2e;
        // The page's clock is Playwright's from here on: it runs as usual, and jumps ahead when told to.
        await page.clock.install();
        mock.enqueue(answerTurn('Hello there.'));
        await sendMessage(page, 'Say hello');
        await conversation(page).getByText('Hello there.').waitFor();

        // An informing notice, then the Undo dialog over it: its buttons are what the pointer hits.
        await slash(page, '/diff');
        const notice = page.locator('.toast').filter({ hasText: 'No changes in this thread yet.' });
        await notice.waitFor();
        await slash(page, '/undo');
        const undo = page.getByRole('dialog', { name: 'Undo this turn' });
        await undo.getByText('No file changes to put back', { exact: false }).waitFor();
        await e2e.screenshot(`toasts-under-dialog-${size.width}x${size.height}`);
        await clickCentre(page, undo.getByRole('button', { name: 'Cancel' }));
        await undo.waitFor({ state: 'detached' });
        await conversation(page).getByText('Hello there.').waitFor();

        // Pointed at, the notice stays however long; left alone, it goes. It is read out politely.
        expect(await notice.getAttribute('role')).toBe('status');
        await notice.hover();
        await page.clock.fastForward(20_000);
        await notice.waitFor();
        await page.mouse.move(5, 5);
        await page.clock.fastForward(6_000);
        await notice.waitFor({ state: 'detached' });

        // An error stays until it is dismissed, and does not cover the dialog either.
        // (Outside git there are no uncommitted changes to review.)
        await slash(page, '/review');
        const error = page.locator('.toast').filter({ hasText: 'Could not start the review' });
        await error.waitFor();
        expect(await error.getAttribute('role')).toBe('alert');
        await page.clock.fastForward(60_000);
        await error.waitFor();
        const turnUndo = conversation(page).getByRole('button', { name: 'Undo this turn' });
        await wheelIntoView(page, turnUndo, conversation(page));
        await clickCentre(page, turnUndo);
        await undo.getByText('No file changes to put back', { exact: false }).waitFor();
        await clickCentre(page, undo.getByRole('button', { name: 'Go back' }));
        await undo.waitFor({ state: 'detached' });
        await conversation(page).getByText('Hello there.').waitFor({ state: 'detached' });
        await error.waitFor();
        // It stands above the composer: the message box and Send stay free.
        const [toastBox, composerBox] = [await error.boundingBox(), await page.locator('.composer').boundingBox()];
        expect(toastBox !== null && composerBox !== null && toastBox.y + toastBox.height <= composerBox.y).toBe(true);
        await e2e.screenshot(`toasts-error-${size.width}x${size.height}`);
        await clickCentre(page, error.getByRole('button', { name: 'Dismiss' }));
        await error.waitFor({ state: 'detached' });
      },
    );
  }
});
