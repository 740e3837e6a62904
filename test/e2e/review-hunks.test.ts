// E2E: the review of a patch with two files and five hunks, reached by mouse only (wheel + click) at
// 1400×900 and 900×700; the conversation then shows what landed, with declined parts marked.
import { describe, expect, it } from 'vitest';
import { clickCentre, wheelIntoView, wheelUntilAttached } from '../support/mouse';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

const lines = (prefix: string, count: number): string =>
  Array.from({ length: count }, (_, i) => `${prefix} line ${i + 1}`).join('\n') + '\n';
const ALPHA = lines('alpha', 60);
const BETA = lines('beta', 60);
const OLD = 'old file\nto be removed\n';
const PATCH = [
  '*** Begin Patch',
  '*** Update File: alpha.txt',
  '@@',
  '-alpha line 5',
  '+ALPHA FIVE',
  '@@',
  '-alpha line 25',
  '+ALPHA TWENTY-FIVE',
  '@@',
  '-alpha line 45',
  '+ALPHA FORTY-FIVE',
  '*** Update File: beta.txt',
  '@@',
  '-beta line 10',
  '+BETA TEN',
  '@@',
  '-beta line 40',
  '+BETA FORTY',
  '*** Delete File: old.txt',
  '*** End Patch',
].join('\n');

let e2e: E2e | undefined;

const VIEWPORTS = [
  { width: 1400, height: 900 },
  { width: 900, height: 700 },
];

describe('review changes, by mouse', () => {
  for (const viewport of VIEWPORTS) {
    const size = `${viewport.width}x${viewport.height}`;
    it(
      `reaches every hunk's Accept / Decline with the wheel and shows only what landed (${size})`,
      { timeout: 420_000 },
      async () => {
        e2e = await startE2e({ viewport, files: { 'alpha.txt': ALPHA, 'beta.txt': BETA, 'old.txt': OLD } });
        const { page, mock, workspace } = e2e;
        mock.enqueueMany([
          {
            kind: 'sse',
            events: [evCreated(), evFunctionCall('call_p', 'apply_patch', { input: PATCH }), evCompleted()],
          },
          answerTurn('Applied what you accepted.'),
        ]);

        await sendMessage(page, 'Shout some lines and drop old.txt');
        const dialog = page.getByRole('dialog', { name: 'Review changes' });
        await dialog.waitFor();
        const body = dialog.locator('.review-body');
        await dialog.locator('.monaco-diff .line-insert').first().waitFor({ state: 'attached', timeout: 90_000 });

        // Every hunk's own controls sit beside it and can be reached by wheel and clicked. A file's diff (and
        // with it its hunks' controls) is made once the wheel brings it near the view (when-near.ts).
        for (const [file, count] of [
          ['alpha.txt', 3],
          ['beta.txt', 2],
          ['old.txt', 1],
        ] as const) {
          for (let n = 1; n <= count; n++) {
            const accept = dialog.getByRole('button', { name: `Accept hunk ${n} of ${file}` });
            await wheelUntilAttached(page, accept, body, 1, 480);
            await wheelIntoView(page, accept, body);
            expect(await accept.getAttribute('aria-pressed')).toBe('true');
          }
        }
        // Decline alpha's hunk 2 (and say why, in the box that opens beside it), beta's hunk 2 (the fifth
        // hunk) and the deletion of old.txt.
        for (const [file, n] of [
          ['alpha.txt', 2],
          ['beta.txt', 2],
          ['old.txt', 1],
        ] as const) {
          const decline = dialog.getByRole('button', { name: `Decline hunk ${n} of ${file}` });
          await wheelIntoView(page, decline, body);
          await clickCentre(page, decline);
          expect(await decline.getAttribute('aria-pressed')).toBe('true');
          if (file === 'alpha.txt') {
            const why = dialog.getByRole('textbox', { name: 'Why decline hunk 2 of alpha.txt' });
            await wheelIntoView(page, why, body);
            await clickCentre(page, why);
            await page.keyboard.type('keep this line quiet');
            expect(await why.inputValue()).toBe('keep this line quiet');
          }
        }
        // A declined hunk can be accepted again from beside it.
        const again = dialog.getByRole('button', { name: 'Accept hunk 2 of beta.txt' });
        await wheelIntoView(page, again, body);
        await clickCentre(page, again);
        const declineAgain = dialog.getByRole('button', { name: 'Decline hunk 2 of beta.txt' });
        await clickCentre(page, declineAgain);
        await dialog.getByText('Accept applies 3 of 6 hunks').waitFor();
        await e2e.screenshot(`review-hunks-${size}`);

        const acceptAll = dialog.getByRole('button', { name: 'Accept', exact: true });
        await clickCentre(page, acceptAll);
        const next = await mock.waitForRequest(2);
        await conversation(page).getByText('Applied what you accepted.').waitFor();
        expect(await workspace.read('alpha.txt')).toBe(
          ALPHA.replace('alpha line 5\n', 'ALPHA FIVE\n').replace('alpha line 45\n', 'ALPHA FORTY-FIVE\n'),
        );
        expect(await workspace.read('beta.txt')).toBe(BETA.replace('beta line 10\n', 'BETA TEN\n'));
        expect(await workspace.read('old.txt')).toBe(OLD);
        expect(JSON.stringify(next.body)).toContain('keep this line quiet');

        // The conversation shows what landed: 2 files edited, +3 −3, and the declined parts marked.
        const cell = conversation(page).locator('.cell-patch');
        await cell.getByText('Edited 2 files').waitFor();
        expect(await cell.locator('.tool-meta .status').innerText()).toBe('Applied · 3 hunks declined');
        const alpha = cell.locator('.file-row', { hasText: 'alpha.txt' });
        expect(await alpha.locator('.file-stats').first().innerText()).toBe('+2 −2');
        const oldRow = cell.locator('.file-row', { hasText: 'old.txt' });
        expect(await oldRow.getAttribute('data-declined')).toBe('true');
        await oldRow.getByText('Not deleted (declined)').waitFor();
        const declined = cell.locator('[data-declined="true"]', { hasText: 'ALPHA TWENTY-FIVE' });
        await declined.waitFor();
        expect(await declined.evaluate((el) => getComputedStyle(el).textDecorationLine)).toContain('line-through');
        // The diff shown for alpha.txt holds only the hunks that landed.
        const alphaDiff = alpha.locator('.static-diff');
        await alphaDiff.getByText('ALPHA FORTY-FIVE').waitFor({ timeout: 60_000 });
        await alphaDiff.getByText('ALPHA FIVE').waitFor();
        // The diff follows the completed item once React renders it: wait for the landed state to settle.
        await alphaDiff.getByText('ALPHA TWENTY-FIVE').waitFor({ state: 'detached' });
        expect(await alphaDiff.getByText('ALPHA TWENTY-FIVE').count()).toBe(0);
        // Between the two hunks that landed, a fold marker stands for the unchanged lines.
        await alphaDiff.getByRole('separator', { name: '33 unchanged lines' }).waitFor();
        await wheelIntoView(page, declined, conversation(page));
        await e2e.screenshot(`review-landed-${size}`);
      },
    );
  }
});
