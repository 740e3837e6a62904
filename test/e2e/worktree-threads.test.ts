// E2E: a Worktree thread started from the UI, by mouse, at 1400×900 and at 900×700 (one thread each): New
// thread → Worktree (with "Carry my uncommitted changes" at the second size), the trusted project's setup
// script shown first, then a message whose scripted command writes a file; the file is in the thread's
// worktree and not in the project, the header shows
// the branch and the sidebar row marks the thread as a worktree thread (after a reload too). Screenshots
// at both sizes.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFolder, git } from '../support/git-repo';
import { clickCentre } from '../support/mouse';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { conversation, SCREENSHOT_SIZES, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';

const WEFT = resolve(__dirname, '../../bin/weft.js');

const command = (id: string, cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd }), evCompleted()],
});

describe('worktree threads in the UI', () => {
  it('starts a Worktree thread from New thread by mouse at both sizes; its command writes in the worktree only', async () => {
    const e2e = await startE2e({
      files: {
        'notes.txt': 'committed\n',
        'README.md': '# Demo\n',
        '.weft/config.toml': '[worktree]\nsetup = "echo preparing the worktree"\n',
      },
      approvalPolicy: 'never',
      viewport: SCREENSHOT_SIZES[0],
      // A git project whose setup script the user trusted.
      beforeServe: async ({ home, cwd }) => {
        commitFolder(cwd);
        execFileSync(process.execPath, [WEFT, 'config', 'trust', cwd], {
          cwd,
          env: { ...process.env, WEFT_HOME: home },
        });
      },
    });
    const { page, workspace, mock } = e2e;
    // Uncommitted work in the project: carried only when asked.
    writeFileSync(workspace.path('notes.txt'), 'changed, not committed\n');
    writeFileSync(workspace.path('draft.txt'), 'untracked\n');
    const threads = page.getByRole('navigation', { name: 'Threads' });

    for (const [n, size] of SCREENSHOT_SIZES.entries()) {
      await page.setViewportSize(size);
      const carry = n === 1;
      await clickCentre(page, page.getByRole('button', { name: 'New thread', exact: true }));
      await clickCentre(page, page.getByRole('radio', { name: 'Worktree' }));
      const box = page.getByRole('checkbox', { name: 'Carry my uncommitted changes' });
      if ((await box.isChecked()) !== carry) await clickCentre(page, box);
      await page.getByText('New worktree thread in').waitFor();
      await e2e.screenshot(`worktree-new-thread-${size.width}x${size.height}`);

      const file = `from-thread-${n + 1}.txt`;
      mock.enqueueMany([command(`c${n}`, `echo written here > ${file}`), answerTurn(`Thread ${n + 1} done.`)]);
      const before = page.url();
      await sendMessage(page, `Write ${file}`);
      await page.waitForURL((url) => url.toString() !== before);
      await conversation(page)
        .getByText(`Thread ${n + 1} done.`)
        .waitFor();
      // The project's setup script ran first, shown as a command marked as the worktree's setup.
      const setup = conversation(page).locator('.cell-command', { hasText: 'worktree setup' });
      await setup.getByText('echo preparing the worktree').waitFor();

      // The header names the branch; its title says where the worktree is.
      const badge = page.locator('.main-header .badge-worktree');
      const branch = (await badge.getByText(/^weft\/[0-9a-f]{6}$/).textContent()) ?? '';
      const where = ((await badge.getAttribute('title')) ?? '').replace('Works in the worktree ', '');
      expect(where.startsWith(join(e2e.home.dir, 'worktrees'))).toBe(true);
      expect(git(where, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(branch);
      // The sidebar row of the thread is marked with the worktree's branch.
      const row = threads.locator('.thread-row.is-active');
      await row.locator('.thread-worktree').getByText(branch).waitFor();

      expect(readFileSync(join(where, file), 'utf8')).toBe('written here\n');
      expect(existsSync(workspace.path(file))).toBe(false);
      // The uncommitted changes came along only when the box was ticked; the project kept them either way.
      expect(readFileSync(join(where, 'notes.txt'), 'utf8')).toBe(carry ? 'changed, not committed\n' : 'committed\n');
      expect(existsSync(join(where, 'draft.txt'))).toBe(carry);
      expect(readFileSync(workspace.path('notes.txt'), 'utf8')).toBe('changed, not committed\n');
      await e2e.screenshot(`worktree-thread-${size.width}x${size.height}`);
    }
    // Both threads are listed with the project, each marked, after a reload too (listed by the server).
    expect(await threads.locator('.thread-worktree').count()).toBe(2);
    await page.reload();
    await threads.locator('.thread-worktree').nth(1).waitFor();
    expect(await threads.locator('.thread-worktree').count()).toBe(2);
    await page.locator('.main-header .badge-worktree').waitFor();
    await screenshotSizes(e2e, 'worktree-threads-listed');
  });
});
