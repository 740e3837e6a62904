// E2E: "Undo this turn" over a turn that changed 80 files (8 KB each, 16 KB after the turn). The preview's
// answer carries the first files' texts only; every other file shows its diff once the person wheels to it
// (its texts asked for then, its editor made then), and none says "Too large to show" (before, every file past
// 4 MiB of texts did, however small). The Changes panel outside git, which shows the same preview, asks again after each turn.
// Reached by mouse (wheel + click) at 900×700 and 1400×900 through `weft serve`.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, frames, sendMessage, startE2e, type E2e } from '../support/weft-serve';

const FILES = 80;
const name = (i: number): string => `src/f${String(i).padStart(3, '0')}.txt`;
/** 8 KB a file before the turn; the turn doubles every line. */
const text = (i: number): string =>
  Array.from({ length: 128 }, (_, n) => `file ${i} line ${n}`.padEnd(63, '.')).join('\n') + '\n';

let e2e: E2e | undefined;

async function clickAction(page: Page, action: string): Promise<void> {
  const button = conversation(page).getByRole('button', { name: action }).first();
  await wheelIntoView(page, button, conversation(page));
  await clickCentre(page, button);
}

describe('undo of a turn that changed many files', () => {
  it('shows the diff of every file as the person wheels to it, none too large', { timeout: 300_000 }, async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < FILES; i++) files[name(i)] = text(i);
    e2e = await startE2e({ files, approvalPolicy: 'never', viewport: { width: 900, height: 700 } });
    const { page, workspace } = e2e;
    e2e.mock.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          evFunctionCall('c1', 'exec_command', { cmd: `for f in src/*.txt; do sed -i 'p' "$f"; done` }),
          evCompleted(),
        ],
      },
      answerTurn('Doubled.'),
    ]);
    await sendMessage(page, 'Double every line');
    await conversation(page).getByText('Doubled.').waitFor();

    await clickAction(page, 'Undo this turn');
    const dialog = page.getByRole('dialog', { name: 'Undo this turn' });
    const first = dialog.getByRole('region', { name: `${name(0)} goes back` });
    await first.locator('.monaco-diff:not(.monaco-diff--loading)').first().waitFor();
    expect(await dialog.locator('.restore-file').count()).toBe(FILES);
    // The last files wait for the person: their texts have not been asked for.
    const last = dialog.getByRole('region', { name: `${name(FILES - 1)} goes back` });
    expect(await last.getByText("Loading the file's texts…").count()).toBe(1);
    await e2e.screenshot('restore-many-files-top-900x700');
    // Only the diffs near the view are made (before, every file with texts got its editor, one a frame): after
    // a frame for each file, those of the first screens only.
    await frames(page, FILES);
    const made = await dialog.locator('.monaco-diff-editor').count();
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThan(12);

    await wheelIntoView(page, last, dialog.locator('.review-body'), 2400);
    await last.locator('.monaco-diff:not(.monaco-diff--loading)').first().waitFor();
    expect(await last.getByText("Loading the file's texts…").count()).toBe(0);
    expect(await dialog.getByText('Too large to show.').count()).toBe(0);
    await e2e.screenshot('restore-many-files-bottom-900x700');

    await clickCentre(page, dialog.getByRole('button', { name: `Restore ${FILES} files` }));
    await dialog.waitFor({ state: 'detached' });
    expect(await workspace.read(name(FILES - 1))).toBe(text(FILES - 1));
  });

  it(
    "the Changes panel outside git shows a deferred file's texts, and its new texts after the next turn",
    { timeout: 300_000 },
    async () => {
      const files: Record<string, string> = {};
      for (let i = 0; i < FILES; i++) files[name(i)] = text(i);
      e2e = await startE2e({ files, approvalPolicy: 'never', viewport: { width: 1400, height: 900 } });
      const { page } = e2e;
      const command = (id: string, cmd: string) => ({
        kind: 'sse' as const,
        events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd }), evCompleted()],
      });
      e2e.mock.enqueueMany([
        command('c1', `for f in src/*.txt; do sed -i 'p' "$f"; done`),
        answerTurn('Doubled.'),
        command('c2', `sed -i '1s/^/TURN-TWO /' ${name(FILES - 1)}`),
        answerTurn('Marked.'),
      ]);
      await sendMessage(page, 'Double every line');
      await conversation(page).getByText('Doubled.').waitFor();
      await clickCentre(page, page.getByRole('button', { name: 'Changes', exact: true }));
      const panel = page.getByRole('region', { name: 'Changes' });
      await panel.getByText(/Git is off for this folder/).waitFor();
      const last = panel.locator('li.changes-file', { hasText: name(FILES - 1) });
      await wheelIntoView(page, last, panel.locator('.changes-body'), 2400);
      await last
        .getByText(`file ${FILES - 1} line 0`, { exact: false })
        .first()
        .waitFor();
      expect(await last.getByText('TURN-TWO').count()).toBe(0);

      await sendMessage(page, 'Mark the last file');
      await conversation(page).getByText('Marked.').waitFor();
      // The panel asks for the thread's changes again, and for the texts of the file anew (the change is on the
      // file's first line: the diff editor draws only the lines in its view).
      await last.getByText('TURN-TWO').first().waitFor();
      await e2e.screenshot('changes-no-git-deferred-1400');
    },
  );
});
