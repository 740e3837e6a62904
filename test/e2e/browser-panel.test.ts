// E2E: the browser panel of `weft serve`: the thread's latest screenshot and the page's address, opened from
// the header's "Browser" button (there only while the thread has browser actions) or an action's "Show in
// panel" (by keyboard too); a tall screenshot scrolls with the wheel; Esc and × close it.
import { describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { startLocalSite } from '../support/local-site';
import { clickCentre } from '../support/mouse';
import { waitFor } from '../support/wait';
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
    // The page is still open in the agent's browser: the panel shows it live; the latest screenshot is one click away.
    await panel.getByRole('application', { name: /^Live page file:.*index\.html/ }).waitFor();
    await clickCentre(page, panel.getByRole('button', { name: 'Latest screenshot' }));
    const shot = panel.getByRole('img', { name: /^Latest screenshot of file:.*index\.html, \d+×\d+ px$/ });
    await shot.waitFor();
    const size = await shot.evaluate((el: HTMLImageElement) => ({ w: el.naturalWidth, h: el.naturalHeight }));
    expect(size.h).toBeGreaterThan(size.w);
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
    // The close button has the focus: the panel is reachable without the mouse.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Close browser panel');
    await page.keyboard.press('Enter'); // the focused close button
    await panel.waitFor({ state: 'detached' });
    expect(await browserButton.getAttribute('aria-pressed')).toBe('false');
  });
});

/** A button, a field that submits and a tall page, at known places; each reports what the person did to the site. */
const LIVE_PAGE = `<!doctype html><title>Live app</title>
<style>body { margin: 0; height: 4000px; font: 20px sans-serif; background: #f3f6ff }</style>
<button style="position:absolute;left:100px;top:100px;width:240px;height:60px;font-size:20px"
  onclick="fetch('/clicked'); this.textContent = 'Pressed'; document.body.style.background = '#ffe0e0'">Press me</button>
<form action="/typed" style="position:absolute;left:100px;top:300px"><input name="value" style="width:320px;height:44px;font-size:20px"></form>
<script>let told = false; addEventListener('scroll', () => { if (!told && scrollY > 100) { told = true; fetch('/scrolled'); } });
let from = null; addEventListener('mousedown', (e) => { from = e.clientX; });
addEventListener('mouseup', (e) => { if (from !== null && e.clientX - from > 50) fetch('/drag?dx=' + (e.clientX - from)); from = null; });</script>`;

describe('the live browser panel', () => {
  it('shows the page live; the mouse and keys in it reach the page', { timeout: 300_000 }, async () => {
    const hits: string[] = [];
    const waiters = new Set<() => void>();
    const site = await startLocalSite((req, res) => {
      hits.push(req.url ?? '/');
      for (const w of [...waiters]) w();
      if (req.url === '/' || req.url?.startsWith('/typed') === true)
        res.writeHead(200, { 'content-type': 'text/html' }).end(LIVE_PAGE);
      else res.writeHead(204).end();
    });
    const hit = (path: string): Promise<string> =>
      waitFor<null>(
        (listener) => {
          const check = (): void => listener(null);
          waiters.add(check);
          check();
          return () => waiters.delete(check);
        },
        () => hits.some((h) => h.startsWith(path)),
        { label: `the site asked for ${path}; it got ${hits.join(', ')}` },
      ).then(() => hits.find((h) => h.startsWith(path)) ?? '');
    try {
      const e2e = await startE2e({ viewport: { width: 1400, height: 900 }, approvalPolicy: 'never' });
      const { page, mock } = e2e;
      mock.enqueueMany([
        {
          kind: 'sse',
          events: [evCreated(), evNamespacedCall('b1', 'browser', 'open', { url: `${site.url}/` }), evCompleted()],
        },
        answerTurn('The app is open.'),
      ]);
      await sendMessage(page, 'Open the app');
      await conversation(page).getByText('The app is open.').waitFor();
      await clickCentre(page, page.locator('.main-header').getByRole('button', { name: 'Browser' }));
      const panel = page.getByRole('region', { name: 'Browser' });
      const surface = panel.getByRole('application', { name: /^Live page / });
      await surface.waitFor();
      expect(await surface.getAttribute('aria-label')).toBe(`Live page ${site.url}/: click, scroll and type to use it`);
      expect(await panel.getByTestId('browser-panel-url').innerText()).toBe(`${site.url}/`);
      const image = surface.locator('img');
      const pictureOf = () => image.getAttribute('src');
      await screenshotSizes(e2e, 'browser-live');

      /** Where the page's own pixel (x, y) is on the screen. */
      const onScreen = async (x: number, y: number): Promise<[number, number]> => {
        const box = await surface.boundingBox();
        if (box === null) throw new Error('the live page is not shown');
        return [box.x + (x * box.width) / 1280, box.y + (y * box.height) / 800];
      };
      const before = await pictureOf();
      await page.mouse.click(...(await onScreen(220, 130)));
      await hit('/clicked');
      // The new picture comes with the page's next frame (a loaded machine may take seconds).
      await expect.poll(pictureOf, { timeout: 15_000 }).not.toBe(before);
      await screenshotSizes(e2e, 'browser-live-pressed');

      // A drag with the mouse is one gesture in the page: pressed, moved, released 300 page pixels on.
      await page.mouse.move(...(await onScreen(500, 600)));
      await page.mouse.down();
      for (const x of [560, 640, 720, 800]) await page.mouse.move(...(await onScreen(x, 600)), { steps: 2 });
      await page.mouse.up();
      const dragged = Number((await hit('/drag?dx=')).slice('/drag?dx='.length));
      expect(Math.abs(dragged - 300)).toBeLessThanOrEqual(3);

      // A click in the field, keys typed, Enter: the form is sent with what was typed.
      await page.mouse.click(...(await onScreen(260, 322)));
      await page.keyboard.type('hi there');
      await page.keyboard.press('Enter');
      expect(await hit('/typed')).toBe('/typed?value=hi+there');
      await expect
        .poll(() => panel.getByTestId('browser-panel-url').innerText(), { timeout: 15_000 })
        .toBe(`${site.url}/typed?value=hi+there`);

      // The wheel over the live page scrolls the page, not the panel.
      const body = panel.locator('.browser-panel-body');
      const panelScroll = await body.evaluate((el) => el.scrollTop);
      await page.mouse.move(...(await onScreen(640, 600)));
      await page.mouse.wheel(0, 600);
      await hit('/scrolled');
      expect(await body.evaluate((el) => el.scrollTop)).toBe(panelScroll);
    } finally {
      await site.close();
    }
  });
});

async function centreOf(target: Locator): Promise<[number, number]> {
  const box = await target.boundingBox();
  if (box === null) throw new Error('the element is not shown');
  return [box.x + box.width / 2, box.y + box.height / 2];
}
