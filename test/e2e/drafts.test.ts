// E2E: unsent work is kept — a patch review's hunk verdicts and comments survive switching threads and a
// reload until the request is answered, and the composer's draft of each thread survives a reload.
import { describe, expect, it } from 'vitest';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

const NOTES = Array.from({ length: 30 }, (_, i) => `note ${i + 1}`).join('\n') + '\n';
const PATCH = [
  '*** Begin Patch',
  '*** Update File: notes.txt',
  '@@',
  '-note 3',
  '+NOTE THREE',
  '@@',
  '-note 25',
  '+NOTE TWENTY-FIVE',
  '*** End Patch',
].join('\n');

let e2e: E2e | undefined;

describe('unsent work is kept', () => {
  it(
    'keeps hunk verdicts across thread switches and a reload until answered, and composer drafts across a reload',
    { timeout: 300_000 },
    async () => {
      e2e = await startE2e({ viewport: { width: 1400, height: 900 }, files: { 'notes.txt': NOTES } });
      const { page, mock, workspace } = e2e;
      const threads = page.getByRole('navigation', { name: 'Threads' });
      const box = page.getByRole('textbox', { name: 'Message' });

      mock.enqueueMany([answerTurn('Hello there.')]);
      await sendMessage(page, 'Say hello');
      await conversation(page).getByText('Hello there.').waitFor();

      // A second thread asks to review a patch of two hunks; decline the first and say why.
      await clickCentre(page, page.getByRole('button', { name: 'New thread' }));
      mock.enqueueMany([
        {
          kind: 'sse',
          events: [evCreated(), evFunctionCall('call_p', 'apply_patch', { input: PATCH }), evCompleted()],
        },
        answerTurn('Applied the rest.'),
      ]);
      await sendMessage(page, 'Shout two notes');
      const dialog = page.getByRole('dialog', { name: 'Review changes' });
      await dialog.waitFor();
      const zonesShown = () => dialog.locator('.diff-zone').nth(1).waitFor({ state: 'attached', timeout: 90_000 });
      await zonesShown();
      const body = dialog.locator('.review-body');
      const decline = dialog.getByRole('button', { name: 'Decline hunk 1 of notes.txt' });
      await wheelIntoView(page, decline, body);
      await clickCentre(page, decline);
      const why = dialog.getByRole('textbox', { name: 'Why decline hunk 1 of notes.txt' });
      await clickCentre(page, why);
      await page.keyboard.type('three stays quiet');

      // Away to the first thread, where a draft is typed but not sent…
      await clickCentre(page, threads.getByRole('button', { name: 'Say hello', exact: true }));
      await conversation(page).getByText('Hello there.').waitFor();
      expect(await dialog.count()).toBe(0);
      await clickCentre(page, box);
      await page.keyboard.type('a thought for later');

      // …and back: the review is as it was left.
      await clickCentre(page, threads.getByRole('button', { name: 'Shout two notes', exact: true }));
      await dialog.waitFor();
      await zonesShown();
      await dialog.getByText('Accept applies 1 of 2 hunks').waitFor();
      expect(
        await dialog.getByRole('button', { name: 'Decline hunk 1 of notes.txt' }).getAttribute('aria-pressed'),
      ).toBe('true');
      expect(await why.inputValue()).toBe('three stays quiet');

      // A reload loses neither the review nor the draft.
      await page.reload();
      await dialog.waitFor();
      await zonesShown();
      await dialog.getByText('Accept applies 1 of 2 hunks').waitFor();
      expect(await why.inputValue()).toBe('three stays quiet');
      await screenshotSizes(e2e, 'drafts-review-after-reload');
      await clickCentre(page, threads.getByRole('button', { name: 'Say hello', exact: true }));
      await conversation(page).getByText('Hello there.').waitFor();
      expect(await box.inputValue()).toBe('a thought for later');
      await screenshotSizes(e2e, 'drafts-composer-after-reload');

      // Answered, the review's verdicts are gone: the request carried them.
      await clickCentre(page, threads.getByRole('button', { name: 'Shout two notes', exact: true }));
      await dialog.waitFor();
      await clickCentre(page, dialog.getByRole('button', { name: 'Accept', exact: true }));
      const next = await mock.waitForRequest(3);
      expect(JSON.stringify(next.body)).toContain('three stays quiet');
      await conversation(page).getByText('Applied the rest.').waitFor();
      expect(await workspace.read('notes.txt')).toBe(NOTES.replace('note 25\n', 'NOTE TWENTY-FIVE\n'));
      const left = await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('weft.review.')));
      expect(left).toEqual([]);
    },
  );
});
