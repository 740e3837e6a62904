// E2E: the numbers the checkpoint views say are true. The bar after a restore counts the files the dialog
// offered to restore (never the folders that came or went with them), a kept file is said as kept, Redo
// counts files too; "Remove worktree" names only work found nowhere else: a file the worktree holds just
// as the parent's folder does is not lost. By mouse through `weft serve`, with screenshots at 1400×900 and
// 900×700.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { git } from '../support/git-repo';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';

const command = (id: string, cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd }), evCompleted()],
});

async function clickAction(page: Page, name: string): Promise<void> {
  const button = conversation(page).getByRole('button', { name }).first();
  await wheelIntoView(page, button, conversation(page));
  await clickCentre(page, button);
}

describe('counts in the checkpoint views', () => {
  it(
    'says as many files restored, kept and put back as the dialog offered, folders not counted',
    { timeout: 300_000 },
    async () => {
      const e2e = await startE2e({
        files: { 'notes.txt': 'one\n', 'gone.txt': 'bye\n' },
        approvalPolicy: 'never',
        viewport: { width: 1400, height: 900 },
      });
      const { page, workspace, mock } = e2e;
      const file = (path: string): string | null =>
        existsSync(workspace.path(path)) ? readFileSync(workspace.path(path), 'utf8') : null;
      mock.enqueueMany([
        command('c1', 'printf "TWO\\n" >> notes.txt && rm gone.txt && mkdir -p made/deep && echo x > made/deep/x.txt'),
        answerTurn('First done.'),
        command('c2', 'mkdir -p later/inner && echo later > later/inner/later.txt'),
        answerTurn('Second done.'),
      ]);
      await sendMessage(page, 'Change the notes');
      await conversation(page).getByText('First done.').waitFor();
      await sendMessage(page, 'Add a file');
      await conversation(page).getByText('Second done.').waitFor();

      // Restore to after the first turn: one file goes (its two new folders with it).
      await clickAction(page, 'Restore to here');
      const restore = page.getByRole('dialog', { name: 'Restore to here' });
      await restore.getByRole('region', { name: 'later/inner/later.txt is removed' }).waitFor();
      await clickCentre(page, restore.getByRole('button', { name: 'Restore 1 file' }));
      await restore.waitFor({ state: 'detached' });
      const bar = page.getByRole('status', { name: 'Restore done' });
      await bar.locator('.redo-bar-text > span').first().waitFor();
      expect(await bar.locator('.redo-bar-text > span').first().textContent()).toBe('Restored 1 file.');
      expect(existsSync(workspace.path('later'))).toBe(false);
      await clickCentre(page, bar.getByRole('button', { name: 'Redo' }));
      await bar.getByText(/^Brought back the turn and \d+ files? /).waitFor();
      expect(await bar.locator('.redo-bar-text > span').first().textContent()).toBe(
        'Brought back the turn and 1 file as they were before the restore.',
      );
      expect(file('later/inner/later.txt')).toBe('later\n');
      await conversation(page).getByText('Second done.').waitFor();

      // The second turn is back and the latest: undone again, it removes its one file (not its folders).
      await clickAction(page, 'Undo this turn');
      const undoSecond = page.getByRole('dialog', { name: 'Undo this turn' });
      await undoSecond.getByRole('region', { name: 'later/inner/later.txt is removed' }).waitFor();
      await clickCentre(page, undoSecond.getByRole('button', { name: 'Restore 1 file' }));
      await undoSecond.waitFor({ state: 'detached' });
      await conversation(page).getByText('Second done.').waitFor({ state: 'detached' });
      expect(existsSync(workspace.path('later'))).toBe(false);

      // The user rewrites notes.txt; undoing the first turn keeps their version and restores the two others.
      writeFileSync(workspace.path('notes.txt'), 'the user rewrote this\n');
      await clickAction(page, 'Undo this turn');
      const undo = page.getByRole('dialog', { name: 'Undo this turn' });
      await undo.getByRole('alert').getByText('notes.txt').waitFor();
      await undo.getByRole('region', { name: 'made/deep/x.txt is removed' }).waitFor();
      await undo.locator('.monaco-diff--loading').first().waitFor({ state: 'detached' });
      const confirm = undo.getByRole('button', { name: 'Restore 2 files, keep 1 of mine' });
      await confirm.waitFor();
      await screenshotSizes(e2e, 'counts-undo-dialog');
      await clickCentre(page, confirm);
      await undo.waitFor({ state: 'detached' });
      await conversation(page).getByText('First done.').waitFor({ state: 'detached' });
      expect([file('notes.txt'), file('gone.txt'), existsSync(workspace.path('made'))]).toEqual([
        'the user rewrote this\n',
        'bye\n',
        false,
      ]);
      await bar.getByText(/^Restored/).waitFor();
      expect(await bar.locator('.redo-bar-text > span').first().textContent()).toBe(
        'Restored 2 files; kept 1 of yours as it is.',
      );
      await screenshotSizes(e2e, 'counts-restored-bar');
    },
  );

  it(
    'names no lost work when a worktree holds the same files as the parent’s folder, and names what only it holds',
    { timeout: 300_000 },
    async () => {
      const e2e = await startE2e({
        files: { 'notes.txt': 'one\ntwo\n', 'README.md': '# Demo\n' },
        approvalPolicy: 'never',
        viewport: { width: 900, height: 700 },
      });
      const { page, workspace, mock } = e2e;
      git(workspace.dir, 'init', '-q', '--initial-branch=main');
      git(workspace.dir, 'add', '.');
      git(workspace.dir, 'commit', '-qm', 'initial');
      // The first turn leaves uncommitted work in the parent: a changed file, two new ones, a deletion.
      mock.enqueueMany([
        command(
          'c1',
          'echo three >> notes.txt && echo a > a.txt && mkdir -p sub && echo b > sub/b.txt && rm README.md',
        ),
        answerTurn('First done.'),
      ]);
      await sendMessage(page, 'Start');
      await conversation(page).getByText('First done.').waitFor();
      const parentUrl = page.url();
      await clickAction(page, 'Fork into worktree');
      await page.waitForURL((url) => url.toString() !== parentUrl);
      const threads = page.getByRole('navigation', { name: 'Threads' });
      const forkRow = threads.locator('.thread-row.is-fork');
      await forkRow
        .locator('.thread-where')
        .getByText(/^on weft\/[0-9a-f]{8}$/)
        .waitFor();
      const worktree = (await forkRow.locator('.thread-where').getAttribute('title')) ?? '';
      // The worktree holds the parent's uncommitted work as it is in the parent: nothing is only there.
      expect(git(worktree, 'status', '--porcelain').trim().split('\n').length).toBe(4);
      const title = (await forkRow.locator('.thread-title').textContent()) ?? '';
      const openRemove = async (): Promise<void> => {
        await clickCentre(page, threads.getByRole('button', { name: `Actions for ${title}` }));
        await clickCentre(page, page.getByRole('menuitem', { name: 'Remove worktree' }));
      };
      await openRemove();
      const remove = page.getByRole('dialog', { name: 'Remove worktree' });
      await remove.getByText('Nothing there is found only there', { exact: false }).waitFor();
      expect(await remove.getByRole('alert').count()).toBe(0);
      expect(await remove.getByRole('button', { name: 'Remove worktree' }).count()).toBe(1);
      await screenshotSizes(e2e, 'counts-remove-worktree-same');
      await clickCentre(page, remove.getByRole('button', { name: 'Cancel' }));
      await remove.waitFor({ state: 'detached' });

      // Work done in the fork is only there: a new file and a change to a file the parent has too.
      mock.enqueueMany([command('f1', 'echo forked > fork-only.txt && echo fork >> a.txt'), answerTurn('Fork done.')]);
      await sendMessage(page, 'Work in the fork');
      await conversation(page).getByText('Fork done.').waitFor();
      await openRemove();
      const alert = remove.getByRole('alert');
      await alert.getByText('2 files have work found nowhere else', { exact: false }).waitFor();
      expect(await alert.locator('li code').allTextContents()).toEqual(['a.txt', 'fork-only.txt']);
      await remove.getByRole('button', { name: 'Remove and lose 2 files' }).waitFor();
      await screenshotSizes(e2e, 'counts-remove-worktree-own-work');
    },
  );
});
