// E2E: the board. Three threads run at once in one project; the sidebar says what each does and which
// needs the person, also for a thread another client started in a second project, which joins the
// window's switcher with its count; "Needs me" lists them across both projects, Ctrl+J goes from one to
// the next, and what was not looked at stays marked after a reload until it is opened.
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createGate, type MockStep } from '../support/mock-responses-server';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { WsRpcClient } from '../support/rpc-client';
import { saveThreads } from '../support/saved-threads';
import { scriptByPrompt } from '../support/script-by-prompt';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { makeTempWorkspace } from '../support/workspace';
import { conversation, SCREENSHOT_SIZES, sendMessage, startE2e, type E2e } from '../support/weft-serve';

const command = (callId: string, cmd: string): MockStep => ({
  kind: 'sse',
  events: [evCreated(), evFunctionCall(callId, 'exec_command', { cmd, yield_time_ms: 30_000 }), evCompleted()],
});

/** Another window of the same server, speaking the protocol. */
async function otherClient(e2e: E2e): Promise<WsRpcClient> {
  const served = new URL(e2e.url);
  const client = await WsRpcClient.connect(`ws://${served.host}/ws?token=${served.searchParams.get('token') ?? ''}`);
  onTestFinished(() => client.close());
  await client.initialize();
  return client;
}

/** The sidebar row of the thread titled `title`. */
function row(page: Page, title: string): Locator {
  return page
    .getByRole('navigation', { name: 'Threads' })
    .locator('.thread-row')
    .filter({ has: page.getByText(title, { exact: true }) });
}

/** What a row's badge says, once it says `text` (its words as one line: the badge's title). */
async function says(page: Page, title: string, text: string): Promise<void> {
  await row(page, title).locator(`.thread-badge[title="${text}"]`).waitFor();
}

async function clickRow(page: Page, title: string): Promise<void> {
  const threads = page.getByRole('navigation', { name: 'Threads' });
  const button = threads.getByRole('button', { name: title, exact: true });
  await wheelIntoView(page, button, threads);
  await clickCentre(page, button);
}

