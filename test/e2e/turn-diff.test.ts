// E2E: a turn's "View changes" survives a reload (the diff is rebuilt from the rollout), and the diffs of
// new and deleted files count only their own lines, with fold markers between hunks.
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

describe('a turn’s changes', () => {
  it('are still there to view after a reload, with fold markers between hunks', { timeout: 300_000 }, async () => {
    e2e = await startE2e({
      approvalPolicy: 'never',
      viewport: { width: 1400, height: 900 },
      files: { 'notes.txt': NOTES, 'stale.txt': 'stale one\nstale two\n' },
    });
    const { page, mock } = e2e;
    mock.enqueueMany([
      { kind: 'sse', events: [evCreated(), evFunctionCall('call_p', 'apply_patch', { input: PATCH }), evCompleted()] },
      answerTurn('Changed three files.'),
    ]);
    await sendMessage(page, 'Change some files');
    await conversation(page).getByText('Changed three files.').waitFor();
    const view = conversation(page).getByRole('button', { name: 'View changes (3 files)' });
    await view.waitFor();

    await page.reload();
    await conversation(page).getByText('Changed three files.').waitFor();
    await wheelIntoView(page, view, conversation(page));
    await clickCentre(page, view);
    const dialog = page.getByRole('dialog', { name: 'Changes in this turn' });
    await dialog.waitFor();
    await dialog.getByText('3 files').waitFor();
    const notes = dialog.getByRole('region', { name: 'Changes to notes.txt' });
    const fresh = dialog.getByRole('region', { name: 'Changes to fresh.txt' });
    const stale = dialog.getByRole('region', { name: 'Changes to stale.txt' });
    await notes.locator('.monaco-diff .line-insert').first().waitFor({ state: 'attached', timeout: 90_000 });
    // Between the two hunks of notes.txt a fold marker stands for the lines not shown.
    await notes.getByRole('separator', { name: '25 unchanged lines' }).waitFor({ timeout: 60_000 });
    // A new file counts only added lines, a deleted one only removed lines.
    await fresh.locator('.monaco-diff .line-insert').first().waitFor({ state: 'attached', timeout: 60_000 });
    expect(await fresh.locator('.file-stats').innerText()).toBe('+2 −0');
    await stale.locator('.monaco-diff .line-delete').first().waitFor({ state: 'attached', timeout: 60_000 });
    expect(await stale.locator('.file-stats').innerText()).toBe('+0 −2');
    await screenshotSizes(e2e, 'turn-diff-after-reload');

    // Esc closes it and gives focus back to the button that opened it.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await view.evaluate((el) => el === document.activeElement)).toBe(true);
  });
});
