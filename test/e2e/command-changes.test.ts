// E2E: a file a command made is one of the turn's changes, as a person sees them through `weft serve`:
// the turn's "View changes", the Changes panel's "Last turn" and /diff, at both window sizes.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { conversation, SCREENSHOT_SIZES, startE2e } from '../support/weft-serve';

/** Clicks the message box and types `text` then Enter, as a person does. */
async function type(page: Page, text: string): Promise<void> {
  await clickCentre(page, page.getByRole('textbox', { name: 'Message' }));
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

describe('a file made by a command', () => {
  for (const size of SCREENSHOT_SIZES) {
    it(
      `shows in View changes, Changes → Last turn and /diff at ${size.width}×${size.height}`,
      { timeout: 240_000 },
      async () => {
        const e2e = await startE2e({ approvalPolicy: 'never', viewport: size, files: { 'readme.txt': 'hello\n' } });
        const { page, mock } = e2e;
        const name = `command-changes-${size.width}x${size.height}`;
        mock.enqueueMany([
          {
            kind: 'sse',
            events: [
              evCreated(),
              evFunctionCall('c1', 'exec_command', { cmd: 'echo shellmade > shell-made.txt' }),
              evCompleted(),
            ],
          },
          answerTurn('Made the file.'),
        ]);
        await type(page, 'Make a file with a command');
        await conversation(page).getByText('Made the file.').waitFor();

        const view = conversation(page).getByRole('button', { name: 'View changes (1 file)' });
        await wheelIntoView(page, view, conversation(page));
        await clickCentre(page, view);
        const dialog = page.getByRole('dialog', { name: 'Changes in this turn' });
        const file = dialog.getByRole('region', { name: 'Changes to shell-made.txt' });
        await file.locator('.monaco-diff .line-insert').first().waitFor({ state: 'attached', timeout: 90_000 });
        expect(await file.locator('.file-stats').innerText()).toBe('+1 −0');
        await e2e.screenshot(`${name}-view-changes`);
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });

        await clickCentre(page, page.getByRole('button', { name: 'Changes', exact: true }));
        const panel = page.getByRole('region', { name: 'Changes' });
        await clickCentre(page, panel.getByRole('tab', { name: 'Last turn' }));
        await panel.locator('.changes-diff .line-insert').first().waitFor({ state: 'attached', timeout: 90_000 });
        expect(await panel.locator('.changes-file .file-path').allInnerTexts()).toEqual(['shell-made.txt']);
        await page.waitForFunction(
          (el) => (el?.textContent ?? '').includes('shellmade'),
          await panel.locator('.changes-diff').first().elementHandle(),
        );
        await e2e.screenshot(`${name}-last-turn`);
        await clickCentre(page, panel.getByRole('button', { name: 'Close changes' }));
        await panel.waitFor({ state: 'detached' });

        await type(page, '/diff');
        await dialog.getByRole('region', { name: 'Changes to shell-made.txt' }).waitFor();
        await e2e.screenshot(`${name}-slash-diff`);
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });

        // The turn read again after a reload still has it.
        await page.reload();
        await conversation(page).getByText('Made the file.').waitFor();
        await conversation(page).getByRole('button', { name: 'View changes (1 file)' }).waitFor();
      },
    );
  }
});
