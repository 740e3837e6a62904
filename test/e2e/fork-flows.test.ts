// E2E: a fork into a git worktree, then its two ways home: "Bring changes back" (the fork's work handed
// off to the parent's project in the Handoff dialog, a file left out) and "Open in worktree" (the
// fork's folder becomes the project, with the fork's thread open); by mouse through `weft serve`, with
// screenshots at 1400×900 and 900×700.
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { git } from '../support/git-repo';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

const command = (id: string, cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd }), evCompleted()],
});

const LINES = Array.from({ length: 14 }, (_, i) => `line ${i + 1}`);
const FILES = { 'notes.txt': LINES.join('\n') + '\n', 'README.md': '# Demo\n' };

let e2e: E2e | undefined;

async function clickAction(page: Page, name: string): Promise<void> {
  const button = conversation(page).getByRole('button', { name }).first();
  await wheelIntoView(page, button, conversation(page));
  await clickCentre(page, button);
}

/** Opens the actions menu of the fork's row in the sidebar and picks `item`. */
async function forkMenu(page: Page, item: string): Promise<void> {
  const threads = page.getByRole('navigation', { name: 'Threads' });
  const title = (await threads.locator('.thread-row.is-fork .thread-title').textContent()) ?? '';
  await clickCentre(page, threads.getByRole('button', { name: `Actions for ${title}` }));
  await clickCentre(page, page.getByRole('menuitem', { name: item }));
}

