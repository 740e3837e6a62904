// E2E: the thread list of a project with more threads than one page: the wheel reaches every one of 250
// saved threads (pages load as the end of the list comes near), search finds the threads of a fork
// that lives in its own git worktree, and the open thread stays in sight when the window is made smaller.
import { execFileSync } from 'node:child_process';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { GIT_ENV } from '../support/git-repo';
import { clickCentre, wheelDownUntilAttached, wheelIntoView } from '../support/mouse';
import { saveThreads } from '../support/saved-threads';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e, type E2e } from '../support/weft-serve';

const THREADS = 250;

/** Where `row` is against the list that scrolls it: 'in' (wholly in sight), 'above' or 'below'. */
async function placeIn(list: Locator, row: Locator): Promise<'in' | 'above' | 'below'> {
  const nav = await list.elementHandle();
  if (nav === null) throw new Error('the thread list is gone');
  try {
    return await row.evaluate((element, view) => {
      const box = element.getBoundingClientRect();
      const bounds = view.getBoundingClientRect();
      if (box.top < bounds.top - 1) return 'above';
      if (box.bottom > bounds.bottom + 1) return 'below';
      return 'in';
    }, nav);
  } finally {
    await nav.dispose();
  }
}

/** The page at 1400×900 over a project of `count` saved threads ("Thread 0" the oldest), its newest listed. */
async function withSavedThreads(count: number): Promise<{ e2e: E2e; prompts: string[]; threads: Locator }> {
  const prompts = Array.from({ length: count }, (_, i) => `Thread ${i}`);
  const e2e = await startE2e({
    viewport: { width: 1400, height: 900 },
    beforeServe: async ({ home, cwd }) => {
      await saveThreads(home, cwd, prompts);
    },
  });
  const threads = e2e.page.getByRole('navigation', { name: 'Threads' });
  await threads.getByRole('button', { name: `Thread ${count - 1}`, exact: true }).waitFor();
  return { e2e, prompts, threads };
}

describe('thread list', () => {
  it('reaches all 250 threads with the wheel, a page at a time', { timeout: 180_000 }, async () => {
    const { e2e, prompts, threads } = await withSavedThreads(THREADS);
    const { page } = e2e;
    const rows = threads.locator('.thread-row');

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

  it('keeps the open thread in sight when the window is made smaller, unless it was scrolled away', async () => {
    const { e2e, threads } = await withSavedThreads(40);
    const { page } = e2e;
    // The lowest row wholly in sight at 1400×900: made smaller, the window would hide it.
    const rows = threads.locator('.thread-row');
    let lowest = -1;
    for (let i = 0; i < (await rows.count()); i++) if ((await placeIn(threads, rows.nth(i))) === 'in') lowest = i;
    expect(lowest).toBeGreaterThan(5);
    const name = `Thread ${39 - lowest}`;
    const row = threads.locator('.thread-row', { has: page.getByRole('button', { name, exact: true }) });
    await clickCentre(page, threads.getByRole('button', { name, exact: true }));
    await conversation(page).getByText(`Answer to ${name}.`, { exact: true }).waitFor();
    expect(await placeIn(threads, row)).toBe('in');

    await page.setViewportSize({ width: 900, height: 700 });
    await expect.poll(() => placeIn(threads, row)).toBe('in');
    await screenshotSizes(e2e, 'thread-list-open-in-sight');

    // Scrolled away by the wheel, it stays away when the window changes size again.
    const newest = threads.getByRole('button', { name: 'Thread 39', exact: true });
    await wheelIntoView(page, newest, threads);
    await expect.poll(() => placeIn(threads, row)).toBe('below');
    const top = await threads.evaluate((nav) => nav.scrollTop);
    const height = await threads.evaluate((nav) => nav.clientHeight);
    await page.setViewportSize({ width: 900, height: 600 });
    await expect.poll(() => threads.evaluate((nav) => nav.clientHeight)).toBeLessThan(height);
    // Two frames: the list's resize has been observed and answered.
    await page.evaluate(
      () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
    );
    expect(await threads.evaluate((nav) => nav.scrollTop)).toBe(top);
    expect(await placeIn(threads, row)).toBe('below');
  });
});
