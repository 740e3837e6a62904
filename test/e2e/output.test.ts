// E2E: output shown faithfully — Copy on a code block copies its source, and messages sent into a
// running turn show up at once.
import { describe, expect, it } from 'vitest';
import { createGate } from '../support/mock-responses-server';
import { clickCentre } from '../support/mouse';
import { evAssistantMessage, evCompleted, evCreated, evOutputTextDelta, answerTurn } from '../support/sse';
import { conversation, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

let e2e: E2e | undefined;

const CODE = 'function add(a, b) {\n  const sum = a + b;\n  return sum;\n}';

describe('faithful output', () => {
  it('copies a code block as its source and says Copied, then Copy', { timeout: 240_000 }, async () => {
    e2e = await startE2e({ viewport: { width: 900, height: 700 } });
    const { page, mock } = e2e;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(e2e.url).origin });
    mock.enqueue(answerTurn(`Here it is:\n\n\`\`\`js\n${CODE}\n\`\`\`\n`));
    await sendMessage(page, 'Write an add function');
    const block = conversation(page).locator('.md-code');
    await block.locator('code[data-colored]').waitFor({ state: 'attached', timeout: 60_000 });
    const copy = block.getByRole('button', { name: 'Copy' });
    await clickCentre(page, copy);
    await block.getByRole('button', { name: 'Copied' }).waitFor();
    await e2e.screenshot('copy-code-copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(CODE);
    await block.getByRole('button', { name: 'Copy', exact: true }).waitFor();
  });

  it('shows a message sent into a running turn at once, marked as steering', { timeout: 240_000 }, async () => {
    e2e = await startE2e({ viewport: { width: 900, height: 700 } });
    const { page, mock } = e2e;
    const gate = createGate();
    mock.enqueueMany([
      {
        kind: 'sse-slow',
        events: [
          evCreated(),
          evOutputTextDelta('Working on it'),
          gate,
          evAssistantMessage('Working on it'),
          evCompleted(),
        ],
      },
      answerTurn('Noted, using tabs.'),
    ]);
    await sendMessage(page, 'Start the work');
    await conversation(page).getByText('Working on it').waitFor();
    await sendMessage(page, 'Use tabs, please');
    const steering = page.getByRole('list', { name: 'Messages for the running turn' });
    await steering.getByText('Use tabs, please').waitFor();
    await steering.getByText(/Steering/).waitFor();
    await e2e.screenshot('steering-message');
    gate.release();
    await conversation(page).getByText('Noted, using tabs.').waitFor();
    await conversation(page).getByText('Use tabs, please').waitFor();
    await steering.waitFor({ state: 'detached' });
  });
});
