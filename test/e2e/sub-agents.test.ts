// E2E: a sub-agent spawned by the scripted model, seen in `weft serve` with the mouse — nested under its
// parent in the sidebar with its state (waiting for you, then done), its approval asked in the parent's
// view with its name, its spawn and wait shown in the parent's conversation, and its own thread a click away.
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { answerText, callOutputs, reply } from '../support/agents-model';
import { scriptAgents } from '../support/agents-model';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { evFunctionCall } from '../support/sse';
import { conversation, SCREENSHOT_SIZES, sendMessage, startE2e } from '../support/weft-serve';

/** The rows of the sidebar's thread list, top to bottom: title text, indent and whether it is a sub-agent. */
async function rows(page: Page): Promise<{ title: string; indent: number; agent: boolean; badge: string }[]> {
  const list = page.getByRole('navigation', { name: 'Threads' }).locator('ul.thread-list li.thread-row');
  return list.evaluateAll((items) =>
    items.map((li) => ({
      title: li.querySelector('.thread-title')?.textContent ?? '',
      indent: Number.parseInt((li as HTMLElement).style.paddingLeft, 10),
      agent: li.classList.contains('is-agent'),
      badge: li.querySelector('.thread-badge')?.textContent ?? '',
    })),
  );
}

async function click(page: Page, target: Locator, scroller?: Locator): Promise<void> {
  await target.waitFor();
  if (scroller) await wheelIntoView(page, target, scroller);
  await clickCentre(page, target);
}

describe('sub-agents in the UI', () => {
  for (const size of SCREENSHOT_SIZES) {
    it(`shows a sub-agent under its parent with its state, its approval and its calls (${size.width}×${size.height})`, async () => {
      const e2e = await startE2e({ viewport: size, approvalPolicy: 'untrusted' });
      const { page, mock, workspace } = e2e;
      scriptAgents(mock, {
        parent: [
          () => ({ calls: [{ id: 'call_spawn', name: 'spawn_agent', args: { message: 'Write child.txt' } }] }),
          (ctx) => ({ calls: [{ id: 'call_wait', name: 'wait_agent', args: { targets: ctx.agents } }] }),
          () => ({ answer: 'The sub-agent wrote child.txt.' }),
        ],
        child: (_task, request) =>
          callOutputs(request).length > 0
            ? answerText('I wrote child.txt.')
            : reply([evFunctionCall('call_touch', 'exec_command', { cmd: 'echo from-the-child > child.txt' })]),
      });

      await sendMessage(page, 'Delegate writing child.txt');
      // The child's command waits for the person, asked where the parent is shown and saying whose it is.
      const asks = page.getByRole('group', { name: /^Request from sub-agent / });
      await asks.waitFor();
      const dialog = asks.getByRole('dialog', { name: 'Approve command' });
      await dialog.getByText('echo from-the-child > child.txt').waitFor();
      const label = (await asks.getAttribute('aria-label')) ?? '';
      const nickname = label.replace('Request from sub-agent ', '');
      expect(nickname).toMatch(/^[A-Z][a-z]+$/);
      await page.locator('li.thread-row.is-agent .thread-badge', { hasText: 'Needs approval' }).waitFor();
      // The parent runs (the board says what it does: it waits on its sub-agent); the sub-agent needs you.
      expect(await rows(page)).toEqual([
        {
          title: 'Delegate writing child.txt',
          indent: 6,
          agent: false,
          badge: expect.stringMatching(/^(Thinking|Running)/),
        },
        { title: `${nickname}Write child.txt`, indent: 20, agent: true, badge: 'Needs approval' },
      ]);
      await e2e.screenshot(`sub-agent-approval-${size.width}x${size.height}`);

      await click(page, dialog.getByRole('button', { name: 'Accept', exact: true }));
      const chat = conversation(page);
      await chat.getByText('The sub-agent wrote child.txt.').waitFor();
      expect(await workspace.read('child.txt')).toBe('from-the-child\n');
      // The spawn and the wait in the parent's conversation, with the sub-agent's answer.
      const calls = chat.locator('.cell-collab');
      expect(
        await calls.evaluateAll((cells) => cells.map((c) => c.querySelector('.collab-what')?.textContent)),
      ).toEqual([`Started sub-agent ${nickname}`, `Waited for ${nickname}`]);
      await calls.last().getByText('I wrote child.txt.').waitFor();
      await page.locator('li.thread-row.is-agent .thread-badge', { hasText: 'Done' }).waitFor();
      // The open parent's own badge can still say Done for a moment (until it is marked read): wait for
      // the rows to settle on this.
      await expect
        .poll(async () => (await rows(page)).map((r) => [r.indent, r.agent, r.badge]), { timeout: 20_000 })
        .toEqual([
          [6, false, ''],
          [20, true, 'Done'],
        ]);
      await e2e.screenshot(`sub-agent-done-${size.width}x${size.height}`);

      // The sub-agent's name opens its own thread: its task, its command, its answer.
      await click(page, calls.first().getByRole('button', { name: nickname }), chat);
      await page.getByRole('button', { name: `Sub-agent ${nickname} · open its parent` }).waitFor();
      await conversation(page).getByText('I wrote child.txt.').waitFor();
      expect(await page.locator('li.thread-row.is-agent.is-active').count()).toBe(1);
      await e2e.screenshot(`sub-agent-thread-${size.width}x${size.height}`);
      await click(page, page.getByRole('button', { name: `Sub-agent ${nickname} · open its parent` }));
      await conversation(page).getByText('The sub-agent wrote child.txt.').waitFor();
    });
  }
});
