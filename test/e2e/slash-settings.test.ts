// E2E: Settings → MCP servers lists what config.toml configures even when the open thread started before
// the servers were added (and offers to start them there); `/mcp` opens Settings at that section, not at
// the top; `/status` closes with Esc. By mouse and keyboard through `weft serve`, at 1400×900 and 900×700.
import { appendFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { clickCentre } from '../support/mouse';
import { answerTurn } from '../support/sse';
import { conversation, SCREENSHOT_SIZES, sendMessage, startE2e } from '../support/weft-serve';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);
const SERVERS = [
  '',
  '[mcp_servers.everything]',
  `command = ${JSON.stringify(process.execPath)}`,
  `args = [${JSON.stringify(EVERYTHING)}, "stdio"]`,
  '',
].join('\n');

async function slash(page: Page, command: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await clickCentre(page, box);
  await page.keyboard.type(command);
  await page.getByRole('listbox', { name: 'Commands' }).waitFor();
  await page.keyboard.press('Enter');
}

/** Whether `target` is shown whole inside the visible part of `scroller`. */
async function inView(target: Locator, scroller: Locator): Promise<boolean> {
  const [box, view] = [await target.boundingBox(), await scroller.boundingBox()];
  return box !== null && view !== null && box.y >= view.y && box.y + box.height <= view.y + view.height;
}

describe('slash commands and Settings', () => {
  for (const size of SCREENSHOT_SIZES) {
    it(
      `list the configured MCP servers, open at them with /mcp, and close /status with Esc (${size.width}×${size.height})`,
      { timeout: 180_000 },
      async () => {
        const e2e = await startE2e({ viewport: size, approvalPolicy: 'never' });
        const { page, mock, home } = e2e;
        mock.enqueue(answerTurn('Hello there.'));
        await sendMessage(page, 'Say hello');
        await conversation(page).getByText('Hello there.').waitFor();

        // /status shows the thread's use; Esc closes it, and the composer keeps the focus.
        await slash(page, '/status');
        const status = page.getByRole('region', { name: 'Status' });
        await status.waitFor();
        await page.keyboard.press('Escape');
        await status.waitFor({ state: 'detached' });
        expect(
          await page.getByRole('textbox', { name: 'Message' }).evaluate((el) => el === document.activeElement),
        ).toBe(true);

        // A server is added to config.toml while the thread is open: Settings lists it all the same.
        await appendFile(join(home.dir, 'config.toml'), SERVERS);
        await slash(page, '/mcp');
        const settings = page.getByRole('dialog', { name: 'Settings' });
        const heading = settings.getByRole('heading', { name: 'MCP servers' });
        await heading.waitFor();
        // Opened at the MCP section, not at the top.
        await expect.poll(() => inView(heading, settings.locator('.settings-body'))).toBe(true);
        const everything = settings.getByRole('listitem', { name: 'MCP server everything' });
        await everything.getByText('Running', { exact: true }).waitFor();
        const note = settings.getByRole('note').filter({ hasText: 'not running in this thread' });
        await note.waitFor();
        await e2e.screenshot(`slash-settings-mcp-${size.width}x${size.height}`);
        // Started in the open thread, the list is the thread's own.
        await clickCentre(page, note.getByRole('button', { name: 'Start in this thread' }));
        await note.waitFor({ state: 'detached' });
        await everything.getByText('Running', { exact: true }).waitFor();
        await page.keyboard.press('Escape');
        await settings.waitFor({ state: 'detached' });

        // The model now sees the server's tools in this thread.
        mock.enqueue(answerTurn('Tools seen.'));
        await sendMessage(page, 'Which tools?');
        await conversation(page).getByText('Tools seen.').waitFor();
        expect(JSON.stringify(mock.requests.at(-1)?.body)).toContain('mcp__everything');
      },
    );
  }
});
