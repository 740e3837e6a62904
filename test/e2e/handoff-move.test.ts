// E2E: a worktree thread handed off to the local checkout with Move ticked continues there — the Handoff
// dialog says so, and the thread's next command runs in the local checkout, not in its worktree. By mouse
// through `weft serve`; screenshots at 1400×900 and 900×700.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFolder } from '../support/git-repo';
import { clickCentre } from '../support/mouse';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { conversation, SCREENSHOT_SIZES, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';

const run = (id: string, cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd }), evCompleted()],
});

describe('Handoff with Move', () => {
  it('moves the thread to the local checkout with its work', { timeout: 180_000 }, async () => {
    const e2e = await startE2e({
      files: { 'notes.txt': 'notes\n' },
      approvalPolicy: 'never',
      viewport: SCREENSHOT_SIZES[0],
      beforeServe: async ({ cwd }) => {
        commitFolder(cwd);
      },
    });
    try {
      const { page, workspace, mock } = e2e;
      await clickCentre(page, page.getByRole('button', { name: 'New thread', exact: true }));
      await clickCentre(page, page.getByRole('radio', { name: 'Worktree' }));
      mock.enqueueMany([run('c1', 'echo made > made.txt'), answerTurn('Made it.')]);
      await sendMessage(page, 'Make made.txt');
      await conversation(page).getByText('Made it.', { exact: true }).waitFor();
      const worktree = (await page.locator('.main-header .badge-worktree').getAttribute('title'))?.replace(
        'Works in the worktree ',
        '',
      );
      expect(worktree !== undefined && existsSync(join(worktree, 'made.txt'))).toBe(true);

      await clickCentre(page, page.locator('.main-header').getByRole('button', { name: 'Handoff' }));
      const handoff = page.getByRole('dialog', { name: 'Handoff' });
      await handoff.getByRole('region', { name: 'made.txt: is added' }).waitFor();
      await clickCentre(page, handoff.getByRole('checkbox', { name: /^Move: / }));
      await clickCentre(page, handoff.getByRole('button', { name: 'Hand off 1 file' }));
      await handoff
        .getByRole('status')
        .getByText(`Handed off: 1 file written, 1 taken out of the source, the thread continues in ${workspace.dir}.`)
        .waitFor();
      await screenshotSizes(e2e, 'handoff-move-done');
      await clickCentre(page, handoff.getByRole('button', { name: 'Close', exact: true }).last());
      await handoff.waitFor({ state: 'detached' });
      expect(readFileSync(workspace.path('made.txt'), 'utf8')).toBe('made\n');
      expect(existsSync(join(worktree ?? '', 'made.txt'))).toBe(false);

      // The next turn works in the local checkout.
      mock.enqueueMany([run('c2', 'pwd > where.txt'), answerTurn('Here.')]);
      await sendMessage(page, 'Where are you?');
      await conversation(page).getByText('Here.', { exact: true }).waitFor();
      expect(readFileSync(workspace.path('where.txt'), 'utf8')).toBe(`${workspace.dir}\n`);
      expect(existsSync(join(worktree ?? '', 'where.txt'))).toBe(false);
      expect(await page.locator('.main-header .badge-worktree').getAttribute('title')).toBe(
        `Handed off: works in ${workspace.dir} now; its worktree is ${worktree ?? ''}`,
      );
      await screenshotSizes(e2e, 'handoff-move-next-turn');
    } finally {
      await e2e.close();
    }
  });
});
