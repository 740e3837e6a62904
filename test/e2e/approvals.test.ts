// E2E: approvals by click — a command, and a patch reviewed hunk by hunk — against `weft serve`.
import { afterEach, describe, expect, it } from 'vitest';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

const NOTES = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const PATCH = [
  '*** Begin Patch',
  '*** Update File: notes.txt',
  '@@',
  '-line 2',
  '+LINE TWO',
  '@@',
  '-line 18',
  '+LINE EIGHTEEN',
  '*** End Patch',
].join('\n');

let e2e: E2e | undefined;
afterEach(async (context) => {
  // A failed scenario leaves its end state as a screenshot too, for whoever reads the CI artifacts.
  if (context.task.result?.state === 'fail')
    await e2e?.screenshot(`failed-${context.task.name.replace(/\W+/g, '-')}`).catch(() => undefined);
  await e2e?.close();
  e2e = undefined;
});

describe('approvals', () => {
  it('runs a command once it is approved and shows its output', { timeout: 60_000 }, async () => {
    e2e = await startE2e();
    const { page, mock, workspace } = e2e;
    mock.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          evFunctionCall('call_1', 'exec_command', { cmd: 'echo hello-from-e2e > out.txt && cat out.txt' }),
          evCompleted(),
        ],
      },
      answerTurn('It printed the greeting.'),
    ]);

    await sendMessage(page, 'Write a greeting to a file');
    const dialog = page.getByRole('dialog', { name: 'Approve command' });
    await dialog.waitFor();
    await dialog.getByText('echo hello-from-e2e > out.txt && cat out.txt').waitFor();
    expect(await page.title()).toMatch(/^\(1\) /);
    await dialog.getByRole('button', { name: 'Accept', exact: true }).click();

    await conversation(page).locator('.output-terminal').getByText('hello-from-e2e').waitFor();
    await conversation(page).getByText('It printed the greeting.').waitFor();
    expect(await workspace.read('out.txt')).toBe('hello-from-e2e\n');
    expect(await dialog.count()).toBe(0);
    expect(await page.title()).not.toMatch(/^\(/);
    await e2e.screenshot('approve-command');
  });

  it(
    'applies the accepted hunks of a patch and tells the model which hunk was declined and why',
    { timeout: 180_000 },
    async () => {
      e2e = await startE2e({ files: { 'notes.txt': NOTES } });
      const { page, mock, workspace } = e2e;
      mock.enqueueMany([
        {
          kind: 'sse',
          events: [evCreated(), evFunctionCall('call_p', 'apply_patch', { input: PATCH }), evCompleted()],
        },
        answerTurn('Kept line 18 as it was.'),
      ]);

      await sendMessage(page, 'Capitalise lines 2 and 18');
      const dialog = page.getByRole('dialog', { name: 'Review changes' });
      await dialog.waitFor();
      // Monaco lays out its diff off the main thread's critical path; on a loaded machine that takes a while.
      await dialog.locator('.monaco-diff .line-insert').first().waitFor({ state: 'attached', timeout: 90_000 });
      await dialog.getByRole('button', { name: 'Decline hunk 2 of notes.txt' }).click();
      await dialog.getByRole('textbox', { name: 'Why decline hunk 2 of notes.txt' }).fill('keep the original footer');
      await dialog.getByText('Accept applies 1 of 2 hunks').waitFor();
      await e2e.screenshot('review-patch-dialog');
      await dialog.getByRole('button', { name: 'Accept', exact: true }).click();

      const next = await mock.waitForRequest(2);
      await conversation(page).getByText('Kept line 18 as it was.').waitFor();
      expect(await workspace.read('notes.txt')).toBe(NOTES.replace('line 2\n', 'LINE TWO\n'));
      const sent = JSON.stringify(next.body);
      expect(sent).toContain('declined these hunks');
      expect(sent).toContain('hunk 2: \\"keep the original footer\\"');
      await e2e.screenshot('review-patch-partial');
    },
  );

  it('writes nothing when the patch is declined', { timeout: 60_000 }, async () => {
    e2e = await startE2e({ files: { 'notes.txt': NOTES } });
    const { page, mock, workspace } = e2e;
    mock.enqueueMany([
      { kind: 'sse', events: [evCreated(), evFunctionCall('call_p', 'apply_patch', { input: PATCH }), evCompleted()] },
      answerTurn('Understood, no changes.'),
    ]);

    await sendMessage(page, 'Capitalise lines 2 and 18');
    const dialog = page.getByRole('dialog', { name: 'Review changes' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Decline', exact: true }).click();

    const next = await mock.waitForRequest(2);
    await conversation(page).getByText('Understood, no changes.').waitFor();
    expect(await workspace.read('notes.txt')).toBe(NOTES);
    expect(JSON.stringify(next.body)).toMatch(/declined|rejected/i);
    await conversation(page).locator('.cell-patch').getByText('Declined').waitFor();
    await e2e.screenshot('decline-patch');
  });
});
