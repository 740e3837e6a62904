// E2E: the integrated terminal (Ctrl+`, typing, output, tabs), the composer's `!` command, `@` file
// mentions reaching the model, and the `/` menu.
import { describe, expect, it } from 'vitest';
import { clickCentre } from '../support/mouse';
import { answerTurn } from '../support/sse';
import { conversation, SCREENSHOT_SIZES, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';
import type { Locator } from 'playwright-core';

let e2e: E2e | undefined;

/** A 1×1 PNG. */
const PNG_DOT = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('terminal and composer', () => {
  it(
    'opens a terminal in the project with Ctrl+` and runs what is typed, in several tabs',
    { timeout: 240_000 },
    async () => {
      e2e = await startE2e({ viewport: { width: 1400, height: 900 } });
      const { page, workspace } = e2e;
      await page.getByRole('textbox', { name: 'Message' }).click();
      await page.keyboard.press('Control+Backquote');
      const panel = page.getByRole('region', { name: 'Terminal' });
      await panel.waitFor();
      const screen = panel.locator('[data-terminal]:not([hidden]) .xterm-rows');
      await screen.waitFor();
      await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toMatch(/\S/);
      await page.keyboard.type('echo $((6*7)) && pwd');
      await page.keyboard.press('Enter');
      await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toContain('42');
      expect(await screen.innerText()).toContain(workspace.dir);
      await e2e.screenshot('terminal-1400');

      // A second tab is a second shell; the first keeps its output.
      await clickCentre(page, panel.getByRole('button', { name: 'New terminal' }));
      await panel.getByRole('tab', { name: 'Terminal 2' }).waitFor();
      await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toMatch(/\S/);
      await page.keyboard.type('echo second-shell');
      await page.keyboard.press('Enter');
      await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toContain('second-shell');
      await clickCentre(page, panel.getByRole('tab', { name: 'Terminal 1' }));
      await expect.poll(() => screen.innerText()).toContain('42');

      // Hidden and shown again, the shells are still there.
      await page.keyboard.press('Control+Backquote');
      await panel.waitFor({ state: 'hidden' });
      await clickCentre(page, page.getByRole('button', { name: 'Terminal' }));
      await panel.waitFor();
      await expect.poll(() => screen.innerText()).toContain('42');

      // Closing every tab hides the panel; opening it again starts a fresh shell in a new tab.
      await clickCentre(page, panel.getByRole('button', { name: 'Close Terminal 1' }));
      await clickCentre(page, panel.getByRole('button', { name: 'Close Terminal 2' }));
      await panel.waitFor({ state: 'hidden' });
      await clickCentre(page, page.getByRole('button', { name: 'Terminal' }));
      await panel.getByRole('tab', { name: 'Terminal 3' }).waitFor();
      expect(await panel.getByRole('tab').count()).toBe(1);
      await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toMatch(/\S/);
      await page.keyboard.type('echo fresh-$((40+2))');
      await page.keyboard.press('Enter');
      await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toContain('fresh-42');
    },
  );

  it('keeps the terminal panel, its tabs and their output across thread switches', { timeout: 240_000 }, async () => {
    e2e = await startE2e({ viewport: { width: 1400, height: 900 } });
    const { page, mock } = e2e;
    mock.enqueueMany([answerTurn('Apples are red.'), answerTurn('Cherries are sweet.')]);
    const exchange = async (text: string, reply: string): Promise<void> => {
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill(text);
      await box.press('Enter');
      await conversation(page).getByText(reply).waitFor();
    };
    await exchange('Tell me about apples', 'Apples are red.');
    await page.getByRole('button', { name: 'New thread' }).click();
    await exchange('Tell me about cherries', 'Cherries are sweet.');

    await clickCentre(page, page.getByRole('button', { name: 'Terminal', exact: true }));
    const panel = page.getByRole('region', { name: 'Terminal' });
    await panel.waitFor();
    const screen = panel.locator('[data-terminal]:not([hidden]) .xterm-rows');
    await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toMatch(/\S/);
    await clickCentre(page, panel.locator('[data-terminal]:not([hidden])'));
    await page.keyboard.type('echo kept-$((3*3))');
    await page.keyboard.press('Enter');
    await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toContain('kept-9');
    await clickCentre(page, panel.getByRole('button', { name: 'New terminal' }));
    await panel.getByRole('tab', { name: 'Terminal 2' }).waitFor();

    const threads = page.getByRole('navigation', { name: 'Threads' });
    for (const [name, reply] of [
      ['Tell me about apples', 'Apples are red.'],
      ['Tell me about cherries', 'Cherries are sweet.'],
    ] as const) {
      await clickCentre(page, threads.getByRole('button', { name, exact: true }));
      await conversation(page).getByText(reply).waitFor();
      await panel.waitFor();
      await panel.getByRole('tab', { name: 'Terminal 2' }).waitFor();
      await clickCentre(page, panel.getByRole('tab', { name: 'Terminal 1' }));
      await expect.poll(() => screen.innerText()).toContain('kept-9');
    }
    // The shell itself lived on: it still runs what is typed.
    await clickCentre(page, panel.locator('[data-terminal]:not([hidden])'));
    await page.keyboard.type('echo still-$((2+3))');
    await page.keyboard.press('Enter');
    await expect.poll(() => screen.innerText(), { timeout: 30_000 }).toContain('still-5');
    await e2e.screenshot('terminal-thread-switch-1400');
  });

  it('runs a ! command in the thread and the model sees it next turn', { timeout: 240_000 }, async () => {
    e2e = await startE2e({ viewport: { width: 900, height: 700 } });
    const { page, mock } = e2e;
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.click();
    await page.keyboard.type('!echo user-made-$((40+2))');
    await page.keyboard.press('Enter');
    await conversation(page).getByText('echo user-made-$((40+2))').first().waitFor();
    await conversation(page).getByText('user-made-42').first().waitFor({ timeout: 30_000 });
    // The command's cell holds its output, and nothing covers its head (the command and its state).
    const cell = conversation(page).locator('.cell-command').first();
    const screen = cell.locator('.output-lines');
    await screen.waitFor();
    const [cellBox, screenBox] = [await cell.boundingBox(), await screen.boundingBox()];
    if (cellBox === null || screenBox === null) throw new Error('the command cell is not visible');
    expect(screenBox.x).toBeGreaterThanOrEqual(cellBox.x);
    expect(screenBox.y).toBeGreaterThanOrEqual(cellBox.y);
    expect(screenBox.x + screenBox.width).toBeLessThanOrEqual(cellBox.x + cellBox.width);
    expect(screenBox.y + screenBox.height).toBeLessThanOrEqual(cellBox.y + cellBox.height);
    for (const part of [cell.locator('.tool-command'), cell.locator('.tool-head .status')]) {
      const hit = await part.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return at !== null && (at === el || el.contains(at));
      });
      expect(hit).toBe(true);
    }
    await e2e.screenshot('shell-command-900');
    expect(mock.requests).toHaveLength(0);
    mock.enqueue(answerTurn('You printed user-made-42.'));
    await box.click();
    await page.keyboard.type('What did my command print?');
    await page.keyboard.press('Enter');
    await conversation(page).getByText('You printed user-made-42.').waitFor();
    const sent = JSON.stringify(mock.requests[0]?.body);
    expect(sent).toContain('<user_shell_command>');
    expect(sent).toContain('user-made-42');
  });

  it(
    'says that the terminal and ! commands run outside the sandbox, in notes that fit and cover nothing',
    { timeout: 240_000 },
    async () => {
      e2e = await startE2e({ viewport: { width: 1400, height: 900 } });
      const { page } = e2e;
      const box = page.getByRole('textbox', { name: 'Message' });
      const composer = page.locator('.composer');
      const hint = composer.getByRole('note');

      // Where `!` is typed, the composer says where it runs, and only while the draft is a shell command.
      await box.click();
      await page.keyboard.type('ls');
      expect(await hint.count()).toBe(0);
      await page.keyboard.press('Home');
      await page.keyboard.type('!');
      await hint.waitFor();
      expect(await hint.innerText()).toBe(
        'Runs in your own shell, outside the sandbox. The agent sees its output next turn.',
      );
      expect(await box.getAttribute('aria-describedby')).toBe(await hint.getAttribute('id'));
      await box.fill('!echo from-my-shell');
      await box.press('Enter');
      await conversation(page).getByText('from-my-shell').last().waitFor({ timeout: 30_000 });
      await hint.waitFor({ state: 'detached' });

      // The command's cell says it too.
      const cell = conversation(page).locator('.cell-command').first();
      const tag = cell.getByText('your shell, outside the sandbox', { exact: true });
      await tag.waitFor();
      expect(await tag.getAttribute('title')).toBe('You ran this in your own shell, outside the sandbox.');

      // The terminal panel's strip says it beside the tabs.
      await page.keyboard.press('Control+Backquote');
      const panel = page.getByRole('region', { name: 'Terminal' });
      const note = panel.getByRole('note');
      await note.waitFor();
      expect(await note.innerText()).toBe('Your login shell, outside the sandbox');

      await box.click();
      await page.keyboard.type('!pwd');
      await hint.waitFor();
      for (const size of SCREENSHOT_SIZES) {
        await page.setViewportSize(size);
        await page.evaluate(
          () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
        );
        const where = `${size.width}x${size.height}`;
        expect(await fits(note, panel.locator('.terminal-tabs'), panel.locator('.terminal-tabs button')), where).toBe(
          'fits',
        );
        expect(await fits(hint, composer, composer.locator('textarea, button')), where).toBe('fits');
        expect(await fits(tag, cell.locator('.tool-head'), cell.locator('.tool-command, .status')), where).toBe('fits');
        await e2e.screenshot(`outside-sandbox-notes-${where}`);
      }
    },
  );

  it(
    'attaches a file chosen with @ and sends its content to the model, then an image chosen with the paperclip',
    { timeout: 240_000 },
    async () => {
      e2e = await startE2e({
        viewport: { width: 1400, height: 900 },
        files: {
          'README.md': '# Demo\n',
          'src/billing/invoice-total.ts': 'export const TAX_RATE = 0.0725;\n',
          'src/other.ts': 'x\n',
        },
      });
      const { page, mock } = e2e;
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.click();
      await page.keyboard.type('Check @invtot');
      const files = page.getByRole('listbox', { name: 'Files' });
      await files.getByRole('option', { name: /src\/billing\/invoice-total\.ts/ }).waitFor();
      await e2e.screenshot('mention-menu-1400');
      await page.keyboard.press('Enter');
      await files.waitFor({ state: 'detached' });
      expect(await box.inputValue()).toBe('Check @src/billing/invoice-total.ts ');
      await page.getByRole('list', { name: 'Mentioned files' }).getByText('@src/billing/invoice-total.ts').waitFor();
      await page.keyboard.type('please');
      mock.enqueue(answerTurn('The tax rate is 7.25%.'));
      await page.keyboard.press('Enter');
      await conversation(page).getByText('The tax rate is 7.25%.').waitFor();
      // The sent message names the file it points at, as a chip with the file's path on hover.
      const chip = conversation(page).locator('.cell-user .chip-mention');
      expect((await chip.innerText()).trim()).toBe('src/billing/invoice-total.ts');
      expect(await chip.getAttribute('title')).toMatch(/src\/billing\/invoice-total\.ts$/);
      await e2e.screenshot('mention-chip-1400');
      const sent = JSON.stringify(mock.requests[0]?.body);
      expect(sent).toContain('export const TAX_RATE = 0.0725;');
      expect(sent).toContain('invoice-total.ts');

      // An image chosen with the paperclip goes with the next message, and leaves the composer once sent.
      await page.locator('.composer input[type="file"]').setInputFiles({
        name: 'dot.png',
        mimeType: 'image/png',
        buffer: Buffer.from(PNG_DOT, 'base64'),
      });
      const attached = page.getByRole('list', { name: 'Attached images' });
      await attached.getByText('dot.png').waitFor();
      await box.click();
      await page.keyboard.type('And this?');
      mock.enqueue(answerTurn('A dot.'));
      await page.keyboard.press('Enter');
      await conversation(page).getByText('A dot.').waitFor();
      await attached.waitFor({ state: 'detached' });
      expect(JSON.stringify(mock.requests[1]?.body)).toContain(`data:image/png;base64,${PNG_DOT}`);
    },
  );

  it('opens / commands from the menu: /status shows usage, /fork copies the thread', { timeout: 240_000 }, async () => {
    e2e = await startE2e({ viewport: { width: 900, height: 700 } });
    const { page, mock } = e2e;
    const box = page.getByRole('textbox', { name: 'Message' });
    mock.enqueue(answerTurn('Hello there.'));
    await box.click();
    await page.keyboard.type('Say hello');
    await page.keyboard.press('Enter');
    await conversation(page).getByText('Hello there.').waitFor();

    await box.click();
    await page.keyboard.type('/');
    const menu = page.getByRole('listbox', { name: 'Commands' });
    await menu.waitFor();
    const names = await menu.getByRole('option').locator('.menu-name').allInnerTexts();
    expect(names).toEqual([
      '/review',
      '/compact',
      '/undo',
      '/fork',
      '/model',
      '/approvals',
      '/init',
      '/status',
      '/mcp',
      '/diff',
    ]);
    await e2e.screenshot('slash-menu-900');
    await page.keyboard.type('sta');
    await clickCentre(page, menu.getByRole('option', { name: /\/status/ }));
    const status = page.getByRole('region', { name: 'Status' });
    await status.waitFor();
    expect(await status.innerText()).toMatch(/Model\s+mock-model/);
    expect(await status.innerText()).toMatch(/Context used/);
    await e2e.screenshot('slash-status-900');
    await clickCentre(page, status.getByRole('button', { name: 'Close' }));

    const threads = page.getByRole('navigation', { name: 'Threads' });
    const before = await threads.getByRole('listitem').count();
    await box.click();
    await page.keyboard.type('/fork');
    await page.keyboard.press('Enter');
    await expect.poll(() => threads.getByRole('listitem').count(), { timeout: 20_000 }).toBe(before + 1);
    await conversation(page).getByText('Hello there.').waitFor();
  });

  it(
    '/diff says when there is nothing to show, /init asks the model for an AGENTS.md, /mcp opens Settings',
    {
      timeout: 240_000,
    },
    async () => {
      e2e = await startE2e({ viewport: { width: 1400, height: 900 } });
      const { page, mock } = e2e;
      const box = page.getByRole('textbox', { name: 'Message' });
      const run = async (command: string): Promise<void> => {
        await box.click();
        await page.keyboard.type(command);
        await page.getByRole('listbox', { name: 'Commands' }).waitFor();
        await page.keyboard.press('Enter');
      };
      mock.enqueue(answerTurn('Hello there.'));
      await box.click();
      await page.keyboard.type('Say hello');
      await page.keyboard.press('Enter');
      await conversation(page).getByText('Hello there.').waitFor();

      // No turn changed a file yet.
      await run('/diff');
      await page.getByRole('status').filter({ hasText: 'No changes in this thread yet.' }).waitFor();

      // /init is a turn: the model is asked to write AGENTS.md from the project.
      mock.enqueue(answerTurn('Wrote AGENTS.md.'));
      await run('/init');
      await conversation(page).getByText('Wrote AGENTS.md.').waitFor();
      expect(JSON.stringify(mock.requests.at(-1)?.body)).toContain(
        'Create a file named AGENTS.md at the root of this project',
      );
      expect(await box.inputValue()).toBe('');

      await run('/mcp');
      const settings = page.getByRole('dialog', { name: 'Settings' });
      await settings.getByRole('heading', { name: 'MCP servers' }).waitFor();
      await e2e.screenshot('slash-mcp-1400');
    },
  );

  it('grows the message box with its text up to a third of the window, then scrolls; New thread puts the cursor in it', async () => {
    e2e = await startE2e({ viewport: { width: 900, height: 700 } });
    const { page, mock } = e2e;
    const box = page.getByRole('textbox', { name: 'Message' });
    const height = async (): Promise<number> => (await box.boundingBox())?.height ?? 0;
    await box.click();
    await page.keyboard.type('one line');
    const oneLine = await height();
    for (const line of ['two', 'three', 'four']) {
      await page.keyboard.press('Shift+Enter');
      await page.keyboard.type(line);
    }
    const fourLines = await height();
    expect(fourLines).toBeGreaterThan(oneLine + 40);
    // Every line of a four-line message is shown: nothing to scroll.
    expect(await box.evaluate((el) => el.scrollHeight - el.clientHeight)).toBeLessThanOrEqual(1);
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Shift+Enter');
      await page.keyboard.type(`line ${i}`);
    }
    // A third of the 700 px window, and the rest scrolls.
    expect(await height()).toBeLessThanOrEqual(700 / 3 + 1);
    expect(await height()).toBeGreaterThan(fourLines);
    expect(await box.evaluate((el) => el.scrollHeight > el.clientHeight + 100)).toBe(true);
    await e2e.screenshot('composer-tall-900');

    await page.keyboard.press('Control+a');
    await page.keyboard.type('Say hello');
    await expect.poll(height).toBe(oneLine);
    mock.enqueue(answerTurn('Hello there.'));
    await page.keyboard.press('Enter');
    await conversation(page).getByText('Hello there.').waitFor();
    // From a thread to a new one: the cursor is in the empty box, ready for the next message.
    await clickCentre(page, page.getByRole('button', { name: 'New thread', exact: true }));
    await expect.poll(() => box.inputValue()).toBe('');
    await expect.poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('typed at once');
    expect(await box.inputValue()).toBe('typed at once');
  });
});

