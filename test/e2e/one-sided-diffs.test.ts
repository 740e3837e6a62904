// E2E: a new file shows only its added lines and a deleted file only its removed lines (no phantom empty
// line on the other side, no "lines 0–0"), in the review dialog, the conversation's "Edited N files" cell
// and "View changes"; between two hunks the cell shows a fold marker across the whole diff.
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

const NOTES = Array.from({ length: 40 }, (_, i) => `note ${i + 1}`).join('\n') + '\n';
const PATCH = [
  '*** Begin Patch',
  '*** Update File: notes.txt',
  '@@',
  '-note 3',
  '+NOTE THREE',
  '@@',
  '-note 35',
  '+NOTE THIRTY-FIVE',
  '*** Add File: fresh.txt',
  '+first fresh line',
  '+second fresh line',
  '*** Delete File: stale.txt',
  '*** End Patch',
].join('\n');

let e2e: E2e | undefined;

/** Every line the diff view draws (all of its editors, top to bottom), with what marks it. */
async function drawnLines(diff: Locator): Promise<{ text: string; added: boolean; removed: boolean }[]> {
  return diff.evaluate((root) => {
    const out: { text: string; added: boolean; removed: boolean }[] = [];
    for (const editor of root.querySelectorAll('.monaco-editor')) {
      const box = editor.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      const lines = [...editor.querySelectorAll<HTMLElement>('.view-lines .view-line')].sort(
        (a, b) => parseFloat(a.style.top) - parseFloat(b.style.top),
      );
      const overlays = [...editor.querySelectorAll<HTMLElement>('.view-overlays > div')];
      for (const line of lines) {
        const overlay = overlays.find((o) => o.style.top === line.style.top);
        out.push({
          text: (line.textContent ?? '').replace(/\u00a0/g, ' '),
          added: overlay?.querySelector('.line-insert') !== null && overlay !== undefined,
          removed: overlay?.querySelector('.line-delete') !== null && overlay !== undefined,
        });
      }
    }
    return out;
  });
}

/** The lines a conversation's diff (plain elements) draws, top to bottom, with what marks them. */
async function staticLines(diff: Locator): Promise<{ text: string; added: boolean; removed: boolean }[]> {
  return diff.locator('.sd-code').evaluateAll((cells) =>
    cells.map((cell) => ({
      text: cell.textContent ?? '',
      added: cell.classList.contains('is-added'),
      removed: cell.classList.contains('is-removed'),
    })),
  );
}

/** Waits until the diff view draws exactly `texts`, each marked `kind`, and nothing else. */
async function expectOneSided(diff: Locator, kind: 'added' | 'removed', texts: string[]): Promise<void> {
  await diff
    .locator(kind === 'added' ? '.line-insert' : '.line-delete')
    .first()
    .waitFor({ state: 'attached', timeout: 90_000 });
  let drawn = await drawnLines(diff);
  // Monaco draws its lines over a few frames once the diff is computed.
  for (let i = 0; i < 50 && drawn.length < texts.length; i++) {
    await diff.page().evaluate(() => new Promise((r) => requestAnimationFrame(() => r(true))));
    drawn = await drawnLines(diff);
  }
  expect(drawn).toEqual(texts.map((text) => ({ text, added: kind === 'added', removed: kind === 'removed' })));
}

