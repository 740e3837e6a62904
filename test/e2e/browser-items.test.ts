// E2E: the agent's browser actions in the conversation: what each did and where, the screenshot as a
// thumbnail read from beside the rollout, and the whole image in a dialog (Esc closes it).
import { describe, expect, it } from 'vitest';
import { clickCentre } from '../support/mouse';
import { evCompleted, evCreated, evNamespacedCall, answerTurn } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';

const PAGE = `<!doctype html><title>Demo app</title>
<style>body { font: 24px sans-serif; margin: 40px; background: #f3f6ff; } button { font-size: 24px; }</style>
<h1>Demo app</h1><button onclick="document.querySelector('p').textContent = 'Clicked!'">Press me</button><p>Waiting</p>`;

describe('browser actions in the conversation', () => {
  it('shows each action, a screenshot thumbnail, and the screenshot enlarged', { timeout: 300_000 }, async () => {
    const e2e = await startE2e({
      viewport: { width: 1400, height: 900 },
      approvalPolicy: 'never',
      files: { 'index.html': PAGE },
    });
    const { page, mock } = e2e;
    const url = `file://${e2e.workspace.path('index.html')}`;
    mock.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          evNamespacedCall('b1', 'browser', 'open', { url }),
          evNamespacedCall('b2', 'browser', 'click', { role: 'button', name: 'Press me' }),
          evNamespacedCall('b3', 'browser', 'screenshot', {}),
          evCompleted(),
        ],
      },
      answerTurn('The button works.'),
    ]);
    await sendMessage(page, 'Check the demo page');
    await conversation(page).getByText('The button works.').waitFor();

    const cells = conversation(page).locator('.browser-cell');
    expect(await cells.evaluateAll((els) => els.map((el) => el.getAttribute('data-browser-action')))).toEqual([
      'open',
      'click',
      'screenshot',
    ]);
    expect((await cells.nth(1).innerText()).replace(/\s+/g, ' ').trim()).toMatch(
      new RegExp(`^Clicked button "Press me" at ${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} · \\d`),
    );
    const thumb = cells.nth(2).getByRole('button', { name: /^Screenshot of .*, 1229×768 px \(click to enlarge\)$/ });
    const img = thumb.locator('img');
    await img.waitFor();
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(1229);
    await screenshotSizes(e2e, 'browser-items');

    await clickCentre(page, thumb);
    const dialog = page.getByRole('dialog', { name: /^Screenshot of / });
    await dialog.waitFor();
    const whole = dialog.locator('img');
    await expect.poll(() => whole.evaluate((el: HTMLImageElement) => el.naturalHeight)).toBe(768);
    await screenshotSizes(e2e, 'browser-screenshot-dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });
});