/**
 * `fits` when `element` is shown whole inside `container` (not cut off, its text not ellipsised), is what
 * the pointer hits at its centre, and overlaps none of `neighbours`; otherwise what is wrong.
 */
async function fits(element: Locator, container: Locator, neighbours: Locator): Promise<string> {
  const [own, outer] = [await element.boundingBox(), await container.boundingBox()];
  if (own === null || outer === null) return 'not shown';
  if (own.width === 0 || own.height === 0) return 'empty';
  const inside =
    own.x >= outer.x - 0.5 &&
    own.y >= outer.y - 0.5 &&
    own.x + own.width <= outer.x + outer.width + 0.5 &&
    own.y + own.height <= outer.y + outer.height + 0.5;
  if (!inside) return `outside its container: ${JSON.stringify(own)} in ${JSON.stringify(outer)}`;
  const whole = await element.evaluate((el) => el.scrollWidth <= el.clientWidth + 1);
  if (!whole) return 'its text is cut off';
  const hit = await element.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return at !== null && (at === el || el.contains(at));
  });
  if (!hit) return 'covered by something else';
  for (const other of await neighbours.all()) {
    const b = await other.boundingBox();
    if (b === null) continue;
    const apart =
      b.x >= own.x + own.width || own.x >= b.x + b.width || b.y >= own.y + own.height || own.y >= b.y + b.height;
    if (!apart) return `overlaps ${await other.evaluate((el) => el.outerHTML.slice(0, 120))}`;
  }
  return 'fits';
}
