// E2E: the commit box of the Changes panel: "Amend last commit" fills in the last commit's message (and
// takes it away again when unticked, if it was not edited), and a commit says what it made: the short
// hash, the branch and the subject. By mouse and keyboard through `weft serve`, at 1400×900 and 900×700.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { GIT_ENV } from '../support/git-repo';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { SCREENSHOT_SIZES, startE2e } from '../support/weft-serve';

const run = promisify(execFile);

async function git(dir: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV } })).stdout;
}

describe('the commit box', () => {
  for (const size of SCREENSHOT_SIZES) {
    it(`prefills an amend and confirms a commit (${size.width}×${size.height})`, { timeout: 180_000 }, async () => {
      const e2e = await startE2e({ files: { 'a.txt': 'alpha\n' }, viewport: size });
      const { page, workspace } = e2e;
      await git(workspace.dir, 'init', '--quiet', '--initial-branch=main');
      await git(workspace.dir, 'config', 'user.name', GIT_ENV.GIT_AUTHOR_NAME);
      await git(workspace.dir, 'config', 'user.email', GIT_ENV.GIT_AUTHOR_EMAIL);
      await git(workspace.dir, 'add', '--all');
      await git(workspace.dir, 'commit', '--quiet', '-m', 'Initial import\n\nWith a body line.');
      await writeFile(workspace.path('a.txt'), 'alpha changed\n');

      await clickCentre(page, page.getByRole('button', { name: 'Changes', exact: true }));
      const panel = page.getByRole('region', { name: 'Changes' });
      const body = panel.locator('.changes-body');
      const unstaged = panel.getByRole('region', { name: 'Unstaged', exact: true });
      await clickCentre(page, unstaged.getByRole('button', { name: 'Stage a.txt' }));
      await panel.getByRole('region', { name: 'Staged', exact: true }).waitFor();

      // Amend: the last commit's whole message is there to edit; unticked, the box is empty again.
      const message = panel.getByRole('textbox', { name: 'Commit message' });
      const amend = panel.getByRole('checkbox', { name: 'Amend last commit' });
      await wheelIntoView(page, amend, body);
      await clickCentre(page, amend);
      await expect.poll(() => message.inputValue()).toBe('Initial import\n\nWith a body line.');
      await e2e.screenshot(`commit-box-amend-${size.width}x${size.height}`);
      await clickCentre(page, amend);
      await expect.poll(() => message.inputValue()).toBe('');

      // A commit says what it made.
      await clickCentre(page, message);
      await page.keyboard.type('Change alpha');
      await clickCentre(page, panel.getByRole('button', { name: 'Commit', exact: true }));
      const done = panel.getByRole('status').filter({ hasText: 'Committed' });
      await done.waitFor();
      const sha = (await git(workspace.dir, 'rev-parse', '--short', 'HEAD')).trim();
      expect(await done.textContent()).toBe(`Committed ${sha} on main: Change alpha`);
      await e2e.screenshot(`commit-box-committed-${size.width}x${size.height}`);

      // Amending it: the message to edit is this commit's; the confirmation says it was amended.
      await writeFile(workspace.path('b.txt'), 'beta\n');
      await clickCentre(page, panel.getByRole('button', { name: 'Refresh changes' }));
      await clickCentre(
        page,
        panel.getByRole('region', { name: 'Untracked', exact: true }).getByRole('button', { name: 'Stage b.txt' }),
      );
      await panel.getByRole('region', { name: 'Staged', exact: true }).waitFor();
      await wheelIntoView(page, amend, body);
      await clickCentre(page, amend);
      await expect.poll(() => message.inputValue()).toBe('Change alpha');
      await clickCentre(page, message);
      await page.keyboard.press('End');
      await page.keyboard.type(' and add beta');
      await clickCentre(page, panel.getByRole('button', { name: 'Commit', exact: true }));
      const amended = panel.getByRole('status').filter({ hasText: 'Amended' });
      await amended.waitFor();
      const after = (await git(workspace.dir, 'rev-parse', '--short', 'HEAD')).trim();
      expect(await amended.textContent()).toBe(`Amended ${after} on main: Change alpha and add beta`);
      expect(await git(workspace.dir, 'log', '--format=%s')).toBe('Change alpha and add beta\nInitial import\n');
    });
  }
});
