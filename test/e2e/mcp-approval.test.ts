// E2E: an MCP tool call that needs approval is asked like a command: a card naming the server, the tool
// and its arguments, which takes focus and answers Y (allow), A (allow for the session) and N (decline).
// By keyboard and mouse through `weft serve`, at 1400×900 and 900×700.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clickCentre } from '../support/mouse';
import { evCompleted, evCreated, evNamespacedCall, answerTurn } from '../support/sse';
import { conversation, SCREENSHOT_SIZES, sendMessage, startE2e } from '../support/weft-serve';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);
const SERVERS = [
  '[mcp_servers.everything]',
  `command = ${JSON.stringify(process.execPath)}`,
  `args = [${JSON.stringify(EVERYTHING)}, "stdio"]`,
  'approval = "always"',
  '',
].join('\n');

const echo = (id: string, message: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evNamespacedCall(id, 'mcp__everything', 'echo', { message }), evCompleted()],
});

describe('MCP tool approval', () => {
  for (const size of SCREENSHOT_SIZES) {
    it(`looks and answers like a command approval (${size.width}×${size.height})`, { timeout: 180_000 }, async () => {
      const e2e = await startE2e({ viewport: size, extraConfig: SERVERS });
      const { page, mock } = e2e;
      mock.enqueueMany([echo('c1', 'first'), answerTurn('Echoed once.')]);
      await sendMessage(page, 'Echo something');

      const card = page.getByRole('dialog', { name: 'Approve MCP tool' });
      await card.waitFor();
      // It names what runs and takes the focus, so its keys work at once.
      expect(await card.locator('.approval-command').innerText()).toBe('everything · echo');
      expect(JSON.parse(await card.getByLabel('Arguments').innerText())).toEqual({ message: 'first' });
      await expect.poll(() => card.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(
        await card
          .getByRole('button')
          .evaluateAll((buttons) => buttons.map((b) => [b.textContent, b.getAttribute('aria-keyshortcuts')])),
      ).toEqual([
        ['Allow Y', 'Y'],
        ['Allow for session A', 'A'],
        ['Always allow', null],
        ['Decline N', 'N'],
      ]);
      await e2e.screenshot(`mcp-approval-${size.width}x${size.height}`);
      await page.keyboard.press('y');
      await card.waitFor({ state: 'detached' });
      await conversation(page).getByText('Echoed once.').waitFor();
      expect(JSON.stringify(mock.requests.at(-1)?.body)).toContain('Echo: first');

      // N declines: the model is told.
      mock.enqueueMany([echo('c2', 'second'), answerTurn('Declined, fine.')]);
      await sendMessage(page, 'Echo again');
      await card.waitFor();
      await expect.poll(() => card.evaluate((el) => el === document.activeElement)).toBe(true);
      await page.keyboard.press('n');
      await conversation(page).getByText('Declined, fine.').waitFor();
      expect(JSON.stringify(mock.requests.at(-1)?.body)).toContain('the user declined the call to everything/echo');

      // By mouse: Allow for session, and the next call of the tool is not asked about.
      mock.enqueueMany([echo('c3', 'third'), echo('c4', 'fourth'), answerTurn('Echoed twice.')]);
      await sendMessage(page, 'Echo twice');
      await card.waitFor();
      await clickCentre(page, card.getByRole('button', { name: 'Allow for session' }));
      await conversation(page).getByText('Echoed twice.').waitFor();
      expect(JSON.stringify(mock.requests.at(-1)?.body)).toContain('Echo: fourth');
    });
  }
});
