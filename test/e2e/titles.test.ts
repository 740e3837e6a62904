// E2E: thread titles are plain text of a bounded length, a fork's title says it is a fork, unarchiving
// puts a thread back where it was (and open to new messages), and the open thread is scrolled into view in
// the sidebar.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { answerTurn } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

const LONG =
  '# Fix the **login** bug in `auth.ts` and then keep going with many more words than any sidebar title should ever hold';

let e2e: E2e | undefined;

/** The titles of the live threads as the sidebar lists them, top to bottom. */
function titles(page: Page): Promise<string[]> {
  return page
    .getByRole('navigation', { name: 'Threads' })
    .locator('.thread-list:not([aria-label]) .thread-title')
    .allInnerTexts();
}

/** Whether the pointer at the centre of `selector`'s element would hit it (it is in sight, not covered). */
function inSight(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).evaluate((element) => {
    const box = element.getBoundingClientRect();
    const at = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return at !== null && (at === element || element.contains(at));
  });
}

describe('thread titles and the thread list', () => {
  it(
    'shows plain, bounded titles, marks forks, keeps the order on unarchive and scrolls to the open thread',
    { timeout: 300_000 },
    async () => {
      e2e = await startE2e({ viewport: { width: 900, height: 700 } });
      const { page, mock } = e2e;
      const threads = page.getByRole('navigation', { name: 'Threads' });
      mock.enqueueMany([answerTurn('Alpha reply.'), answerTurn('Login reply.'), answerTurn('Charlie reply.')]);
      await sendMessage(page, 'Alpha thread');
      await conversation(page).getByText('Alpha reply.').waitFor();
      const alphaId = new URL(page.url()).searchParams.get('thread');
      expect(alphaId).not.toBeNull();
      for (const [prompt, reply] of [
        [LONG, 'Login reply.'],
        ['Charlie thread', 'Charlie reply.'],
      ] as const) {
        await clickCentre(page, page.getByRole('button', { name: 'New thread' }));
        await sendMessage(page, prompt);
        await conversation(page).getByText(reply).waitFor();
      }

      // Markdown is gone and the title is cut with an ellipsis, in the list and the header alike.
      const listed = await titles(page);
      expect(listed).toHaveLength(3);
      const long = listed[1] ?? '';
      expect(long.startsWith('Fix the login bug in auth.ts and then keep going')).toBe(true);
      expect(long.endsWith('…')).toBe(true);
      expect(long.length).toBeLessThanOrEqual(80);
      expect(long).not.toMatch(/[#*`]/);
      expect(listed).toEqual(['Charlie thread', long, 'Alpha thread']);
      await clickCentre(page, threads.getByRole('button', { name: long, exact: true }));
      await page.getByRole('heading', { level: 1, name: long }).waitFor();

      // Archived and unarchived, the thread comes back to its place.
      await clickCentre(page, threads.getByRole('button', { name: `Actions for ${long}` }));
      await clickCentre(page, page.getByRole('menuitem', { name: 'Archive' }));
      await page.getByText('This thread is archived.').waitFor();
      expect(await titles(page)).toEqual(['Charlie thread', 'Alpha thread']);
      await clickCentre(page, page.getByRole('button', { name: 'Unarchive' }));
      await page.getByText('This thread is archived.').waitFor({ state: 'detached' });
      expect(await titles(page)).toEqual(['Charlie thread', long, 'Alpha thread']);
      // The unarchived thread is open again: a message sent now runs a turn in it.
      mock.enqueue(answerTurn('Back from the archive.'));
      await sendMessage(page, 'Still with me?');
      await conversation(page).getByText('Back from the archive.').waitFor();

      // Forks say that they are forks.
      for (let n = 0; n < 12; n++) {
        await clickCentre(page, threads.getByRole('button', { name: 'Actions for Charlie thread', exact: true }));
        await clickCentre(page, page.getByRole('menuitem', { name: 'Fork' }));
        await threads.locator('.thread-row.is-fork').nth(n).waitFor();
      }
      await page.getByRole('heading', { level: 1, name: 'Charlie thread (fork)' }).waitFor();
      expect(await threads.getByRole('button', { name: 'Charlie thread (fork)', exact: true }).count()).toBe(12);

      // Opened by its address, the oldest thread (at the bottom of a list taller than the window) is in sight.
      const address = new URL(page.url());
      address.searchParams.set('thread', alphaId ?? '');
      await page.goto(address.toString());
      await conversation(page).getByText('Alpha reply.').waitFor();
      const active = '.thread-row.is-active';
      await page.locator(active).waitFor();
      await page
        .waitForFunction(
          () => {
            const row = document.querySelector('.thread-row.is-active');
            if (row === null) return false;
            const box = row.getBoundingClientRect();
            const at = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
            return at !== null && row.contains(at);
          },
          undefined,
          { timeout: 10_000 },
        )
        .catch(() => undefined);
      expect(await inSight(page, active)).toBe(true);
      expect(await page.locator(active).innerText()).toContain('Alpha thread');
      await screenshotSizes(e2e, 'titles-active-in-sight');
      // The fork's rows are there above it, reached with the wheel.
      await wheelIntoView(page, threads.getByRole('button', { name: 'Charlie thread', exact: true }), threads);
    },
  );
});