describe('fork flows in the UI', () => {
  it(
    'brings a worktree fork’s changes back through the Handoff dialog, then opens the worktree',
    { timeout: 300_000 },
    async () => {
      e2e = await startE2e({ files: FILES, approvalPolicy: 'never', viewport: { width: 1400, height: 900 } });
      const { page, workspace, mock } = e2e;
      git(workspace.dir, 'init', '-q', '--initial-branch=main');
      git(workspace.dir, 'add', '.');
      git(workspace.dir, 'commit', '-qm', 'initial');
      const file = (path: string): string | null =>
        existsSync(workspace.path(path)) ? readFileSync(workspace.path(path), 'utf8') : null;

      mock.enqueueMany([
        command('c1', 'echo base > base.txt'),
        answerTurn('First done.'),
        command('c2', 'echo later > later.txt'),
        answerTurn('Second done.'),
      ]);
      await sendMessage(page, 'Start');
      await conversation(page).getByText('First done.').waitFor();
      await sendMessage(page, 'Go on');
      await conversation(page).getByText('Second done.').waitFor();
      const parentUrl = page.url();

      await clickAction(page, 'Fork into worktree');
      await page.waitForURL((url) => url.toString() !== parentUrl);
      await conversation(page).getByText('First done.').waitFor();
      const forkThreadId = new URL(page.url()).searchParams.get('thread');
      expect(forkThreadId).not.toBeNull();
      const threads = page.getByRole('navigation', { name: 'Threads' });
      const forkRow = threads.locator('.thread-row.is-fork');
      await forkRow
        .locator('.thread-where')
        .getByText(/^on weft\/[0-9a-f]{8}$/)
        .waitFor();
      const worktree = (await forkRow.locator('.thread-where').getAttribute('title')) ?? '';
      expect(git(worktree, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toMatch(/^weft\/[0-9a-f]{8}$/);

      // The fork edits both ends of notes.txt (two hunks) and adds a file; the original is untouched.
      mock.enqueueMany([
        command(
          'f1',
          "sed -i -e 's/^line 2$/LINE TWO/' -e 's/^line 13$/LINE THIRTEEN/' notes.txt && echo forked > fork-only.txt",
        ),
        answerTurn('Fork done.'),
      ]);
      await sendMessage(page, 'Work in the fork');
      await conversation(page).getByText('Fork done.').waitFor();
      expect(file('notes.txt')).toBe(FILES['notes.txt']);
      expect(file('fork-only.txt')).toBeNull();

      // Bring changes back: a worktree fork of a thread of the project's own folder hands its work off to
      // the local checkout, in the Handoff dialog: every file it changed against the project's file now.
      await forkMenu(page, 'Bring changes back');
      const dialog = page.getByRole('dialog', { name: 'Handoff' });
      await dialog.getByRole('button', { name: 'To local', pressed: true }).waitFor();
      await dialog.getByRole('region', { name: 'notes.txt: changes' }).waitFor();
      await dialog.getByRole('region', { name: 'fork-only.txt: is added' }).waitFor();
      expect(await dialog.locator('.review-file').count()).toBe(2);
      // What the parent had when the fork was made is there already.
      await dialog.getByText('Already the same in your local checkout: base.txt').waitFor();
      await dialog.locator('.line-insert').first().waitFor({ state: 'attached' });
      await dialog.getByRole('button', { name: 'Hand off 2 files' }).waitFor();
      await screenshotSizes(e2e, 'fork-bring-back-review');

      // Leave fork-only.txt out: the handoff writes notes.txt only, in the parent's folder only.
      await clickCentre(
        page,
        dialog.getByRole('region', { name: 'fork-only.txt: is added' }).getByRole('checkbox', { name: 'Leave out' }),
      );
      await screenshotSizes(e2e, 'fork-bring-back-declined');
      await clickCentre(page, dialog.getByRole('button', { name: 'Hand off 1 file' }));
      await dialog.getByRole('status').getByText('Handed off: 1 file written, 1 left as they were.').waitFor();
      expect(file('notes.txt')).toBe(
        LINES.map((l) => (l === 'line 2' ? 'LINE TWO' : l === 'line 13' ? 'LINE THIRTEEN' : l)).join('\n') + '\n',
      );
      expect(file('fork-only.txt')).toBeNull();
      expect(file('later.txt')).toBe('later\n');
      expect(readFileSync(`${worktree}/notes.txt`, 'utf8')).toContain('LINE THIRTEEN');

      // The dialog then shows what is left to bring back: the file left out.
      await dialog.getByRole('button', { name: 'Hand off 1 file' }).waitFor();
      expect(await dialog.locator('.review-file').count()).toBe(1);
      await dialog.getByRole('region', { name: 'fork-only.txt: is added' }).waitFor();
      await screenshotSizes(e2e, 'fork-bring-back-done');
      await clickCentre(page, dialog.getByRole('button', { name: 'Close', exact: true }).last());
      await dialog.waitFor({ state: 'detached' });
      expect(file('fork-only.txt')).toBeNull();

      // Open in worktree: the worktree becomes the project, with the fork's thread open in it.
      await forkMenu(page, 'Open in worktree');
      const project = page.locator('.project');
      await expect.poll(async () => project.getAttribute('title')).toBe(worktree);
      await project.locator('.project-name').getByText(basename(worktree), { exact: true }).waitFor();
      await conversation(page).getByText('Fork done.').waitFor();
      await expect.poll(() => new URL(page.url()).searchParams.get('cwd')).toBe(worktree);
      await expect.poll(() => new URL(page.url()).searchParams.get('thread')).toBe(forkThreadId);
      // The worktree's list comes after the thread is shown: its one active row, once listed.
      await expect.poll(() => threads.locator('.thread-row.is-active').count()).toBe(1);
      // A new message runs in the worktree.
      mock.enqueueMany([command('w1', 'echo here > in-worktree.txt'), answerTurn('Worktree done.')]);
      await sendMessage(page, 'Once more');
      await conversation(page).getByText('Worktree done.').waitFor();
      expect(readFileSync(`${worktree}/in-worktree.txt`, 'utf8')).toBe('here\n');
      expect(file('in-worktree.txt')).toBeNull();
      await screenshotSizes(e2e, 'fork-open-in-worktree');
    },
  );
});
