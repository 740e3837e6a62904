// E2E: recovering from a failed turn (Retry, errors naming provider and URL), policies labelled by what
// they do, the approval card's focus and shortcuts, and what a screen reader hears.
import { describe, expect, it } from 'vitest';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

let e2e: E2e | undefined;

describe('recovery and accessibility', () => {
  it('names the provider and URL of a failed turn and retries it', { timeout: 90_000 }, async () => {
    e2e = await startE2e({ viewport: { width: 1400, height: 900 } });
    const { page, mock } = e2e;
    mock.enqueue({
      kind: 'http-error',
      status: 500,
      body: { error: { message: 'upstream exploded', type: 'server_error' } },
    });
    await sendMessage(page, 'Summarise the README');
    const error = conversation(page).getByRole('alert').filter({ hasText: 'upstream exploded' });
    await error.waitFor();
    expect(await error.textContent()).toContain(`Mock (${mock.url.replace(/\/$/, '')}/responses)`);
    const live = page.getByTestId('live-region');
    await expect.poll(() => live.textContent()).toMatch(/failed$/);
    await e2e.screenshot('retry-failed-1400');

    mock.enqueue(answerTurn('The README describes a demo project.'));
    await conversation(page).getByRole('button', { name: 'Retry' }).click();
    await conversation(page).getByText('The README describes a demo project.').waitFor();
    expect(await conversation(page).getByText('upstream exploded').count()).toBe(0);
    expect(await conversation(page).getByText('Summarise the README').count()).toBe(1);
    expect(JSON.stringify((await mock.waitForRequest(2)).body)).toContain('Summarise the README');
    await expect.poll(() => live.textContent()).toMatch(/finished$/);
    // Speaker labels for the two sides of the conversation.
    expect(await conversation(page).getByRole('heading', { name: 'You said' }).count()).toBe(1);
    expect(await conversation(page).getByRole('heading', { name: 'Weft said' }).count()).toBe(1);
    await page.setViewportSize({ width: 900, height: 700 });
    await e2e.screenshot('retry-done-900');
  });

  it(
    'labels policies by what they do, disables effort for a model without reasoning, and answers approvals by keyboard',
    { timeout: 90_000 },
    async () => {
      e2e = await startE2e({ viewport: { width: 900, height: 700 } });
      const { page, mock, workspace } = e2e;
      const effort = page.getByRole('combobox', { name: 'Reasoning effort' });
      await expect.poll(() => effort.isDisabled()).toBe(true);
      expect(await page.locator('label.picker', { has: effort }).getAttribute('title')).toBe(
        'mock-model does not reason, so there is no effort to choose',
      );
      const approvals = page.getByRole('combobox', { name: 'Approval policy' });
      expect(await approvals.locator('option').allTextContents()).toEqual([
        'Ask unless read-only',
        'Ask if the sandbox blocks',
        'Ask to leave the sandbox',
        'Never ask',
      ]);
      expect(await page.locator('body').textContent()).not.toMatch(/untrusted|on-request|on-failure/);

      // The composer's pickers sit side by side without overlapping at 900 px.
      const boxes = await page
        .locator('.composer-bar .picker select')
        .evaluateAll((els) =>
          els.map(
            (el) => el.getBoundingClientRect().toJSON() as { left: number; right: number; top: number; bottom: number },
          ),
        );
      for (let i = 1; i < boxes.length; i++) {
        const [a, b] = [boxes[i - 1], boxes[i]];
        if (a === undefined || b === undefined) continue;
        const overlap =
          Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0 &&
          Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0;
        expect(overlap).toBe(false);
      }
      const send = await page.getByRole('button', { name: 'Send' }).boundingBox();
      const last = boxes[boxes.length - 1];
      expect(send !== null && last !== undefined && last.right <= send.x).toBe(true);

      mock.enqueueMany([
        {
          kind: 'sse',
          events: [
            evCreated(),
            evFunctionCall('c1', 'exec_command', { cmd: 'touch made-by-keyboard.txt' }),
            evCompleted(),
          ],
        },
        answerTurn('Made it.'),
      ]);
      await sendMessage(page, 'Make a file');
      const card = page.getByRole('dialog', { name: 'Approve command' });
      await card.waitFor();
      await expect.poll(() => card.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(await card.textContent()).toContain('Ask unless read-only');
      expect(await card.getByRole('button', { name: 'Accept', exact: true }).getAttribute('aria-keyshortcuts')).toBe(
        'Y',
      );
      expect(await card.getByRole('button', { name: 'Decline', exact: true }).getAttribute('aria-keyshortcuts')).toBe(
        'N',
      );
      await expect
        .poll(() => page.getByTestId('live-region').textContent())
        .toBe('Approval needed to run touch made-by-keyboard.txt');
      await e2e.screenshot('approval-shortcuts-900');
      await page.keyboard.press('y');
      await conversation(page).getByText('Made it.').waitFor();
      expect(await workspace.read('made-by-keyboard.txt')).toBe('');

      // Ctrl+B hides the sidebar and brings it back.
      await page.keyboard.press('Control+b');
      await page.getByRole('navigation', { name: 'Threads' }).waitFor({ state: 'detached' });
      await e2e.screenshot('sidebar-collapsed-900');
      await page.getByRole('button', { name: 'Show sidebar' }).click();
      await page.getByRole('navigation', { name: 'Threads' }).waitFor();
    },
  );
});
