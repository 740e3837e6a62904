// E2E: a command cell shows short output whole, exactly as tall as its lines (the first line never
// scrolled away, no empty line under a one-line output), a line wider than the cell wrapped at the cell's
// width, colours and carriage returns as a terminal applies them, and a long output's tail with a note of
// what it leaves out, "Show all" and "Open in editor".
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { clickCentre } from '../support/mouse';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

const call = (id: string, cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd }), evCompleted()],
});

let e2e: E2e | undefined;

/** The lines drawn for a cell's output (one element per line) and the text of each. */
async function drawnRows(cell: Locator): Promise<string[]> {
  return cell.locator('.output-line').evaluateAll((rows) => rows.map((row) => row.textContent ?? ''));
}

/** A number as the UI writes it ("1,234"), read back. */
const count = (text: string | null): number => Number(/([\d,]+) earlier/.exec(text ?? '')?.[1]?.replace(/,/g, ''));

describe('command output in the conversation', () => {
  it(
    'sizes a short output to its lines and offers Show all and Open in editor for a long one',
    { timeout: 300_000 },
    async () => {
      e2e = await startE2e({ viewport: { width: 1400, height: 900 }, approvalPolicy: 'never' });
      const { page, mock } = e2e;
      const cell = (command: string) =>
        conversation(page).locator('.cell-command', { has: page.locator('.tool-command', { hasText: command }) });
      const short: [string, string[]][] = [
        ["printf 'only-line\\n'", ['only-line']],
        ["printf 'no-break-at-end'", ['no-break-at-end']],
        ["printf 'one\\ntwo\\nthree\\n'", ['one', 'two', 'three']],
        // A progress line redrawn with carriage returns shows as a terminal leaves it.
        ["printf 'fetch 10%%\\rfetch 100%%\\n\\033[31mred\\033[0m done\\n'", ['fetch 100%', 'red done']],
      ];
      // One line wider than the cell: it wraps, and every row of it is in view.
      const wide = "printf '%0300d\\n' 0";
      mock.enqueueMany([...short.map(([cmd], i) => call(`s${i}`, cmd)), call('w1', wide), answerTurn('Printed them.')]);
      await sendMessage(page, 'Print a few lines');
      await conversation(page).getByText('Printed them.').waitFor();
      for (const [cmd, lines] of short) {
        const terminal = cell(cmd).getByRole('log', { name: `Output of ${cmd}` });
        await expect.poll(() => drawnRows(terminal), { timeout: 20_000 }).toEqual(lines);
        // The output is as tall as its lines: no empty line, no blank band under the last one.
        const rowHeight = (await terminal.locator('.output-line').first().boundingBox())?.height ?? 0;
        const host = await terminal.locator('.output-lines').boundingBox();
        expect(rowHeight).toBeGreaterThan(0);
        expect(host?.height).toBeGreaterThanOrEqual(rowHeight * lines.length - 1);
        expect(host?.height).toBeLessThanOrEqual(rowHeight * lines.length + 1);
      }
      const colour = await cell("printf 'fetch")
        .locator('.output-line span', { hasText: 'red' })
        .evaluate((span) => getComputedStyle(span).color);
      expect(colour).toBe('rgb(204, 0, 0)');
      const wrapped = cell(wide).getByRole('log', { name: `Output of ${wide}` });
      for (const size of [
        { width: 1400, height: 900 },
        { width: 900, height: 700 },
      ]) {
        await page.setViewportSize(size);
        await expect.poll(() => drawnRows(wrapped), { timeout: 20_000 }).toEqual(['0'.repeat(300)]);
        // One line, wrapped at the cell's width: several lines tall, and no wider than the cell.
        const line = await wrapped.locator('.output-line').boundingBox();
        const box = await wrapped.boundingBox();
        const oneLine =
          (
            await cell(short[0]?.[0] ?? '')
              .locator('.output-line')
              .boundingBox()
          )?.height ?? 0;
        expect(line !== null && line.height).toBeGreaterThanOrEqual(oneLine * 2 - 1);
        expect(line !== null && box !== null && line.x + line.width <= box.x + box.width).toBe(true);
      }
      await page.setViewportSize({ width: 1400, height: 900 });
      await screenshotSizes(e2e, 'command-output-short');

      // 60,000 lines (about 349,000 characters): more than the cell shows, and more than the page keeps.
      const long = 'seq 1 60000';
      mock.enqueueMany([call('l1', long), answerTurn('Counted.')]);
      await sendMessage(page, 'Count far');
      await conversation(page).getByText('Counted.').waitFor();
      const note = cell(long).locator('.output-note');
      await note.getByText(/^… [\d,]+ earlier characters not shown …$/).waitFor();
      const before = count(await note.textContent());
      expect(before).toBeGreaterThan(300_000);
      const terminal = cell(long).getByRole('log', { name: `Output of ${long}` });
      await expect.poll(async () => (await drawnRows(terminal)).at(-1), { timeout: 30_000 }).toBe('60000');
      await screenshotSizes(e2e, 'command-output-long');

      await clickCentre(page, note.getByRole('button', { name: 'Show all' }));
      // Everything kept is shown now: fewer characters left out, and nothing more to show.
      await expect.poll(async () => count(await note.textContent()), { timeout: 20_000 }).toBeLessThan(before);
      const after = count(await note.textContent());
      expect(after).toBeGreaterThan(0);
      expect(await note.getByRole('button', { name: 'Show all' }).count()).toBe(0);
      await expect.poll(async () => (await drawnRows(terminal)).at(-1), { timeout: 30_000 }).toBe('60000');

      await clickCentre(page, note.getByRole('button', { name: 'Open in editor' }));
      const dialog = page.getByRole('dialog', { name: `Output of ${long}` });
      await dialog.waitFor();
      await dialog.getByText(/^last [\d,]+ of [\d,]+ characters$/).waitFor();
      await dialog.locator('.monaco-editor').waitFor();
      // Over the whole page: inside the window, and nothing of the conversation drawn over it.
      const covered = await dialog.evaluate((el) => {
        const r = el.getBoundingClientRect();
        if (r.top < 0 || r.left < 0 || r.bottom > window.innerHeight || r.right > window.innerWidth) return 'outside';
        const misses: string[] = [];
        for (let x = 0.05; x < 1; x += 0.1)
          for (let y = 0.05; y < 1; y += 0.1) {
            const at = document.elementFromPoint(r.left + r.width * x, r.top + r.height * y);
            if (at === null || !el.contains(at)) misses.push(`${at?.className ?? 'nothing'} at ${x},${y}`);
          }
        return misses.join('; ');
      });
      expect(covered).toBe('');
      // It opens at the end of the output: the last line is in view.
      const last = dialog.locator('.view-line', { hasText: /^60000$/ });
      await last.waitFor();
      const [lastBox, dialogBox] = [await last.boundingBox(), await dialog.boundingBox()];
      expect(
        lastBox !== null && dialogBox !== null && lastBox.y + lastBox.height <= dialogBox.y + dialogBox.height,
      ).toBe(true);
      await screenshotSizes(e2e, 'command-output-editor');
      // A modal: focus is inside it, Esc closes it, and focus goes back to the button that opened it.
      expect(await dialog.evaluate((el) => el.contains(document.activeElement))).toBe(true);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Open in editor');
    },
  );
});
