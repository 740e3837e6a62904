// E2E: thread search from the keyboard. Enter opens the first result (also right after typing, before
// the search-as-you-type delay), ↓ / ↑ choose another, and each result matched in its messages shows the
// matching text with the words marked. Through `weft serve`, at 1400×900 and 900×700.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { clickCentre } from '../support/mouse';
import { answerTurn } from '../support/sse';
import { SCREENSHOT_SIZES, conversation, startE2e } from '../support/weft-serve';

async function exchange(page: Page, prompt: string, reply: string): Promise<void> {
  await clickCentre(page, page.getByRole('button', { name: 'New thread' }));
  await clickCentre(page, page.getByRole('textbox', { name: 'Message' }));
  await page.keyboard.type(prompt);
  await page.keyboard.press('Enter');
  await conversation(page).getByText(reply).waitFor();
}

describe('thread search', () => {
  for (const size of SCREENSHOT_SIZES) {
    it(
      `opens results with Enter, moves with ↓ ↑, shows snippets (${size.width}×${size.height})`,
      {
        timeout: 120_000,
      },
      async () => {
        const e2e = await startE2e({ viewport: size });
        const { page, mock } = e2e;
        mock.enqueueMany([
          answerTurn('Apples grow on orchard trees and are picked in the autumn.'),
          answerTurn('Bring an Orchard basket and lemonade.'),
          answerTurn('Cherries are sweet.'),
        ]);
        await exchange(page, 'Tell me about apples', 'Apples grow on orchard trees');
        await exchange(page, 'Plan the picnic', 'Bring an Orchard basket');
        await exchange(page, 'Tell me about cherries', 'Cherries are sweet.');

        const threads = page.getByRole('navigation', { name: 'Threads' });
        const search = page.getByRole('searchbox', { name: 'Search threads' });
        await clickCentre(page, search);
        await page.keyboard.type('orchard');
        await page.keyboard.press('Enter');
        // The newest match opens at once.
        await conversation(page).getByText('Bring an Orchard basket and lemonade.').waitFor();
        await threads.getByText('Results for “orchard”').waitFor();

        const rows = threads.locator('.thread-row');
        const results = await rows.evaluateAll((items) =>
          items.map((item) => ({
            title: item.querySelector('.thread-title')?.textContent ?? null,
            snippet: item.querySelector('.thread-snippet')?.textContent ?? null,
            marked: [...item.querySelectorAll('.thread-snippet mark')].map((m) => m.textContent),
            selected: item.classList.contains('is-selected'),
          })),
        );
        expect(results).toEqual([
          {
            title: 'Plan the picnic',
            snippet: 'Bring an Orchard basket and lemonade.',
            marked: ['Orchard'],
            selected: true,
          },
          {
            title: 'Tell me about apples',
            snippet: 'Apples grow on orchard trees and are picked in the autumn.',
            marked: ['orchard'],
            selected: false,
          },
        ]);
        await e2e.screenshot(`thread-search-${size.width}x${size.height}`);

        // ↓ then Enter opens the second result; ↑ then Enter the first again.
        await clickCentre(page, search);
        await page.keyboard.press('ArrowDown');
        await threads.locator('.thread-row.is-selected').getByText('Tell me about apples').waitFor();
        await page.keyboard.press('Enter');
        await conversation(page).getByText('Apples grow on orchard trees and are picked in the autumn.').waitFor();
        expect(await conversation(page).getByText('Bring an Orchard basket and lemonade.').count()).toBe(0);
        await clickCentre(page, search);
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('ArrowUp');
        await threads.locator('.thread-row.is-selected').getByText('Plan the picnic').waitFor();
        await page.keyboard.press('Enter');
        await conversation(page).getByText('Bring an Orchard basket and lemonade.').waitFor();
      },
    );
  }
});
