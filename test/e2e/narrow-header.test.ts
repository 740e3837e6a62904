// E2E: the thread header at 900 px and 1400 px: a long title gives way (ellipsis) to the "Waiting for
// approval" badge, which stays on one line, and the chip of a failed MCP server sits in the header beside
// its buttons instead of standing over it. Through `weft serve`, with the mouse.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { clickCentre } from '../support/mouse';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, SCREENSHOT_SIZES, sendMessage, startE2e } from '../support/weft-serve';

const FAILING = resolve(__dirname, '..', 'fixtures', 'mcp', 'failing-server.mjs');
const SERVERS = [
  '[mcp_servers.broken]',
  `command = ${JSON.stringify(process.execPath)}`,
  `args = [${JSON.stringify(FAILING)}]`,
  '',
].join('\n');

/** Lines of text an element's own text takes (1 when it does not wrap). */
const lines = (target: Locator): Promise<number> =>
  target.evaluate((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  });

/** Whether two elements' boxes overlap. */
async function overlap(a: Locator, b: Locator): Promise<boolean> {
  const [x, y] = [await a.boundingBox(), await b.boundingBox()];
  if (x === null || y === null) return false;
  return !(x.x + x.width <= y.x || y.x + y.width <= x.x || x.y + x.height <= y.y || y.y + y.height <= x.y);
}

describe('the thread header in a narrow window', () => {
  for (const size of SCREENSHOT_SIZES) {
    it(`keeps the waiting badge on one line and the MCP chip off the header (${size.width}×${size.height})`, async () => {
      const e2e = await startE2e({ viewport: size, extraConfig: SERVERS });
      const { page, mock } = e2e;
      mock.enqueueMany([
        {
          kind: 'sse',
          events: [
            evCreated(),
            evFunctionCall('c1', 'exec_command', { cmd: 'touch made-by-the-agent.txt' }),
            evCompleted(),
          ],
        },
        answerTurn('Done.'),
      ]);
      await sendMessage(
        page,
        'Please rename every configuration file of the project so the names follow one pattern, and say what changed',
      );
      const card = page.getByRole('dialog', { name: 'Approve command' });
      await card.waitFor();
      const header = page.locator('.main-header');
      const badge = header.getByText('Waiting for approval');
      await badge.waitFor();
      // The chip is part of the header, beside its buttons.
      const chip = header.getByRole('button', { name: 'MCP server broken failed' });
      await chip.waitFor();
      await e2e.screenshot(`narrow-header-${size.width}x${size.height}`);

      expect(await lines(badge)).toBe(1);
      const title = header.locator('h1');
      expect(await title.evaluate((el) => el.scrollWidth > el.clientWidth || el.getClientRects().length === 1)).toBe(
        true,
      );
      // Nothing in the header is covered by the chip, and the chip is what the pointer hits.
      expect(await lines(chip)).toBe(1);
      for (const part of await header.locator('h1, .badge, button:not(.mcp-chip)').all())
        expect(await overlap(chip, part)).toBe(false);
      expect(await overlap(chip, conversation(page))).toBe(false);
      await clickCentre(page, chip);
      await page
        .getByRole('dialog', { name: 'Settings' })
        .getByRole('listitem', { name: 'MCP server broken' })
        .waitFor();
      await page.keyboard.press('Escape');
      await clickCentre(page, card.getByRole('button', { name: 'Accept', exact: true }));
      await conversation(page).getByText('Done.').waitFor();
    });
  }
});
