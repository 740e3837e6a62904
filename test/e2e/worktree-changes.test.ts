// E2E: the Changes panel and the terminal of a worktree thread work in the thread's worktree, not in the
// project's folder: the panel names the thread's branch and lists what the agent changed there (not the
// project's own uncommitted file), and a new terminal starts in the worktree. Back on a Local thread, both
// are the project's again. By mouse, at 1400×900 and 900×700.
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commitFolder, git } from '../support/git-repo';
import { clickCentre } from '../support/mouse';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { conversation, SCREENSHOT_SIZES, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';

const command = (id: string, cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd }), evCompleted()],
});

describe('a worktree thread’s Changes panel and terminal', () => {
  it('show the worktree: its branch, its changes, a shell started there', { timeout: 240_000 }, async () => {
    const e2e = await startE2e({
      files: { 'notes.txt': 'committed\n' },
      approvalPolicy: 'never',
      viewport: SCREENSHOT_SIZES[0],
      beforeServe: async ({ cwd }) => {
        commitFolder(cwd);
      },
    });
    const { page, workspace, mock } = e2e;
    writeFileSync(workspace.path('local-only.txt'), 'in the project only\n');

    await clickCentre(page, page.getByRole('button', { name: 'New thread', exact: true }));
    await clickCentre(page, page.getByRole('radio', { name: 'Worktree' }));
    mock.enqueueMany([
      command('c1', 'echo made in the worktree > made.txt && echo edited >> notes.txt'),
      answerTurn('Done in the worktree.'),
    ]);
    const before = page.url();
    await sendMessage(page, 'Make a file');
    await page.waitForURL((url) => url.toString() !== before);
    await conversation(page).getByText('Done in the worktree.').waitFor();
    const badge = page.locator('.main-header .badge-worktree');
    const branch = (await badge.getByText(/^weft\/[0-9a-f]{6}$/).textContent()) ?? '';
    const where = ((await badge.getAttribute('title')) ?? '').replace('Works in the worktree ', '');

    await clickCentre(page, page.getByRole('button', { name: 'Changes', exact: true }));
    const panel = page.getByRole('region', { name: 'Changes' });
    await panel.getByRole('button', { name: `Branch ${branch}` }).waitFor();
    await panel
      .getByRole('region', { name: 'Untracked', exact: true })
      .getByRole('button', { name: 'Show diff of made.txt' })
      .waitFor();
    await panel
      .getByRole('region', { name: 'Unstaged', exact: true })
      .getByRole('button', { name: 'Show diff of notes.txt' })
      .waitFor();
    expect(await panel.getByText('local-only.txt').count()).toBe(0);
    await screenshotSizes(e2e, 'worktree-changes-panel');

    // A terminal opened now starts in the worktree.
    await clickCentre(page, panel.getByRole('button', { name: 'Close changes' }));
    await clickCentre(page, page.getByRole('button', { name: 'Terminal', exact: true }));
    const terminal = page.getByRole('region', { name: 'Terminal' });
    const screen = terminal.locator('[data-terminal]:not([hidden]) .xterm-rows');
    await screen.waitFor();
    await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toMatch(/\S/);
    await page.keyboard.type('pwd');
    await page.keyboard.press('Enter');
    await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toContain(where);
    await e2e.screenshot('worktree-terminal-1400x900');

    // A Local thread's panel is the project's again.
    await page.setViewportSize(SCREENSHOT_SIZES[1]);
    await clickCentre(page, page.getByRole('button', { name: 'Hide terminal' }));
    await clickCentre(page, page.getByRole('button', { name: 'New thread', exact: true }));
    await clickCentre(page, page.getByRole('radio', { name: 'Local' }));
    mock.enqueueMany([answerTurn('Local reply.')]);
    await sendMessage(page, 'Hello');
    await conversation(page).getByText('Local reply.').waitFor();
    await clickCentre(page, page.getByRole('button', { name: 'Changes', exact: true }));
    await panel.getByRole('button', { name: 'Branch main' }).waitFor();
    await panel
      .getByRole('region', { name: 'Untracked', exact: true })
      .getByRole('button', { name: 'Show diff of local-only.txt' })
      .waitFor();
    expect(await panel.getByText('made.txt').count()).toBe(0);
    expect(git(where, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(branch);
    await e2e.screenshot('local-changes-panel-900x700');
  });
});
