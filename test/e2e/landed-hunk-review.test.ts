// E2E: in the default approval mode ("Ask to leave the sandbox": on-request) a patch lands at once, and
// its turn's "View changes" is where it is reviewed: by mouse wheel and clicks at 1400×900 and 900×700,
// one hunk is undone with a reason (only its lines go back on disk), the other kept, the file marked
// viewed (its diff folds, and stays folded after a reload); the reason reaches the model with the next
// message.
import { describe, expect, it } from 'vitest';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { conversation, SCREENSHOT_SIZES, sendMessage, startE2e } from '../support/weft-serve';

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
  '*** End Patch',
].join('\n');
const REASON = 'leave note 3 in lower case';

describe('review of a landed turn, by mouse', () => {
  for (const viewport of SCREENSHOT_SIZES) {
    const size = `${viewport.width}x${viewport.height}`;
    it(
      `undoes one hunk with a reason, keeps the other, marks the file viewed (${size})`,
      { timeout: 300_000 },
      async () => {
        const e2e = await startE2e({
          viewport,
          approvalPolicy: 'on-request',
          sandbox: 'workspace-write',
          files: { 'notes.txt': NOTES },
        });
        const { page, mock, workspace } = e2e;
        try {
          mock.enqueueMany([
            {
              kind: 'sse',
              events: [evCreated(), evFunctionCall('call_p', 'apply_patch', { input: PATCH }), evCompleted()],
            },
            answerTurn('Shouted two notes.'),
            answerTurn('Understood.'),
          ]);
          // The first screen of the project says which mode reviews what, and when.
          const modes = page.getByRole('region', { name: 'Review modes' });
          await modes.waitFor();
          expect(await modes.innerText()).toContain('Undo hunk');
          expect(await modes.innerText()).toContain('Ask unless read-only: every edit is also shown hunk by hunk');
          await e2e.screenshot(`landed-hunk-review-first-run-${size}`);
          await sendMessage(page, 'Shout notes 3 and 35');
          await conversation(page).getByText('Shouted two notes.').waitFor();
          // Landed without a question.
          expect(await page.getByRole('dialog', { name: 'Review changes' }).count()).toBe(0);
          expect(await workspace.read('notes.txt')).toBe(
            NOTES.replace('note 3\n', 'NOTE THREE\n').replace('note 35\n', 'NOTE THIRTY-FIVE\n'),
          );

          // The turn has ended (its footer is laid out for good) before its action is clicked.
          await conversation(page).locator('.turn-status.is-completed').waitFor();
          const view = conversation(page).getByRole('button', { name: 'View changes (1 file)' });
          await wheelIntoView(page, view, conversation(page));
          await clickCentre(page, view);
          const dialog = page.getByRole('dialog', { name: 'Changes in this turn' });
          await dialog.waitFor();
          const body = dialog.locator('.review-body');
          const file = dialog.getByRole('region', { name: 'Changes to notes.txt' });
          await file.locator('.monaco-diff .line-insert').first().waitFor({ state: 'attached', timeout: 90_000 });

          // Hunk 1: a reason, then Undo hunk.
          const why = dialog.getByRole('textbox', { name: 'Reason for hunk 1 of notes.txt' });
          await wheelIntoView(page, why, body);
          await clickCentre(page, why);
          await page.keyboard.type(REASON);
          const undo = dialog.getByRole('button', { name: 'Undo hunk 1 of notes.txt' });
          await wheelIntoView(page, undo, body);
          await clickCentre(page, undo);
          await dialog.getByRole('group', { name: 'Review of hunk 1 of notes.txt' }).getByText('Undone').waitFor();
          expect(await workspace.read('notes.txt')).toBe(NOTES.replace('note 35\n', 'NOTE THIRTY-FIVE\n'));

          // Hunk 2: Keep (the file stays as the agent left those lines).
          const keep = dialog.getByRole('button', { name: 'Keep hunk 2 of notes.txt' });
          await wheelIntoView(page, keep, body);
          await clickCentre(page, keep);
          expect(await keep.getAttribute('aria-pressed')).toBe('true');
          expect(await workspace.read('notes.txt')).toBe(NOTES.replace('note 35\n', 'NOTE THIRTY-FIVE\n'));
          await e2e.screenshot(`landed-hunk-review-${size}`);

          // Viewed: the file's diff folds away.
          const viewed = file.getByRole('checkbox', { name: 'Viewed' });
          await wheelIntoView(page, viewed, body);
          await clickCentre(page, viewed);
          expect(await viewed.isChecked()).toBe(true);
          await file.locator('.monaco-diff').waitFor({ state: 'detached' });
          await e2e.screenshot(`landed-hunk-review-viewed-${size}`);

          await page.keyboard.press('Escape');
          await dialog.waitFor({ state: 'detached' });
          await sendMessage(page, 'Thanks');
          const next = await mock.waitForRequest(3);
          const sent = JSON.stringify(next.body);
          expect(sent).toContain(REASON);
          expect(sent).toContain('notes.txt, hunk 1 (@@ -1,6 +1,6 @@): undid');
          // A hunk kept without a word is not worth the model's attention.
          expect(sent).not.toContain('notes.txt, hunk 2');
          await conversation(page).getByText('Understood.').waitFor();

          // After a reload the review is as it was left.
          await page.reload();
          await conversation(page).getByText('Understood.').waitFor();
          const again = conversation(page).getByRole('button', { name: 'View changes (1 file)' });
          await wheelIntoView(page, again, conversation(page));
          await clickCentre(page, again);
          const reopened = page.getByRole('dialog', { name: 'Changes in this turn' });
          await reopened.waitFor();
          expect(await reopened.getByRole('checkbox', { name: 'Viewed' }).isChecked()).toBe(true);
        } finally {
          await e2e.close();
        }
      },
    );
  }
});
