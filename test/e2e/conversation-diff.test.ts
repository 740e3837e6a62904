// E2E: a patch in the conversation is drawn as text: syntax colours from Monaco's tokenizers, the words
// that changed within a line marked, side by side or inline as the person picks (by clicking the toggle),
// its text selected and copied as written (no non-breaking spaces, no line numbers or signs), in the light
// and the dark scheme.
import { describe, expect, it } from 'vitest';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

const APP = [
  'export function total(items: number[]): number {',
  '  // Adds them up.',
  '  return computeTotal(items);',
  '}',
  '',
].join('\n');
const PATCH = [
  '*** Begin Patch',
  '*** Update File: app.ts',
  '@@',
  '   // Adds them up.',
  '-  return computeTotal(items);',
  '+  return computeSum(items);',
  '*** End Patch',
].join('\n');

let e2e: E2e | undefined;

describe('a patch in the conversation', () => {
  it('is drawn as text with its colours and changed words, in either layout', { timeout: 300_000 }, async () => {
    e2e = await startE2e({ viewport: { width: 1400, height: 900 }, approvalPolicy: 'never', files: { 'app.ts': APP } });
    const { page, mock } = e2e;
    mock.enqueueMany([
      { kind: 'sse', events: [evCreated(), evFunctionCall('p1', 'apply_patch', { input: PATCH }), evCompleted()] },
      answerTurn('Renamed the call.'),
    ]);
    await sendMessage(page, 'Rename the call');
    await conversation(page).getByText('Renamed the call.').waitFor();
    const diff = conversation(page).getByRole('group', { name: 'Changes to app.ts' });
    await diff.waitFor();
    expect(await diff.getAttribute('data-layout')).toBe('split');

    // The changed word on each side, and nothing else of the line.
    expect(await diff.locator('.sd-code.is-removed .sd-word').allTextContents()).toEqual(['computeTotal']);
    expect(await diff.locator('.sd-code.is-added .sd-word').allTextContents()).toEqual(['computeSum']);
    // Colours follow once the tokenizer has run: `return` is a keyword, the comment a comment.
    const keyword = diff.locator('.sd-code.is-added .tk-keyword', { hasText: 'return' });
    await keyword.waitFor({ timeout: 60_000 });
    expect(await keyword.evaluate((el) => getComputedStyle(el).color)).toBe('rgb(0, 0, 255)');
    expect(await diff.locator('.tk-comment', { hasText: '// Adds them up.' }).count()).toBeGreaterThan(0);
    await screenshotSizes(e2e, 'conversation-diff-split');
    // In the dark scheme (the OS's, which the app follows by default), vs-dark's colours.
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset['theme'])).toBe('dark');
    expect(await keyword.evaluate((el) => getComputedStyle(el).color)).toBe('rgb(86, 156, 214)');
    await e2e.screenshot('conversation-diff-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // Selected with the mouse and copied: the line as written.
    const added = diff.locator('.sd-code.is-added');
    const box = await added.boundingBox();
    if (box === null) throw new Error('the added line is not drawn');
    await page.mouse.click(box.x + 2, box.y + box.height / 2, { clickCount: 3 });
    const selected = await page.evaluate(() => window.getSelection()?.toString() ?? '');
    expect(selected.replace(/\n$/, '')).toBe('  return computeSum(items);');

    // Inline, by the toggle: one column, the removed line above the added one, each with its number.
    const cell = conversation(page).locator('.cell-patch');
    const inline = cell.getByRole('button', { name: 'Inline' });
    await wheelIntoView(page, inline, conversation(page));
    await clickCentre(page, inline);
    await expect.poll(() => diff.getAttribute('data-layout')).toBe('inline');
    const rows = await diff
      .locator('.sd-row')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '').join('|')),
      );
    expect(rows).toEqual([
      '1|1||export function total(items: number[]): number {',
      '2|2||  // Adds them up.',
      '3||−|  return computeTotal(items);',
      '|3|+|  return computeSum(items);',
      '4|4||}',
    ]);
    await screenshotSizes(e2e, 'conversation-diff-inline');
  });
});
