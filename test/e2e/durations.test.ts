// E2E: the duration in a command's cell and in a patch's cell, and the "Wall time" the model reads back for
// each, count the run only, never the time the user took to answer the approval or the review.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { clickCentre } from '../support/mouse';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';
import type { MockResponsesServer } from '../support/mock-responses-server';
import type { Page } from 'playwright-core';

const call = (id: string, name: string, args: object) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, name, args), evCompleted()],
});
const PATCH = '*** Begin Patch\n*** Add File: reviewed.txt\n+reviewed\n*** End Patch';

/** Milliseconds from a duration as the UI writes it ("850 ms", "4.2 s", "12 s", "3 m 05 s"). */
function parseDuration(text: string): number {
  const ms = /^(\d+) ms$/.exec(text);
  if (ms) return Number(ms[1]);
  const s = /^([\d.]+) s$/.exec(text);
  if (s) return Number(s[1]) * 1000;
  const m = /^(\d+) m (\d+) s$/.exec(text);
  if (m) return (Number(m[1]) * 60 + Number(m[2])) * 1000;
  throw new Error(`not a duration: ${JSON.stringify(text)}`);
}

/** The "Wall time" (ms) in the tool output the model got back for `callId`. */
function wallTimeSent(mock: MockResponsesServer, callId: string): number {
  for (const request of mock.requests) {
    const input = (request.body as { input?: unknown }).input;
    if (!Array.isArray(input)) continue;
    for (const item of input as { type?: string; call_id?: string; output?: unknown }[]) {
      if (item.type !== 'function_call_output' || item.call_id !== callId || typeof item.output !== 'string') continue;
      const wall = /Wall time: ([\d.]+) seconds/.exec(item.output);
      if (wall) return Number(wall[1]) * 1000;
    }
  }
  throw new Error(`no output with a Wall time was sent for ${callId}`);
}

/**
 * Lets the approval wait: from the moment it is shown until the turn's own clock ("Waiting for your approval
 * 4.2 s"), which
 * ticks once a second, has moved on four seconds from what it read then. That takes real time the test
 * can observe. Returns the wait in ms, measured up to just before the answer is clicked.
 */
async function letItWait(page: Page): Promise<number> {
  const shown = performance.now();
  const clock = page.locator('.turn-end .working');
  // While the approval waits the turn says so, with no spinner (nothing works meanwhile).
  await expect.poll(() => clock.innerText()).toMatch(/^\s*Waiting for your approval\b/);
  expect(await clock.locator('.spinner').count()).toBe(0);
  const read = async () =>
    parseDuration((await clock.innerText()).replace(/^\s*Waiting for your approval\s*/, '').trim());
  const target = (await read()) + 4000;
  await expect.poll(read, { timeout: 30_000 }).toBeGreaterThanOrEqual(target);
  return performance.now() - shown;
}

let e2e: E2e | undefined;

describe('durations', () => {
  it('leave out the wait for approval and for review', { timeout: 420_000 }, async () => {
    e2e = await startE2e({ viewport: { width: 1400, height: 900 } });
    const { page, mock, workspace } = e2e;

    // A command that asks first.
    mock.enqueueMany([call('c1', 'exec_command', { cmd: 'touch timed.txt' }), answerTurn('Touched it.')]);
    await sendMessage(page, 'Touch a file');
    const approval = page.getByRole('dialog', { name: 'Approve command' });
    await approval.waitFor();
    const commandWait = await letItWait(page);
    await screenshotSizes(e2e, 'waiting-for-approval');
    await clickCentre(page, approval.getByRole('button', { name: 'Accept', exact: true }));
    await conversation(page).getByText('Touched it.').waitFor();

    const cell = conversation(page).locator('.cell-command', {
      has: page.locator('.tool-command', { hasText: 'touch timed.txt' }),
    });
    expect(await cell.locator('.tool-meta .status').innerText()).toBe('Done');
    const shown = cell.locator('.tool-meta .muted');
    expect(await shown.count(), 'the command cell shows its duration').toBe(1);
    const commandMs = parseDuration(await shown.innerText());
    expect(commandWait).toBeGreaterThan(2000);
    expect(commandMs, `shown ${await shown.innerText()}, waited ${Math.round(commandWait)} ms`).toBeLessThan(
      commandWait,
    );
    expect(wallTimeSent(mock, 'c1')).toBeLessThan(commandWait);
    await screenshotSizes(e2e, 'duration-command');

    // A patch that waits for its review, in a new turn so the clock starts again.
    mock.enqueueMany([call('p1', 'apply_patch', { input: PATCH }), answerTurn('Wrote it.')]);
    await sendMessage(page, 'Write a file');
    const review = page.getByRole('dialog', { name: 'Review changes' });
    await review.waitFor();
    const patchWait = await letItWait(page);
    await clickCentre(page, review.getByRole('button', { name: 'Accept', exact: true }));
    await conversation(page).getByText('Wrote it.').waitFor();
    expect(await workspace.read('reviewed.txt')).toBe('reviewed\n');
    expect(patchWait).toBeGreaterThan(2000);
    expect(wallTimeSent(mock, 'p1')).toBeLessThan(patchWait);
    const patchCell = conversation(page).locator('.cell-patch', { hasText: 'reviewed.txt' });
    expect(await patchCell.locator('.tool-meta .status').innerText()).toBe('Applied');
    const patchShown = patchCell.locator('.tool-meta .muted');
    expect(await patchShown.count(), 'the patch cell shows its duration').toBe(1);
    const patchMs = parseDuration(await patchShown.innerText());
    expect(patchMs, `shown ${await patchShown.innerText()}, waited ${Math.round(patchWait)} ms`).toBeLessThan(
      patchWait,
    );
    await screenshotSizes(e2e, 'duration-patch');
  });
});