describe('diffs of new and deleted files', () => {
  it(
    'show one side only, with true line ranges, in the review, the conversation and View changes',
    { timeout: 360_000 },
    async () => {
      e2e = await startE2e({
        viewport: { width: 1400, height: 900 },
        files: { 'notes.txt': NOTES, 'stale.txt': 'stale one\nstale two\n' },
      });
      const { page, mock } = e2e;
      mock.enqueueMany([
        {
          kind: 'sse',
          events: [evCreated(), evFunctionCall('call_p', 'apply_patch', { input: PATCH }), evCompleted()],
        },
        answerTurn('Changed three files.'),
      ]);
      await sendMessage(page, 'Change some files');

      // The review dialog.
      const dialog = page.getByRole('dialog', { name: 'Review changes' });
      await dialog.waitFor();
      const body = dialog.locator('.review-body');
      const freshReview = dialog.getByRole('region', { name: 'Changes to fresh.txt' });
      const staleReview = dialog.getByRole('region', { name: 'Changes to stale.txt' });
      await expectOneSided(freshReview.locator('.monaco-diff'), 'added', ['first fresh line', 'second fresh line']);
      await expectOneSided(staleReview.locator('.monaco-diff'), 'removed', ['stale one', 'stale two']);
      const freshAccept = freshReview.getByRole('button', { name: 'Accept hunk 1 of fresh.txt' });
      await wheelIntoView(page, freshAccept, body);
      expect(await freshReview.locator('.hunk-row').innerText()).toContain('lines 1–2');
      const staleAccept = staleReview.getByRole('button', { name: 'Accept hunk 1 of stale.txt' });
      await wheelIntoView(page, staleAccept, body);
      expect(await staleReview.locator('.hunk-row').innerText()).toContain('removes lines 1–2');
      // The controls of the deleted file's hunk sit under its removed lines, not above them.
      const lastRemoved = staleReview.locator('.view-line', { hasText: 'stale two' });
      expect((await staleAccept.boundingBox())?.y).toBeGreaterThan((await lastRemoved.boundingBox())?.y ?? Infinity);
      expect(await dialog.innerText()).not.toContain('0–0');
      await screenshotSizes(e2e, 'one-sided-review');
      await clickCentre(page, dialog.getByRole('button', { name: 'Accept', exact: true }));
      await conversation(page).getByText('Changed three files.').waitFor();

      // The conversation's "Edited 3 files" cell.
      const cell = conversation(page).locator('.cell-patch');
      await cell.getByText('Edited 3 files').waitFor();
      const row = (name: string): Locator => cell.locator('.file-row', { hasText: name });
      // Drawn as plain elements: one side only, each line marked, with its sign and number.
      const expectStatic = async (name: string, kind: 'added' | 'removed', texts: string[]) => {
        const diff = row(name).locator('.static-diff');
        await expect
          .poll(() => staticLines(diff), { timeout: 60_000 })
          .toEqual(texts.map((text) => ({ text, added: kind === 'added', removed: kind === 'removed' })));
        expect(await diff.getAttribute('data-one-sided')).toBe(kind);
        expect(await diff.locator('.sd-num').allTextContents()).toEqual(texts.map((_, i) => String(i + 1)));
      };
      await expectStatic('fresh.txt', 'added', ['first fresh line', 'second fresh line']);
      await expectStatic('stale.txt', 'removed', ['stale one', 'stale two']);
      // The gap between the two hunks of notes.txt is a fold marker across the whole diff (both sides), not
      // a blank line on one of them.
      const notesDiff = row('notes.txt').locator('.static-diff');
      const fold = notesDiff.getByRole('separator', { name: '25 unchanged lines' });
      await fold.waitFor({ timeout: 60_000 });
      expect(await notesDiff.getAttribute('data-layout')).toBe('split');
      const original = notesDiff.locator('.sd-code').first();
      await original.waitFor();
      const foldBox = await fold.boundingBox();
      const originalBox = await original.boundingBox();
      const diffBox = await notesDiff.boundingBox();
      if (foldBox === null || originalBox === null || diffBox === null)
        throw new Error('the notes.txt diff is not visible');
      expect(foldBox.x).toBeLessThan(originalBox.x + originalBox.width / 2);
      expect(foldBox.x + foldBox.width).toBeGreaterThan(diffBox.x + diffBox.width * 0.9);
      await wheelIntoView(page, fold, conversation(page));
      await screenshotSizes(e2e, 'one-sided-cell');

      // "View changes" of the turn.
      const view = conversation(page).getByRole('button', { name: 'View changes (3 files)' });
      await wheelIntoView(page, view, conversation(page));
      await clickCentre(page, view);
      const changes = page.getByRole('dialog', { name: 'Changes in this turn' });
      await changes.waitFor();
      await expectOneSided(
        changes.getByRole('region', { name: 'Changes to fresh.txt' }).locator('.monaco-diff'),
        'added',
        ['first fresh line', 'second fresh line'],
      );
      await expectOneSided(
        changes.getByRole('region', { name: 'Changes to stale.txt' }).locator('.monaco-diff'),
        'removed',
        ['stale one', 'stale two'],
      );
      await screenshotSizes(e2e, 'one-sided-view-changes');
    },
  );
});
