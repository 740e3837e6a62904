// E2E: the browser panel of `weft serve`: the thread's latest screenshot and the page's address, opened from
// the header's "Browser" button (there only while the thread has browser actions) or an action's "Show in
// panel" (by keyboard too); a tall screenshot scrolls with the wheel; Esc and × close it.
import { describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { clickCentre } from '../support/mouse';
import { evCompleted, evCreated, evNamespacedCall, answerTurn } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';

const PAGE = `<!doctype html><title>Tall app</title>
<style>body { font: 24px sans-serif; margin: 40px; background: linear-gradient(#f3f6ff, #ffe9d6); }</style>
<h1>Tall app</h1><div style="height: 2400px"></div><p>The bottom of the page</p>`;

describe('the browser panel', () => {
  it('shows the latest screenshot and address, from the header or an action', { timeout: 300_000 }, async () => {
    const e2e = await startE2e({
      viewport: { width: 1400, height: 900 },
      approvalPolicy: 'never',
      files: { 'index.html': PAGE },
    });
    const { page, mock } = e2e;
    const header = page.locator('.main-header');
    const browserButton = header.getByRole('button', { name: 'Browser' });
    expect(await browserButton.count()).toBe(0);

    const url = `file://${e2e.workspace.path('index.html')}`;
    mock.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          evNamespacedCall('b1', 'browser', 'open', { url }),
          evNamespacedCall('b2', 'browser', 'screenshot', { full_page: true }),
          evCompleted(),
        ],
      },
      answerTurn('The page is tall.'),
    ]);
    await sendMessage(page, 'Look at the tall page');
    await conversation(page).getByText('The page is tall.').waitFor();

    await browserButton.waitFor();
    await clickCentre(page, browserButton);
    const panel = page.getByRole('region', { name: 'Browser' });
    await panel.waitFor();
    expect(await browserButton.getAttribute('aria-pressed')).toBe('true');
    expect(await panel.getByTestId('browser-panel-url').innerText()).toBe(url);
    const shot = panel.getByRole('img', { name: /^Latest screenshot of file:.*index\.html, \d+×\d+ px$/ });
    await shot.waitFor();
    const size = await shot.evaluate((el: HTMLImageElement) => ({ w: el.naturalWidth, h: el.naturalHeight }));
    expect(size.h).toBeGreaterThan(size.w);
    // The close button has the focus: the panel is reachable without the mouse.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Close browser panel');
    await screenshotSizes(e2e, 'browser-panel');

    // The tall screenshot scrolls with the wheel, to its bottom (at each size).
    const body = panel.locator('.browser-panel-body');
    const atBottom = () => body.evaluate((el) => el.scrollTop + el.clientHeight >= el.scrollHeight - 1);
    const wheelToBottom = async (): Promise<void> => {
      await page.mouse.move(...(await centreOf(body)));
      for (let turn = 0; turn < 40 && !(await atBottom()); turn++) await page.mouse.wheel(0, 400);
      await expect.poll(atBottom).toBe(true);
    };
    await wheelToBottom();
    expect(await body.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
    await screenshotSizes(e2e, 'browser-panel-scrolled', wheelToBottom);

    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });

    // From the action, by keyboard: focus its "Show in panel" and press Enter; × closes.
    const show = conversation(page).locator('.browser-cell').nth(1).getByRole('button', { name: 'Show in panel' });
    await show.focus();
    await page.keyboard.press('Enter');
    await panel.waitFor();
    await page.keyboard.press('Enter'); // the focused close button
    await panel.waitFor({ state: 'detached' });
    expect(await browserButton.getAttribute('aria-pressed')).toBe('false');
  });
});

async function centreOf(target: Locator): Promise<[number, number]> {
  const box = await target.boundingBox();
  if (box === null) throw new Error('the element is not shown');
  return [box.x + box.width / 2, box.y + box.height / 2];
}
