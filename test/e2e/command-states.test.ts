// E2E: a command's cell and the thread header say how the command stands: waiting for approval,
// running, done, failed with its exit code, not run (declined), cancelled, stopped, or an error.
import { describe, expect, it } from 'vitest';
import { clickCentre } from '../support/mouse';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

const call = (id: string, args: object) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', args), evCompleted()],
});

let e2e: E2e | undefined;

describe('command states', () => {
  it('labels every way a command can stand or end', { timeout: 420_000 }, async () => {
    e2e = await startE2e({ viewport: { width: 1400, height: 900 } });
    const { page, mock } = e2e;
    const cell = (command: string) =>
      conversation(page).locator('.cell-command', { has: page.locator('.tool-command', { hasText: command }) });
    const status = (command: string) => cell(command).locator('.tool-meta .status');
    const header = page.locator('.main-header');
    const approval = page.getByRole('dialog', { name: 'Approve command' });

    // Turn 1: waiting for approval, declined, an error (missing workdir), a failure, a success.
    mock.enqueueMany([
      call('c1', { cmd: 'touch declined.txt' }),
      call('c2', { cmd: 'ls', workdir: '/no/such/folder' }),
      call('c3', { cmd: 'ls no-such-file' }),
      call('c4', { cmd: 'ls' }),
      answerTurn('Tried everything.'),
    ]);
    await sendMessage(page, 'Try some commands');
    await approval.waitFor();
    await status('touch declined.txt').getByText('Waiting for approval').waitFor();
    await header.getByText('Waiting for approval').waitFor();
    expect(await header.getByText('Running').count()).toBe(0);
    await cell('touch declined.txt').getByText('Waiting for approval.').waitFor();
    await e2e.screenshot('command-waiting-for-approval');
    await clickCentre(page, approval.getByRole('button', { name: 'Decline', exact: true }));
    await conversation(page).getByText('Tried everything.').waitFor();
    expect(await status('touch declined.txt').innerText()).toBe('Not run (declined)');
    expect(await status('ls no-such-file').innerText()).toMatch(/^Failed \(exit [12]\)$/);
    expect(await status('ls').last().innerText()).toBe('Done');
    const missing = cell('ls').first();
    expect(await missing.locator('.tool-meta .status').innerText()).toBe('Error');
    await missing.getByText(/Could not run: .*\/no\/such\/folder/).waitFor();
    await e2e.screenshot('command-outcomes');

    // Turn 2: Cancel turn at the approval.
    mock.enqueueMany([call('c5', { cmd: 'touch cancelled.txt' })]);
    await sendMessage(page, 'Touch a file');
    await approval.waitFor();
    await clickCentre(page, approval.getByRole('button', { name: 'Cancel turn' }));
    await conversation(page)
      .getByText(/^Stopped/)
      .waitFor();
    await status('touch cancelled.txt').getByText('Cancelled', { exact: true }).waitFor();

    // Turn 3: stopped while it runs.
    mock.enqueueMany([call('c6', { cmd: 'sleep 120' })]);
    await sendMessage(page, 'Wait a while');
    await approval.waitFor();
    await clickCentre(page, approval.getByRole('button', { name: 'Accept', exact: true }));
    await status('sleep 120').getByText('Running').waitFor();
    await header.getByText('Running').waitFor();
    await clickCentre(page, page.getByRole('button', { name: 'Stop' }));
    await status('sleep 120').getByText('Stopped', { exact: true }).waitFor();
    expect(await status('sleep 120').innerText()).toBe('Stopped');
    await e2e.screenshot('command-cancelled-and-stopped');
  });
});
