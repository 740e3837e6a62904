// E2E: pinning a thread from its row's menu with the mouse puts it under "Pinned", above the other
// threads; the pin is kept (a reload lists it there again) until it is unpinned the same way.
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { saveThreads } from '../support/saved-threads';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { SCREENSHOT_SIZES, startE2e } from '../support/weft-serve';

const TOPICS = ['Oldest topic', 'Middle topic', 'Newest topic'];

/** The rows' titles of one list of the sidebar, top to bottom. */
const titles = (list: Locator): Promise<string[]> => list.locator('.thread-title').allTextContents();

/** Opens the menu of the thread titled `title` with the mouse and picks `item`. */
async function rowMenu(page: Page, title: string, item: string): Promise<void> {
  const threads = page.getByRole('navigation', { name: 'Threads' });
  const button = threads.getByRole('button', { name: `Actions for ${title}` });
  await wheelIntoView(page, button, threads);
  await clickCentre(page, button);
  await clickCentre(page, page.getByRole('menuitem', { name: item, exact: true }));
}

describe('pinned threads in the sidebar', () => {
  for (const size of SCREENSHOT_SIZES) {
    it(`pins a thread from its menu, keeps it under Pinned after a reload, and unpins it (${size.width}×${size.height})`, async () => {
      const e2e = await startE2e({
        viewport: size,
        beforeServe: async ({ home, cwd }) => {
          await saveThreads(home, cwd, TOPICS);
        },
      });
      const { page } = e2e;
      const threads = page.getByRole('navigation', { name: 'Threads' });
      const pinned = threads.getByRole('list', { name: 'Pinned threads' });
      const others = threads.locator('ul.thread-list:not([aria-label])');
      await threads.getByRole('button', { name: 'Oldest topic', exact: true }).waitFor();
      expect(await titles(others)).toEqual(['Newest topic', 'Middle topic', 'Oldest topic']);
      expect(await threads.getByText('Pinned', { exact: true }).count()).toBe(0);

      await rowMenu(page, 'Oldest topic', 'Pin');
      await pinned.getByRole('button', { name: 'Oldest topic', exact: true }).waitFor();
      expect(await titles(pinned)).toEqual(['Oldest topic']);
      expect(await titles(others)).toEqual(['Newest topic', 'Middle topic']);
      // Pinned comes first, under its heading.
      const heading = await threads.getByText('Pinned', { exact: true }).boundingBox();
      const first = await pinned.getByRole('button', { name: 'Oldest topic', exact: true }).boundingBox();
      const rest = await others.getByRole('button', { name: 'Newest topic', exact: true }).boundingBox();
      expect(heading !== null && first !== null && rest !== null).toBe(true);
      if (heading !== null && first !== null && rest !== null) {
        expect(heading.y).toBeLessThan(first.y);
        expect(first.y).toBeLessThan(rest.y);
      }
      await e2e.screenshot(`pinned-thread-${size.width}x${size.height}`);

      await page.reload();
      await pinned.getByRole('button', { name: 'Oldest topic', exact: true }).waitFor();
      expect(await titles(pinned)).toEqual(['Oldest topic']);
      expect(await titles(others)).toEqual(['Newest topic', 'Middle topic']);

      // Unpinned, it is one of the threads again (where the time it last changed puts it: the pin was one).
      await rowMenu(page, 'Oldest topic', 'Unpin');
      await pinned.waitFor({ state: 'detached' });
      expect((await titles(others)).sort()).toEqual([...TOPICS].sort());
      await page.reload();
      await threads.getByRole('button', { name: 'Oldest topic', exact: true }).waitFor();
      expect(await pinned.count()).toBe(0);
      expect((await titles(others)).sort()).toEqual([...TOPICS].sort());
    });
  }
});
