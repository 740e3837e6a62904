// E2E: the MCP section of Settings lists the configured servers with their state, tools and last start
// log; a failed server shows a chip; a server is switched off and on from the UI (config.toml changes).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parse } from 'smol-toml';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { evCompleted, evCreated, evNamespacedCall, answerTurn } from '../support/sse';
import { startOAuthMcpServer } from '../support/mcp-oauth-server';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { settingsLoadedAbove } from '../support/settings-sections';
import { conversation, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);
const FAILING = resolve(__dirname, '..', 'fixtures', 'mcp', 'failing-server.mjs');

let e2e: E2e | undefined;

const SERVERS = [
  '[mcp_servers.everything]',
  `command = ${JSON.stringify(process.execPath)}`,
  `args = [${JSON.stringify(EVERYTHING)}, "stdio"]`,
  '',
  '[mcp_servers.broken]',
  `command = ${JSON.stringify(process.execPath)}`,
  `args = [${JSON.stringify(FAILING)}]`,
  '',
].join('\n');

describe('MCP servers in the UI', () => {
  it(
    'shows a chip for a failed server, and Settings lists servers, tools and the start log, with a switch',
    { timeout: 120_000 },
    async () => {
      e2e = await startE2e({ viewport: { width: 1400, height: 900 }, extraConfig: SERVERS });
      const { page, mock, home } = e2e;

      // A thread starts its servers: the broken one is reported with a chip, and the turn goes on.
      mock.enqueue(answerTurn('Hello without the broken server.'));
      await sendMessage(page, 'Hello');
      await conversation(page).getByText('Hello without the broken server.').waitFor();
      const chip = page.getByRole('button', { name: 'MCP server broken failed' });
      await chip.waitFor();
      await e2e.screenshot('mcp-chip-1400');

      await clickCentre(page, chip);
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      await dialog.waitFor();
      // Reached with the wheel, once the sections above the servers have loaded (they would move them).
      const reach = async (target: Locator): Promise<void> => {
        await wheelIntoView(page, target, dialog.locator('.settings-body'));
        await clickCentre(page, target);
      };
      const list = dialog.getByRole('list', { name: 'MCP servers' });
      const everything = list.getByRole('listitem', { name: 'MCP server everything' });
      const broken = list.getByRole('listitem', { name: 'MCP server broken' });
      await everything.getByText('Running', { exact: true }).waitFor();
      expect(await everything.textContent()).toContain('echo');
      // Its resources and templates, from mcpServerStatus/list.
      await settingsLoadedAbove(dialog, 'mcp');
      await reach(everything.locator('.mcp-resources summary'));
      const resources = everything.getByRole('list', { name: 'Resources of everything' });
      await resources.getByText('demo://resource/static/document/architecture.md', { exact: true }).waitFor();
      await resources.getByText('demo://resource/dynamic/text/{resourceId}', { exact: true }).waitFor();
      expect(await everything.locator('.mcp-resources summary').textContent()).toMatch(/^\d+ resources, 2 templates$/);
      await broken.getByText('Failed', { exact: true }).waitFor();
      await wheelIntoView(page, broken.locator('.mcp-server-main'), dialog.locator('.settings-body'));
      await reach(broken.getByText('Last start log'));
      await broken
        .locator('.mcp-log pre')
        .getByText('failing-server: cannot open the database at /nonexistent/db.sqlite', { exact: false })
        .waitFor();
      await e2e.screenshot('mcp-settings-1400');

      // Switch the broken server off: config.toml says so, and the list shows it disabled.
      await reach(broken.getByRole('checkbox', { name: 'Enabled' }));
      await broken.getByText('Disabled', { exact: true }).waitFor();
      // The chip goes: the failed server is switched off.
      await chip.waitFor({ state: 'detached' });
      const config = parse(await readFile(join(home.dir, 'config.toml'), 'utf8'));
      expect(config['mcp_servers']).toMatchObject({
        broken: { enabled: false },
        everything: { args: [EVERYTHING, 'stdio'] },
      });
      await page.setViewportSize({ width: 900, height: 700 });
      await e2e.screenshot('mcp-settings-900');
    },
  );

  it(
    'signs in to a server that needs OAuth from Settings: the browser page comes back and the server runs',
    { timeout: 120_000 },
    async () => {
      const secure = await startOAuthMcpServer();
      try {
        e2e = await startE2e({
          viewport: { width: 1400, height: 900 },
          extraConfig: `[mcp_servers.secure]\nurl = ${JSON.stringify(secure.url)}\n`,
        });
        const { page, browser } = e2e;
        await clickCentre(page, page.getByRole('button', { name: 'Settings', exact: true }));
        const dialog = page.getByRole('dialog', { name: 'Settings' });
        const server = dialog
          .getByRole('list', { name: 'MCP servers' })
          .getByRole('listitem', { name: 'MCP server secure' });
        await server.getByText('Needs sign-in', { exact: true }).waitFor();
        await server
          .locator('.settings-status-error')
          .getByText('MCP server "secure" needs you to sign in: run weft mcp login secure', { exact: true })
          .waitFor();
        await settingsLoadedAbove(dialog, 'mcp');
        await wheelIntoView(page, server, dialog.locator('.settings-body'));
        await e2e.screenshot('mcp-sign-in-1400');

        // The sign-in page opens in a new tab (the system browser in the desktop app); the in-memory
        // authorization server approves at once and sends it back to Weft's loopback listener.
        const popup = browser.context.waitForEvent('page');
        await clickCentre(page, server.getByRole('button', { name: 'Sign in' }));
        const tab = await popup;
        await tab.getByText('Signed in. You can close this page and go back to Weft.').waitFor();
        await tab.close();

        await server.getByText('Running', { exact: true }).waitFor();
        expect(await server.textContent()).toContain('1 tool: whoami');
        expect(await server.getByRole('button', { name: 'Sign in' }).count()).toBe(0);
        await page.setViewportSize({ width: 900, height: 700 });
        await wheelIntoView(page, server, dialog.locator('.settings-body'));
        await e2e.screenshot('mcp-signed-in-900');
      } finally {
        await e2e?.close();
        e2e = undefined;
        await secure.close();
      }
    },
  );

  it(
    'draws the progress of a running MCP call on its cell, and takes it away when the call ends',
    { timeout: 120_000 },
    async () => {
      const servers = [
        '[mcp_servers.everything]',
        `command = ${JSON.stringify(process.execPath)}`,
        `args = [${JSON.stringify(EVERYTHING)}, "stdio"]`,
        'approval = "never"',
        '',
      ].join('\n');
      e2e = await startE2e({ viewport: { width: 1400, height: 900 }, extraConfig: servers });
      const { page, mock } = e2e;
      // Ten minutes in 600 steps: it runs until the turn is stopped.
      mock.enqueue({
        kind: 'sse',
        events: [
          evCreated(),
          evNamespacedCall('c1', 'mcp__everything', 'trigger_long_running_operation', { duration: 600, steps: 600 }),
          evCompleted(),
        ],
      });
      await sendMessage(page, 'Run the long operation');
      const cell = conversation(page)
        .locator('.cell-tool')
        .filter({ hasText: 'everything · trigger-long-running-operation' });
      const bar = cell.getByRole('progressbar', { name: 'Progress of everything · trigger-long-running-operation' });
      await bar.waitFor();
      await cell
        .locator('.mcp-progress-message')
        .getByText(/^\d+\/600$/)
        .waitFor();
      expect(Number(await bar.getAttribute('max'))).toBe(600);
      expect(Number(await bar.getAttribute('value'))).toBeGreaterThanOrEqual(1);
      await e2e.screenshot('mcp-progress-1400');
      await page.setViewportSize({ width: 900, height: 700 });
      await e2e.screenshot('mcp-progress-900');

      await page.getByRole('button', { name: 'Stop' }).click();
      await cell.getByText('Failed', { exact: true }).waitFor();
      expect(await cell.locator('.mcp-progress').count()).toBe(0);
    },
  );
});
