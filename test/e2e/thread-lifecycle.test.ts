// E2E: the threads a window keeps alive on the server. Clicking through 50 saved threads with an MCP
// server configured leaves a handful of MCP processes (the window lets go of each thread it stops
// showing; the server unloads those left idle beyond its bound) and the server's memory flat; a thread
// the person leaves while its turn runs stays followed: its approval and its failure reach the sidebar.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childrenRunning, rssMiB } from '../support/proc';
import { WsRpcClient } from '../support/rpc-client';
import { saveThreads } from '../support/saved-threads';
import { createGate } from '../support/mock-responses-server';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { conversation, screenshotSizes, SCREENSHOT_DIR, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

const QUIET = resolve(__dirname, '..', 'fixtures', 'mcp', 'quiet-server.mjs');
const MCP_CONFIG = [
  '[mcp_servers.quiet]',
  `command = ${JSON.stringify(process.execPath)}`,
  `args = [${JSON.stringify(QUIET)}]`,
  '',
].join('\n');

const THREADS = 50;
/** The thread shown, plus the idle ones the server keeps warm (4), plus one being let go. */
const MCP_PROCESSES_AT_MOST = 6;

/** A protocol client of the same server, to hear `thread/closed` and ask what is loaded. */
async function observer(e2e: E2e): Promise<WsRpcClient> {
  const served = new URL(e2e.url);
  const client = await WsRpcClient.connect(`ws://${served.host}/ws?token=${served.searchParams.get('token') ?? ''}`);
  await client.initialize();
  return client;
}

describe('threads a window keeps', () => {
  it(
    'clicks through 50 threads with an MCP server configured: a handful of MCP processes remain, memory stays flat',
    { timeout: 300_000 },
    async () => {
      const prompts = Array.from({ length: THREADS }, (_, i) => `Topic ${i}`);
      const e2e = await startE2e({
        viewport: { width: 1400, height: 900 },
        extraConfig: MCP_CONFIG,
        beforeServe: async ({ home, cwd }) => {
          await saveThreads(home, cwd, prompts);
        },
      });
      const { page } = e2e;
      const pid = e2e.servePid();
      const watcher = await observer(e2e);
      const threads = page.getByRole('navigation', { name: 'Threads' });
      const mcp = (): number => childrenRunning(pid, QUIET).length;

      const rss: { clicks: number; rssMiB: number; mcpProcesses: number }[] = [
        { clicks: 0, rssMiB: rssMiB(pid), mcpProcesses: mcp() },
      ];
      let peak = 0;
      // Newest first, as the list shows them: the wheel brings each row into reach, then it is clicked.
      for (const [clicked, prompt] of [...prompts].reverse().entries()) {
        const row = threads.getByRole('button', { name: prompt, exact: true });
        await wheelIntoView(page, row, threads);
        await clickCentre(page, row);
        await conversation(page).getByText(`Answer to ${prompt}.`, { exact: true }).waitFor();
        peak = Math.max(peak, mcp());
        if ((clicked + 1) % 10 === 0) rss.push({ clicks: clicked + 1, rssMiB: rssMiB(pid), mcpProcesses: mcp() });
      }

      // The threads left behind are unloaded in their queues: wait for the closes, not for time.
      for (;;) {
        const from = watcher.received.length;
        const running = mcp();
        if (running <= MCP_PROCESSES_AT_MOST) break;
        const loaded = await watcher.request<{ data: string[] }>('thread/loaded/list', {});
        await watcher
          .notification('thread/closed', () => true, from)
          .catch((error: unknown) => {
            throw new Error(
              `${running} MCP server processes still run after clicking through ${THREADS} threads (${loaded.data.length} threads loaded); at most ${MCP_PROCESSES_AT_MOST} should: ${String(error)}`,
            );
          });
      }
      const settled = { clicks: THREADS, rssMiB: rssMiB(pid), mcpProcesses: mcp() };
      await watcher.close();
      await mkdir(SCREENSHOT_DIR, { recursive: true });
      await writeFile(
        join(SCREENSHOT_DIR, 'click-through-50-threads.json'),
        `${JSON.stringify({ samples: rss, settled, peakMcpProcesses: peak }, null, 2)}\n`,
      );

      expect(settled.mcpProcesses).toBeLessThanOrEqual(MCP_PROCESSES_AT_MOST);
      // While clicking, at most one more than that: the thread just opened starts its server before the
      // one left longest has stopped its own.
      expect(peak).toBeLessThanOrEqual(MCP_PROCESSES_AT_MOST + 1);
      // Memory: what 40 more threads opened and let go add once the first ten have warmed everything up.
      const afterTen = rss.find((s) => s.clicks === 10)?.rssMiB ?? 0;
      expect(settled.rssMiB - afterTen).toBeLessThan(80);
      await screenshotSizes(e2e, 'click-through-50-threads');
    },
  );

  it(
    'follows a thread it left while its turn runs: its approval and then its failure reach the sidebar',
    { timeout: 120_000 },
    async () => {
      const e2e = await startE2e({
        viewport: { width: 1400, height: 900 },
        beforeServe: async ({ home, cwd }) => {
          await saveThreads(home, cwd, ['Elsewhere']);
        },
      });
      const { page, mock } = e2e;
      const threads = page.getByRole('navigation', { name: 'Threads' });
      const row = (name: string) =>
        threads.locator('.thread-row').filter({ has: page.getByText(name, { exact: true }) });
      const asked = createGate();
      const failing = createGate();
      mock.enqueueMany([
        {
          kind: 'sse-slow',
          events: [evCreated(), asked, evFunctionCall('call_1', 'exec_command', { cmd: 'make build' }), evCompleted()],
        },
        answerTurn('Built.'),
        async () => {
          await failing.released;
          return { kind: 'http-error', status: 400 };
        },
      ]);

      await sendMessage(page, 'Build the project');
      await row('Build the project').getByText('Thinking', { exact: true }).waitFor();
      // Away to another thread while the turn runs; the approval comes meanwhile.
      await clickCentre(page, threads.getByRole('button', { name: 'Elsewhere', exact: true }));
      await conversation(page).getByText('Answer to Elsewhere.', { exact: true }).waitFor();
      asked.release();
      await row('Build the project').getByText('Needs approval', { exact: true }).waitFor();
      // The request itself reached this window (the title counts what waits), not only the status.
      await page.waitForFunction(() => document.title.startsWith('(1) '));
      await screenshotSizes(e2e, 'left-thread-waiting');

      await clickCentre(page, threads.getByRole('button', { name: 'Build the project', exact: true }));
      const dialog = page.getByRole('dialog', { name: 'Approve command' });
      await dialog.locator('pre').getByText('make build', { exact: true }).waitFor();
      await clickCentre(page, dialog.getByRole('button', { name: 'Accept', exact: true }));
      await conversation(page).getByText('Built.', { exact: true }).waitFor();

      // A second turn fails after the person left: the sidebar says so.
      await sendMessage(page, 'Build it again');
      await row('Build the project').getByText('Thinking', { exact: true }).waitFor();
      await clickCentre(page, threads.getByRole('button', { name: 'Elsewhere', exact: true }));
      await conversation(page).getByText('Answer to Elsewhere.', { exact: true }).waitFor();
      failing.release();
      await row('Build the project').getByText('Failed', { exact: true }).waitFor();
      expect(await row('Elsewhere').locator('.thread-badge').count()).toBe(0);
      await screenshotSizes(e2e, 'left-thread-failed');
    },
  );
});
