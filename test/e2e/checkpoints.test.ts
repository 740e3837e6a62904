// E2E: undo a turn with its files, restore to an earlier turn, Redo, the conflict path with "Keep mine"
// and "Overwrite" chosen per file, the files an undo could not put back named with the reason, fork into a worktree (a copy, outside git) and the store size in Settings; reached by
// mouse (wheel + click) at 1400×900 and 900×700 through `weft serve`.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

const command = (id: string, cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd }), evCompleted()],
});

const FILES = { 'notes.txt': 'one\ntwo\nthree\n', 'gone.txt': 'bye\n' };

let e2e: E2e | undefined;

/** Two turns: the first edits, deletes and creates a nested folder; the second adds a file. */
async function twoTurns(e: E2e): Promise<void> {
  e.mock.enqueueMany([
    command('c1', 'printf "TWO\\n" >> notes.txt && rm gone.txt && mkdir -p made/deep && echo x > made/deep/x.txt'),
    answerTurn('First done.'),
    command('c2', 'echo later > later.txt'),
    answerTurn('Second done.'),
  ]);
  await sendMessage(e.page, 'Change the notes');
  await conversation(e.page).getByText('First done.').waitFor();
  await sendMessage(e.page, 'Add a file');
  await conversation(e.page).getByText('Second done.').waitFor();
}

/** Clicks a turn action by mouse: wheels the conversation until it can be hit, then clicks its centre. */
async function clickAction(page: Page, name: string): Promise<void> {
  const button = conversation(page).getByRole('button', { name }).first();
  await wheelIntoView(page, button, conversation(page));
  await clickCentre(page, button);
}

