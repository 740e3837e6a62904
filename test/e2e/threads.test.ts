// E2E: the thread list — fork from an earlier turn, archive, search — against `weft serve`.
import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { answerTurn } from '../support/sse';
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

async function exchange(page: Page, prompt: string, reply: string): Promise<void> {
  await sendMessage(page, prompt);
  await conversation(page).getByText(reply).waitFor();
}

describe('threads', () => {
  it('forks from an earlier turn and draws the fork under its parent', { timeout: 60_000 }, async () => {
    e2e = await startE2e();
    const { page, mock } = e2e;
    mock.enqueueMany([answerTurn('First answer.'), answerTurn('Second answer.')]);
    await exchange(page, 'First question', 'First answer.');
    await exchange(page, 'Second question', 'Second answer.');
    const parentUrl = page.url();

    await page.getByRole('button', { name: 'Fork from here' }).first().click();
    await page.waitForURL((url) => url.toString() !== parentUrl);
    await conversation(page).getByText('First answer.').waitFor();
    expect(await conversation(page).getByText('Second answer.').count()).toBe(0);

    const threads = page.getByRole('navigation', { name: 'Threads' });
    await threads.locator('.thread-row.is-fork').waitFor();
    expect(await threads.getByRole('button', { name: 'First question', exact: true }).count()).toBe(1);
    expect(await threads.getByRole('button', { name: 'First question (fork)', exact: true }).count()).toBe(1);
    expect(await threads.locator('.thread-row.is-fork.is-active').count()).toBe(1);
    await e2e.screenshot('fork-tree');
  });

  it('archives a thread and lists it under Archived', { timeout: 60_000 }, async () => {
    e2e = await startE2e();
    const { page, mock } = e2e;
    mock.enqueueMany([answerTurn('Noted.')]);
    await exchange(page, 'Remember the milk', 'Noted.');

    const threads = page.getByRole('navigation', { name: 'Threads' });
    await threads.getByRole('button', { name: 'Actions for Remember the milk' }).click();
    await page.getByRole('menuitem', { name: 'Archive' }).click();
    await page.getByText('This thread is archived.').waitFor();
    await threads.getByRole('button', { name: /Archived/ }).click();
    const archived = threads.getByRole('list', { name: 'Archived threads' });
    await archived.getByRole('button', { name: 'Remember the milk', exact: true }).waitFor();
    expect(await threads.locator('.thread-row').count()).toBe(1);
    await e2e.screenshot('archive');
  });

  it('finds a thread by the text of its messages', { timeout: 60_000 }, async () => {
    e2e = await startE2e();
    const { page, mock } = e2e;
    mock.enqueueMany([answerTurn('Apples are red.'), answerTurn('Cherries are sweet.')]);
    await exchange(page, 'Tell me about apples', 'Apples are red.');
    await page.getByRole('button', { name: 'New thread' }).click();
    await exchange(page, 'Tell me about cherries', 'Cherries are sweet.');

    const threads = page.getByRole('navigation', { name: 'Threads' });
    await threads.getByRole('button', { name: 'Tell me about apples', exact: true }).waitFor();
    await page.getByRole('searchbox', { name: 'Search threads' }).fill('cherries');
    await threads.getByText('Results for “cherries”').waitFor();
    await threads.getByRole('button', { name: 'Tell me about cherries', exact: true }).waitFor();
    expect(await threads.getByRole('button', { name: 'Tell me about apples', exact: true }).count()).toBe(0);
    await e2e.screenshot('search');
  });
});