describe('the board', () => {
  for (const size of SCREENSHOT_SIZES) {
    it(
      `follows three threads at once, two projects, Needs me and Ctrl+J (${size.width}×${size.height})`,
      { timeout: 120_000 },
      async () => {
        const other = await makeTempWorkspace({ 'README.md': '# Other\n' });
        onTestFinished(() => other.cleanup());
        const e2e = await startE2e({
          viewport: size,
          approvalPolicy: 'untrusted',
          beforeServe: async ({ home, cwd }) => {
            await saveThreads(home, cwd, ['Earlier work']);
            await saveThreads(home, other.dir, ['Other notes']);
            execFileSync('mkfifo', [`${cwd}/hold`]);
          },
        });
        const { page, mock, workspace } = e2e;
        const here = basename(workspace.dir);
        const there = basename(other.dir);
        const alphaAsks = createGate();
        const gammaFails = createGate();
        scriptByPrompt(mock, {
          // Thinks until released, then asks to run a command (an approval).
          'Task alpha': [
            {
              kind: 'sse-slow',
              events: [
                evCreated(),
                alphaAsks,
                evFunctionCall('a1', 'exec_command', { cmd: 'touch alpha.txt' }),
                evCompleted(),
              ],
            },
            answerTurn('Alpha done.'),
          ],
          // Runs a command that waits on a FIFO.
          'Task beta': [command('b1', 'cat hold'), answerTurn('Beta done.')],
          // Thinks until the test lets it fail.
          'Task gamma': [
            async (): Promise<MockStep> => {
              await gammaFails.released;
              return { kind: 'http-error', status: 400 };
            },
          ],
          // Started by another client, in the other project: asks for an approval.
          'Task delta': [command('d1', 'touch delta.txt'), answerTurn('Delta done.')],
        });
        const threads = page.getByRole('navigation', { name: 'Threads' });
        await threads.getByRole('button', { name: 'Earlier work', exact: true }).waitFor();

        // Three threads, one after the other; each goes on while the next is started.
        await sendMessage(page, 'Task gamma');
        await says(page, 'Task gamma', 'Thinking');
        await clickCentre(page, page.getByRole('button', { name: 'New thread', exact: true }));
        await sendMessage(page, 'Task beta');
        await says(page, 'Task beta', 'Running cat hold');
        await clickCentre(page, page.getByRole('button', { name: 'New thread', exact: true }));
        await sendMessage(page, 'Task alpha');
        await says(page, 'Task alpha', 'Thinking');
        // Away to an older thread; the approval comes meanwhile.
        await clickRow(page, 'Earlier work');
        await conversation(page).getByText('Answer to Earlier work.', { exact: true }).waitFor();
        alphaAsks.release();
        await says(page, 'Task alpha', 'Needs approval');
        await says(page, 'Task beta', 'Running cat hold');
        await says(page, 'Task gamma', 'Thinking');
        expect(await row(page, 'Earlier work').locator('.thread-badge').count()).toBe(0);
        await e2e.screenshot(`board-three-running-${size.width}x${size.height}`);

        // Another client starts a thread in another project; it waits for an approval there.
        const client = await otherClient(e2e);
        const { thread: delta } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: other.dir });
        await client.request('turn/start', { threadId: delta.id, input: [{ type: 'text', text: 'Task delta' }] });
        await client.serverRequest('item/commandExecution/requestApproval');

        // The other project joins the window: the switcher shows both, each with what needs the person.
        await clickCentre(page, page.getByRole('button', { name: 'Open folder', exact: true }));
        const picker = page.getByRole('dialog', { name: 'Open folder' });
        const field = picker.getByRole('combobox', { name: 'Folder path' });
        await clickCentre(page, field);
        await field.fill(other.dir);
        await field.press('Enter');
        await picker.waitFor({ state: 'detached' });
        const projects = page.getByRole('navigation', { name: 'Projects' });
        await projects.getByRole('button', { name: `${there}, 1 thread needs you`, exact: true }).waitFor();
        await projects.getByRole('button', { name: `${here}, 1 thread needs you`, exact: true }).waitFor();
        expect(await projects.locator('.project-item.is-current .project-name').textContent()).toBe(there);
        await says(page, 'Task delta', 'Needs approval');
        await threads.getByRole('button', { name: 'Other notes', exact: true }).waitFor();
        expect(await threads.getByRole('button', { name: 'Task alpha', exact: true }).count()).toBe(0);
        await e2e.screenshot(`board-two-projects-${size.width}x${size.height}`);

        // Needs me: what needs the person in both projects, the one shown first.
        const needsMe = page.getByRole('button', { name: /^Needs me/ });
        expect(await needsMe.getAttribute('title')).toContain('Ctrl+J goes to the next one');
        await clickCentre(page, needsMe);
        await threads.getByRole('list', { name: `Needing you in ${here}` }).waitFor();
        expect(await threads.locator('.thread-title').allTextContents()).toEqual(['Task delta', 'Task alpha']);
        expect(await needsMe.textContent()).toBe('Needs me2');
        await e2e.screenshot(`board-needs-me-${size.width}x${size.height}`);

        // Ctrl+J: the next thread that needs the person, then the next, in the other project.
        await page.keyboard.press('Control+j');
        const approval = page.getByRole('dialog', { name: 'Approve command' });
        await approval.locator('pre').getByText('touch delta.txt', { exact: true }).waitFor();
        await page.keyboard.press('Control+j');
        await approval.locator('pre').getByText('touch alpha.txt', { exact: true }).waitFor();
        expect(await projects.locator('.project-item.is-current .project-name').textContent()).toBe(here);
        await e2e.screenshot(`board-jumped-${size.width}x${size.height}`);
        await clickCentre(page, approval.getByRole('button', { name: 'Accept', exact: true }));
        await conversation(page).getByText('Alpha done.', { exact: true }).waitFor();

        // The other two end while the person looks at alpha: done (unread), failed (needs them).
        await writeFile(`${workspace.dir}/hold`, 'go\n');
        gammaFails.release();
        await clickCentre(page, page.getByRole('button', { name: 'All', exact: true }));
        await says(page, 'Task beta', 'Done');
        await says(page, 'Task gamma', 'Failed');
        await row(page, 'Task beta').and(page.locator('.is-unread')).waitFor();
        await row(page, 'Task gamma').and(page.locator('.is-unread')).waitFor();
        // Alpha ended while shown: read, nothing to say.
        await expect.poll(() => row(page, 'Task alpha').locator('.thread-badge').count()).toBe(0);
        expect(await row(page, 'Task alpha').and(page.locator('.is-unread')).count()).toBe(0);
        await projects.getByRole('button', { name: `${here}, 1 thread needs you`, exact: true }).waitFor();
        await e2e.screenshot(`board-ended-${size.width}x${size.height}`);

        // A reload keeps both projects and what was not looked at.
        await page.reload();
        await says(page, 'Task beta', 'Done');
        await says(page, 'Task gamma', 'Failed');
        await row(page, 'Task gamma').and(page.locator('.is-unread')).waitFor();
        await projects.getByRole('button', { name: `${there}, 1 thread needs you`, exact: true }).waitFor();
        // Opened, the failed thread is read: still failed, no longer waiting on the person.
        await clickRow(page, 'Task gamma');
        await expect.poll(() => row(page, 'Task gamma').and(page.locator('.is-unread')).count()).toBe(0);
        await says(page, 'Task gamma', 'Failed');
        await projects.getByRole('button', { name: here, exact: true }).waitFor();

        // Closing the other project takes it out of this window only: its thread still waits on the server.
        const close = projects.getByRole('button', { name: `Close ${there}`, exact: true });
        await page.mouse.move(0, 0);
        await clickCentre(page, close);
        await close.waitFor({ state: 'detached' });
        expect(await projects.locator('.project-item').count()).toBe(1);
        const listed = await client.request<{ data: { id: string; status: unknown }[] }>('thread/list', {
          cwd: other.dir,
        });
        expect(listed.data.find((t) => t.id === delta.id)?.status).toEqual({
          type: 'active',
          activeFlags: ['waitingOnApproval'],
          weftStep: { type: 'command', command: 'touch delta.txt' },
        });
        await e2e.screenshot(`board-closed-${size.width}x${size.height}`);
      },
    );
  }
});