describe('checkpoints in the UI', () => {
  it(
    'restores to an earlier turn, redoes, then undoes a turn over a file the user changed',
    { timeout: 300_000 },
    async () => {
      e2e = await startE2e({ files: FILES, approvalPolicy: 'never', viewport: { width: 1400, height: 900 } });
      const { page, workspace } = e2e;
      const file = (path: string): string | null =>
        existsSync(workspace.path(path)) ? readFileSync(workspace.path(path), 'utf8') : null;
      await twoTurns(e2e);
      expect(file('later.txt')).toBe('later\n');

      // "Restore to here" on the first turn: the second turn's file goes, and so does the turn.
      await clickAction(page, 'Restore to here');
      const dialog = page.getByRole('dialog', { name: 'Restore to here' });
      await dialog.getByRole('region', { name: 'later.txt is removed' }).waitFor();
      expect(await dialog.locator('.restore-file').count()).toBe(1);
      await dialog.locator('.monaco-diff--loading').waitFor({ state: 'detached' });
      await e2e.screenshot('checkpoints-restore-preview-1400');
      await clickCentre(page, dialog.getByRole('button', { name: 'Restore 1 file' }));
      await dialog.waitFor({ state: 'detached' });
      await conversation(page).getByText('Second done.').waitFor({ state: 'detached' });
      expect(file('later.txt')).toBeNull();
      expect(file('notes.txt')).toBe('one\ntwo\nthree\nTWO\n');

      // Redo puts the file back; the conversation stays where it is.
      const redoBar = page.getByRole('status', { name: 'Restore done' });
      await redoBar.getByText('Restored 1 file.').waitFor();
      await e2e.screenshot('checkpoints-redo-bar-1400');
      await clickCentre(page, redoBar.getByRole('button', { name: 'Redo' }));
      await redoBar.getByText('Put 1 file back as it was before the restore.').waitFor();
      expect(await redoBar.getByRole('button', { name: 'Redo' }).count()).toBe(0);
      expect(file('later.txt')).toBe('later\n');

      // The user edits two files the first turn changed: undoing that turn is a conflict over both.
      writeFileSync(workspace.path('notes.txt'), 'the user rewrote this\n');
      writeFileSync(workspace.path('made/deep/x.txt'), 'mine\n');
      await clickAction(page, 'Undo this turn');
      const undo = page.getByRole('dialog', { name: 'Undo this turn' });
      const conflicts = undo.getByRole('alert');
      await conflicts.getByText('notes.txt').waitFor();
      expect(await conflicts.locator('li code').allTextContents()).toEqual(['made/deep/x.txt', 'notes.txt']);
      await undo.getByRole('region', { name: 'gone.txt comes back' }).waitFor();
      await undo.locator('.monaco-diff--loading').first().waitFor({ state: 'detached' });
      // Each conflict starts as "Keep mine".
      expect(await conflicts.getByRole('button', { name: 'Keep mine: notes.txt' }).getAttribute('aria-pressed')).toBe(
        'true',
      );
      expect(
        await conflicts.getByRole('button', { name: 'Keep mine: made/deep/x.txt' }).getAttribute('aria-pressed'),
      ).toBe('true');
      await e2e.screenshot('checkpoints-conflict-1400');
      // Cancel writes nothing and keeps the turn.
      await clickCentre(page, undo.getByRole('button', { name: 'Cancel' }));
      await undo.waitFor({ state: 'detached' });
      expect([file('notes.txt'), file('gone.txt'), file('made/deep/x.txt')]).toEqual([
        'the user rewrote this\n',
        null,
        'mine\n',
      ]);
      await conversation(page).getByText('First done.').waitFor();

      // Keep mine for notes.txt, Overwrite for made/deep/x.txt: everything else is restored too.
      await clickAction(page, 'Undo this turn');
      await clickCentre(page, conflicts.getByRole('button', { name: 'Overwrite: made/deep/x.txt' }));
      expect(
        await conflicts.getByRole('button', { name: 'Overwrite: made/deep/x.txt' }).getAttribute('aria-pressed'),
      ).toBe('true');
      await e2e.screenshot('checkpoints-conflict-choices-1400');
      await clickCentre(page, undo.getByRole('button', { name: /^Restore \d+ files?, keep 1 of mine$/ }));
      await undo.waitFor({ state: 'detached' });
      await conversation(page).getByText('First done.').waitFor({ state: 'detached' });
      expect([file('notes.txt'), file('gone.txt'), file('later.txt'), existsSync(workspace.path('made'))]).toEqual([
        'the user rewrote this\n',
        FILES['gone.txt'],
        'later\n',
        false,
      ]);
      // The overwritten version is a checkpoint too: Redo brings it back; the kept file never moved.
      await clickCentre(page, redoBar.getByRole('button', { name: 'Redo' }));
      await redoBar.getByText(/^Put \d+ files back as they were before the restore\.$/).waitFor();
      expect([file('notes.txt'), file('gone.txt'), file('made/deep/x.txt')]).toEqual([
        'the user rewrote this\n',
        null,
        'mine\n',
      ]);
    },
  );

  it(
    'names the files an undo could not put back, with the reason, and restores the others',
    { timeout: 300_000 },
    async () => {
      e2e = await startE2e({
        files: { 'a.txt': 'alpha\n', 'x/y.txt': 'why\n' },
        approvalPolicy: 'never',
        viewport: { width: 1400, height: 900 },
      });
      const { page, workspace } = e2e;
      e2e.mock.enqueueMany([
        command('c1', "echo destroyed > a.txt && rm -r x && echo odd > 'weird\\name'"),
        answerTurn('Changed.'),
      ]);
      await sendMessage(page, 'Change things');
      await conversation(page).getByText('Changed.').waitFor();
      // Someone puts a FIFO (which checkpoints do not track) where the folder was.
      execFileSync('mkfifo', [workspace.path('x')]);

      await clickAction(page, 'Undo this turn');
      const undo = page.getByRole('dialog', { name: 'Undo this turn' });
      await undo.getByRole('region', { name: 'weird\\name is removed' }).waitFor();
      await undo.getByRole('region', { name: 'x/y.txt comes back' }).waitFor();
      await clickCentre(page, undo.getByRole('button', { name: 'Restore 3 files' }));
      await undo.waitFor({ state: 'detached' });
      await conversation(page).getByText('Changed.').waitFor({ state: 'detached' });

      const bar = page.getByRole('status', { name: 'Restore done' });
      const missing = bar.getByRole('group', { name: 'Not restored' });
      await missing.waitFor();
      expect(await missing.locator('li').allTextContents()).toEqual([
        'x — something that is not a folder is in the way',
        'x/y.txt — x is not a folder',
      ]);
      await e2e.screenshot('checkpoints-not-restored-1400');
      expect(readFileSync(workspace.path('a.txt'), 'utf8')).toBe('alpha\n');
      expect(existsSync(workspace.path('weird\\name'))).toBe(false);
    },
  );

  it(
    'forks into a worktree (a copy outside git) and shows the store size in Settings',
    { timeout: 300_000 },
    async () => {
      e2e = await startE2e({ files: FILES, approvalPolicy: 'never', viewport: { width: 900, height: 700 } });
      const { page, workspace, home } = e2e;
      await twoTurns(e2e);
      const parentUrl = page.url();

      await clickAction(page, 'Fork into worktree');
      await page.waitForURL((url) => url.toString() !== parentUrl);
      await conversation(page).getByText('First done.').waitFor();
      expect(await conversation(page).getByText('Second done.').count()).toBe(0);
      const copies = readdirSync(join(home.dir, 'worktrees'));
      expect(copies).toHaveLength(1);
      const copy = join(home.dir, 'worktrees', copies[0] ?? '');
      // The copy holds the project as it was after the first turn; the original keeps the second turn's file.
      expect(readdirSync(copy).sort()).toEqual(['made', 'notes.txt']);
      expect(readFileSync(join(copy, 'notes.txt'), 'utf8')).toBe('one\ntwo\nthree\nTWO\n');
      expect(readFileSync(workspace.path('later.txt'), 'utf8')).toBe('later\n');
      // The sidebar draws the fork under its parent and says where it lives.
      const threads = page.getByRole('navigation', { name: 'Threads' });
      const fork = threads.locator('.thread-row.is-fork.is-active');
      await fork
        .locator('.thread-where')
        .getByText(`copy ${copies[0] ?? ''}`)
        .waitFor();
      expect(await fork.locator('.thread-where').getAttribute('title')).toBe(copy);
      await e2e.screenshot('checkpoints-fork-900');

      // The fork's commands run in the copy and never touch the original.
      e2e.mock.enqueueMany([command('f1', 'echo forked > fork-only.txt'), answerTurn('Fork done.')]);
      await sendMessage(page, 'Work in the fork');
      await conversation(page).getByText('Fork done.').waitFor();
      expect(readFileSync(join(copy, 'fork-only.txt'), 'utf8')).toBe('forked\n');
      expect(existsSync(workspace.path('fork-only.txt'))).toBe(false);

      // After a reload the fork is still drawn under its parent, saying where it lives.
      await page.reload();
      await conversation(page).getByText('Fork done.').waitFor();
      const reloaded = threads.locator('.thread-row.is-fork');
      await reloaded
        .locator('.thread-where')
        .getByText(`copy ${copies[0] ?? ''}`)
        .waitFor();
      expect(await reloaded.count()).toBe(1);
      expect(await reloaded.locator('.thread-where').getAttribute('title')).toBe(copy);
      expect(await threads.locator('.thread-row').count()).toBe(2);
      await e2e.screenshot('checkpoints-fork-reloaded-900');

      // Compare with parent: the fork's new file and the parent's later one, side by side.
      const forkTitle = (await reloaded.locator('.thread-title').textContent()) ?? '';
      await clickCentre(page, threads.getByRole('button', { name: `Actions for ${forkTitle}` }));
      await clickCentre(page, page.getByRole('menuitem', { name: 'Compare with parent' }));
      const compare = page.getByRole('dialog', { name: 'Compare with parent' });
      await compare.getByRole('region', { name: 'fork-only.txt changed in the fork' }).waitFor();
      await compare.getByRole('region', { name: 'later.txt changed in the parent' }).waitFor();
      expect(await compare.locator('.restore-file').count()).toBe(2);
      await compare.locator('.monaco-diff--loading').first().waitFor({ state: 'detached' });
      await e2e.screenshot('checkpoints-fork-compare-900');
      await clickCentre(page, compare.getByRole('button', { name: 'Close' }));
      await compare.waitFor({ state: 'detached' });

      // Remove copy: asks, naming the work that is only there; the thread stays.
      await clickCentre(page, threads.getByRole('button', { name: `Actions for ${forkTitle}` }));
      await clickCentre(page, page.getByRole('menuitem', { name: 'Remove copy' }));
      const remove = page.getByRole('dialog', { name: 'Remove copy' });
      await remove.getByRole('alert').getByText('fork-only.txt').waitFor();
      await e2e.screenshot('checkpoints-fork-remove-900');
      expect(existsSync(copy)).toBe(true);
      await clickCentre(page, remove.getByRole('button', { name: 'Remove and lose 1 file' }));
      await remove.waitFor({ state: 'detached' });
      expect(existsSync(copy)).toBe(false);
      await reloaded.locator('.thread-where').getByText('folder removed').waitFor();
      expect(readFileSync(workspace.path('later.txt'), 'utf8')).toBe('later\n');

      await clickCentre(page, page.getByRole('button', { name: 'Settings', exact: true }));
      const settings = page.getByRole('dialog', { name: 'Settings' });
      const size = settings.getByLabel('Checkpoint store size');
      await wheelIntoView(page, size, settings.locator('.settings-body'));
      await expect.poll(async () => size.textContent()).toMatch(/^\d+(\.\d)? (B|KiB|MiB)$/);
      await e2e.screenshot('checkpoints-settings-900');
    },
  );
});
