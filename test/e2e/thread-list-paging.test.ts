// E2E: the thread list of a project with more threads than one page: the wheel reaches every one of 250
// saved threads (pages load as the end of the list comes near), and search finds the threads of a fork
// that lives in its own git worktree.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { GIT_ENV } from '../support/git-repo';
import { clickCentre, wheelDownUntilAttached, wheelIntoView } from '../support/mouse';
import { saveThreads } from '../support/saved-threads';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';

const THREADS = 250;

describe('thread list', () => {
  it('reaches all 250 threads with the wheel, a page at a time', { timeout: 180_000 }, async () => {
    const prompts = Array.from({ length: THREADS }, (_, i) => `Thread ${i}`);
    const e2e = await startE2e({
      viewport: { width: 1400, height: 900 },
      beforeServe: async ({ home, cwd }) => {
        await saveThreads(home, cwd, prompts);
      },
    });
    const { page } = e2e;
    const threads = page.getByRole('navigation', { name: 'Threads' });
    const rows = threads.locator('.thread-row');
    await threads.getByRole('button', { name: `Thread ${THREADS - 1}`, exact: true }).waitFor();

    // The oldest thread is the last row of the last page.
    const oldest = threads.getByRole('button', { name: 'Thread 0', exact: true });
    await wheelDownUntilAttached(page, oldest, threads);
    await wheelIntoView(page, oldest, threads);
    const names = await threads.locator('.thread-row .thread-title').allTextContents();
    expect(names).toEqual([...prompts].reverse());
    expect(await rows.count()).toBe(THREADS);
    expect(await threads.getByText('Loading more threads…').count()).toBe(0);
    await clickCentre(page, oldest);
    await conversation(page).getByText('Answer to Thread 0.', { exact: true }).waitFor();
    await screenshotSizes(e2e, 'thread-list-end');
  });

  it('finds the thread of a fork in its own worktree by search', { timeout: 120_000 }, async () => {
    const e2e = await startE2e({
      files: { 'README.md': '# Demo\n' },
      approvalPolicy: 'never',
      viewport: { width: 1400, height: 900 },
    });
    const { page, workspace, mock } = e2e;
    const git = (...args: string[]): string =>
      execFileSync('git', args, { cwd: workspace.dir, encoding: 'utf8', env: { ...process.env, ...GIT_ENV } });
    git('init', '-q', '--initial-branch=main');
    git('add', '.');
    git('commit', '-qm', 'initial');
    mock.enqueueMany([
      {
        kind: 'sse',
        events: [evCreated(), evFunctionCall('c1', 'exec_command', { cmd: 'echo a > a.txt' }), evCompleted()],
      },
      answerTurn('Apples are red.'),
      answerTurn('Kiwis are green.'),
    ]);
    await sendMessage(page, 'Tell me about apples');
    await conversation(page).getByText('Apples are red.').waitFor();
    const parentUrl = page.url();
    const forkButton = conversation(page).getByRole('button', { name: 'Fork into worktree' }).first();
    await wheelIntoView(page, forkButton, conversation(page));
    await clickCentre(page, forkButton);
    await page.waitForURL((url) => url.toString() !== parentUrl);
    const threads = page.getByRole('navigation', { name: 'Threads' });
    await threads
      .locator('.thread-row.is-fork .thread-where')
      .getByText(/^on weft\//)
      .waitFor();
    // The fork's own turn, in its worktree: only the fork holds these words.
    await sendMessage(page, 'Tell me about kiwis');
    await conversation(page).getByText('Kiwis are green.').waitFor();

    const search = page.getByRole('searchbox', { name: 'Search threads' });
    await clickCentre(page, search);
    await search.pressSequentially('kiwis');
    await threads.getByText('Results for “kiwis”').waitFor();
    const found = threads.getByRole('button', { name: 'Tell me about apples (fork)', exact: true });
    await found.waitFor();
    expect(await threads.locator('.thread-row').count()).toBe(1);
    await screenshotSizes(e2e, 'search-finds-fork');
  });
});
