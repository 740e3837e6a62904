// E2E: the conversation follows what arrives at its bottom while the bottom is in view, and leaves a person
// who scrolled up where they are (with a way back to the latest).
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { clickCentre } from '../support/mouse';
import { answerTurn } from '../support/sse';
import { conversation, sendMessage, startE2e } from '../support/weft-serve';

/** How far the conversation is scrolled, and how far from its bottom (0 at the bottom). */
function scrollState(page: Page): Promise<{ top: number; fromBottom: number }> {
  return conversation(page).evaluate((el) => ({
    top: el.scrollTop,
    fromBottom: el.scrollHeight - el.scrollTop - el.clientHeight,
  }));
}

/** A long answer: more lines than the window holds. */
const longAnswer = (label: string): string =>
  Array.from({ length: 60 }, (_, i) => `${label}, line ${i + 1}.`).join('\n\n');

describe('conversation scrolling', () => {
  it('follows new items at the bottom, and stays put when scrolled up', { timeout: 120_000 }, async () => {
    const e2e = await startE2e({ viewport: { width: 900, height: 700 } });
    const { page, mock } = e2e;
    const view = conversation(page);
    const latest = page.getByRole('button', { name: 'Latest' });

    mock.enqueue(answerTurn(longAnswer('First answer')));
    await sendMessage(page, 'Write a long answer');
    await view.getByText('First answer, line 60.').waitFor();
    await expect.poll(async () => (await scrollState(page)).fromBottom).toBeLessThanOrEqual(24);
    expect((await scrollState(page)).top).toBeGreaterThan(500);

    // Each new row (the message, then the answer) is followed once it is laid out.
    mock.enqueue(answerTurn(longAnswer('Second answer')));
    await sendMessage(page, 'And another');
    await view.getByText('Second answer, line 60.').waitFor();
    await expect.poll(async () => (await scrollState(page)).fromBottom).toBeLessThanOrEqual(24);
    expect(await latest.count()).toBe(0);
    const last = await view.getByText('Second answer, line 60.').boundingBox();
    const box = await view.boundingBox();
    expect(last !== null && box !== null && last.y + last.height <= box.y + box.height).toBe(true);

    // Scrolled up by the wheel, a person stays where they are while a new turn arrives.
    const area = await view.boundingBox();
    if (area === null) throw new Error('no conversation on screen');
    await page.mouse.move(area.x + area.width / 2, area.y + area.height / 2);
    await page.mouse.wheel(0, -1500);
    await latest.waitFor();
    const before = await scrollState(page);
    expect(before.fromBottom).toBeGreaterThan(1000);
    mock.enqueue(answerTurn(longAnswer('Third answer')));
    await sendMessage(page, 'One more');
    await expect.poll(() => mock.requests.length).toBe(3);
    const box2 = page.getByRole('textbox', { name: 'Message' });
    await expect.poll(() => box2.getAttribute('placeholder')).not.toBe('Add to the running turn…');
    expect((await scrollState(page)).top).toBe(before.top);
    await e2e.screenshot('conversation-scrolled-up-900');

    // Latest brings the newest back.
    await clickCentre(page, latest);
    await view.getByText('Third answer, line 60.').waitFor();
    await expect.poll(async () => (await scrollState(page)).fromBottom).toBeLessThanOrEqual(24);
    await latest.waitFor({ state: 'detached' });
  });
});
