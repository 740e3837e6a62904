// E2E: a real `weft serve` with the mock model, driven through the built UI in headless Chromium.
import { afterEach, describe, expect, it } from 'vitest';
import { createGate } from '../support/mock-responses-server';
import {
  evAssistantMessage,
  evCompleted,
  evCreated,
  evFunctionCall,
  evOutputTextDelta,
  answerTurn,
} from '../support/sse';
import { conversation, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

let e2e: E2e | undefined;
afterEach(async (context) => {
  // A failed scenario leaves its end state as a screenshot too, for whoever reads the CI artifacts.
  if (context.task.result?.state === 'fail')
    await e2e?.screenshot(`failed-${context.task.name.replace(/\W+/g, '-')}`).catch(() => undefined);
  await e2e?.close();
  e2e = undefined;
});

describe('conversation', () => {
  it('streams the answer to a prompt', { timeout: 60_000 }, async () => {
    e2e = await startE2e();
    const { page, mock } = e2e;
    const gate = createGate();
    mock.enqueue({
      kind: 'sse-slow',
      events: [
        evCreated(),
        evOutputTextDelta('The build '),
        gate,
        evOutputTextDelta('passes.'),
        evAssistantMessage('The build passes.'),
        evCompleted(),
      ],
    });

    await sendMessage(page, 'Does the build pass?');
    await conversation(page).getByText('Does the build pass?').waitFor();
    await conversation(page).getByText('The build', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    gate.release();
    await conversation(page).getByText('The build passes.').waitFor();
    await conversation(page).getByText(/^Done/).waitFor();
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
    const request = await mock.waitForRequest(1);
    expect(JSON.stringify(request.body)).toContain('Does the build pass?');
    await e2e.screenshot('stream-answer');
  });

  it('stops a running turn', { timeout: 60_000 }, async () => {
    e2e = await startE2e();
    const { page, mock } = e2e;
    const aborted = mock.enqueue({
      kind: 'sse-hang',
      events: [evCreated(), evOutputTextDelta('Let me think about this for a long')],
    });

    await sendMessage(page, 'Think about it forever');
    await conversation(page).getByText('Let me think about this for a long').waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    await aborted.whenAborted;
    await conversation(page)
      .getByText(/^Stopped/)
      .waitFor();
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
    await e2e.screenshot('stop-turn');
  });

  it('restores the whole thread after a reload', { timeout: 60_000 }, async () => {
    e2e = await startE2e({ files: { 'README.md': '# Demo\n', 'src/app.ts': 'export const x = 1;\n' } });
    const { page, mock } = e2e;
    mock.enqueueMany([
      { kind: 'sse', events: [evCreated(), evFunctionCall('call_ls', 'exec_command', { cmd: 'ls' }), evCompleted()] },
      answerTurn('There is a README and a src folder.'),
    ]);

    await sendMessage(page, 'What is in this project?');
    await conversation(page).getByText('There is a README and a src folder.').waitFor();
    expect(page.url()).toContain('thread=');

    await page.reload();
    await conversation(page).getByText('What is in this project?').waitFor();
    await conversation(page).getByText('There is a README and a src folder.').waitFor();
    await conversation(page).locator('.cell-command').getByText('ls', { exact: true }).waitFor();
    await conversation(page).locator('.cell-command .status').getByText('Done', { exact: true }).waitFor();
    await e2e.screenshot('reload-restores-thread');
  });
});
