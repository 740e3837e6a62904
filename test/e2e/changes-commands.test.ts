// E2E: the Changes panel's "Last turn" view and the commit message "Generate" button, and the composer's
// /review, /compact, /undo, /model and /approvals commands, through `weft serve` with the mock model,
// typed and clicked as a person would.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { COMPACTION_PROMPT } from '../../src-main/context/compaction';
import { GIT_ENV } from '../support/git-repo';
import { clickCentre } from '../support/mouse';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e, type E2e } from '../support/weft-serve';

const run = promisify(execFile);
const patch = (id: string, path: string, from: string, to: string) => ({
  kind: 'sse' as const,
  events: [
    evCreated(),
    evFunctionCall(id, 'apply_patch', {
      input: ['*** Begin Patch', `*** Update File: ${path}`, '@@', `-${from}`, `+${to}`, '*** End Patch'].join('\n'),
    }),
    evCompleted(),
  ],
});
const command = (id: string, cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd }), evCompleted()],
});

let e2e: E2e | undefined;

async function git(dir: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV } })).stdout;
}

async function commitAll(dir: string): Promise<void> {
  await git(dir, 'init', '--quiet', '--initial-branch=main');
  await git(dir, 'config', 'user.name', GIT_ENV.GIT_AUTHOR_NAME);
  await git(dir, 'config', 'user.email', GIT_ENV.GIT_AUTHOR_EMAIL);
  await git(dir, 'add', '--all');
  await git(dir, 'commit', '--quiet', '-m', 'initial');
}

/** Types a `/` command into the composer, waits for the menu to offer it, and runs it with Enter. */
async function slash(page: Page, name: string): Promise<void> {
  await clickCentre(page, page.getByRole('textbox', { name: 'Message' }));
  await page.keyboard.type(`/${name}`);
  await page
    .getByRole('listbox', { name: 'Commands' })
    .getByRole('option', { name: new RegExp(`^/${name}\\b`) })
    .waitFor();
  await page.keyboard.press('Enter');
}

const bodyOf = (e: E2e, n: number): string => JSON.stringify(e.mock.requests[n]?.body);

describe('Changes panel: Last turn and Generate', () => {
  it("shows the last turn's changes, and only the last turn's", { timeout: 180_000 }, async () => {
    e2e = await startE2e({ files: { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' }, approvalPolicy: 'never' });
    const { page, workspace, mock } = e2e;
    await commitAll(workspace.dir);
    mock.enqueueMany([
      patch('p1', 'a.txt', 'alpha', 'alpha-first-turn'),
      answerTurn('First done.'),
      patch('p2', 'b.txt', 'beta', 'beta-second-turn'),
      answerTurn('Second done.'),
    ]);
    await sendMessage(page, 'Change a');
    await conversation(page).getByText('First done.').waitFor();
    await sendMessage(page, 'Change b');
    await conversation(page).getByText('Second done.').waitFor();

    await clickCentre(page, page.getByRole('button', { name: 'Changes', exact: true }));
    const panel = page.getByRole('region', { name: 'Changes' });
    await panel.waitFor();
    await clickCentre(page, panel.getByRole('tab', { name: 'Last turn' }));
    const diff = panel.locator('.changes-diff').first();
    await diff.locator('.line-insert').first().waitFor({ state: 'attached' });
    await page.waitForFunction(
      (el) => (el?.textContent ?? '').includes('beta-second-turn'),
      await diff.elementHandle(),
    );
    // b.txt, changed by the last turn, is listed; a.txt (the turn before) is not.
    const paths = await panel.locator('.changes-file .file-path').allInnerTexts();
    expect(paths).toEqual(['b.txt']);
    await screenshotSizes(e2e, 'changes-last-turn');
  });

  it(
    '"Generate" asks the model for a message from the staged diff and fills the box',
    { timeout: 180_000 },
    async () => {
      e2e = await startE2e({ files: { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' } });
      const { page, workspace, mock } = e2e;
      await commitAll(workspace.dir);
      await writeFile(workspace.path('a.txt'), 'alpha staged-edit\n');
      await writeFile(workspace.path('b.txt'), 'beta unstaged-edit\n');
      await git(workspace.dir, 'add', 'a.txt');
      mock.enqueue(answerTurn('Reword alpha'));

      await clickCentre(page, page.getByRole('button', { name: 'Changes', exact: true }));
      const panel = page.getByRole('region', { name: 'Changes' });
      await panel
        .getByRole('region', { name: 'Staged', exact: true })
        .getByRole('button', { name: 'Unstage a.txt' })
        .waitFor();
      const message = panel.getByRole('textbox', { name: 'Commit message' });
      await clickCentre(page, panel.getByRole('button', { name: 'Generate' }));
      await expect.poll(() => message.inputValue(), { timeout: 30_000 }).toBe('Reword alpha');
      const sent = bodyOf(e2e, 0);
      expect(sent).toContain('staged-edit');
      expect(sent).not.toContain('unstaged-edit');
      await screenshotSizes(e2e, 'changes-generated-message');

      await clickCentre(page, panel.getByRole('button', { name: 'Commit', exact: true }));
      await panel.getByRole('region', { name: 'Staged', exact: true }).waitFor({ state: 'detached' });
      expect(await git(workspace.dir, 'log', '-1', '--format=%s')).toBe('Reword alpha\n');
    },
  );
});

describe('composer / commands', () => {
  it('/review reviews the uncommitted changes and lists the findings', { timeout: 180_000 }, async () => {
    e2e = await startE2e({ files: { 'calc.ts': 'export const f = (a: number) => a;\n' } });
    const { page, workspace, mock } = e2e;
    await commitAll(workspace.dir);
    await writeFile(workspace.path('calc.ts'), 'export const ratio = (a: number, b: number) => a / b;\n');
    const findings = {
      findings: [
        {
          title: '[P1] Division by zero',
          body: 'b may be 0.',
          confidence_score: 0.9,
          priority: 1,
          code_location: { absolute_file_path: workspace.path('calc.ts'), line_range: { start: 1, end: 1 } },
        },
      ],
      overall_correctness: 'patch is incorrect',
      overall_explanation: 'ratio divides by zero.',
      overall_confidence_score: 0.8,
    };
    mock.enqueueMany([answerTurn('Hello.'), answerTurn(JSON.stringify(findings))]);
    await sendMessage(page, 'Hi');
    await conversation(page).getByText('Hello.').waitFor();

    await slash(page, 'review');
    await conversation(page).getByRole('listitem', { name: 'Finding: Division by zero' }).waitFor();
    expect(bodyOf(e2e, 1)).toContain('a / b');
    // "Reviewing …" is one line: its icon beside the text, not above it.
    const started = conversation(page).locator('.review-start');
    const [cell, icon] = [await started.boundingBox(), await started.locator('svg').boundingBox()];
    if (cell === null || icon === null) throw new Error('the review start is not visible');
    expect(Math.abs(icon.y + icon.height / 2 - (cell.y + cell.height / 2))).toBeLessThan(4);
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('');
    await screenshotSizes(e2e, 'slash-review');
  });

  it('/compact compacts the thread: the model is asked for a summary', { timeout: 180_000 }, async () => {
    e2e = await startE2e();
    const { page, mock } = e2e;
    mock.enqueueMany([answerTurn('Hello.'), answerTurn('## Goal\nSay hello.'), answerTurn('Still here.')]);
    await sendMessage(page, 'Hi');
    await conversation(page).getByText('Hello.').waitFor();

    await slash(page, 'compact');
    await conversation(page).getByText('Context compacted').waitFor();
    // The row can show before the summary's request reaches the mock: wait for that request.
    await mock.waitForRequest(2);
    expect(bodyOf(e2e, 1)).toContain(JSON.stringify(COMPACTION_PROMPT).slice(1, 60));
    await screenshotSizes(e2e, 'slash-compact');
    // The next turn starts from the summary.
    await sendMessage(page, 'Go on');
    await conversation(page).getByText('Still here.').waitFor();
    expect(bodyOf(e2e, 2)).toContain('Say hello.');
  });

  it(
    "/undo opens the undo of the last turn, and undoing puts the turn's files back",
    { timeout: 180_000 },
    async () => {
      e2e = await startE2e({ files: { 'notes.txt': 'one\n' }, approvalPolicy: 'never' });
      const { page, workspace, mock } = e2e;
      mock.enqueueMany([command('c1', 'echo two >> notes.txt'), answerTurn('Added two.')]);
      await sendMessage(page, 'Add a line');
      await conversation(page).getByText('Added two.').waitFor();
      expect(await workspace.read('notes.txt')).toBe('one\ntwo\n');

      await slash(page, 'undo');
      const undo = page.getByRole('dialog', { name: 'Undo this turn' });
      await undo.waitFor();
      // Nothing is undone until the user confirms in the preview.
      expect(await workspace.read('notes.txt')).toBe('one\ntwo\n');
      await undo.locator('.monaco-diff--loading').first().waitFor({ state: 'detached' });
      await screenshotSizes(e2e, 'slash-undo');
      await clickCentre(page, undo.getByRole('button', { name: /^Restore \d+ files?$/ }));
      await undo.waitFor({ state: 'detached' });
      await expect.poll(() => workspace.read('notes.txt')).toBe('one\n');
      await conversation(page).getByText('Added two.').waitFor({ state: 'detached' });
    },
  );

  it('/model and /approvals open their pickers, and the keyboard chooses', { timeout: 180_000 }, async () => {
    e2e = await startE2e({ viewport: { width: 900, height: 700 } });
    const { page } = e2e;
    const approvals = page.getByRole('combobox', { name: 'Approval policy' });
    const before = await approvals.inputValue();

    await slash(page, 'model');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Model');
    await screenshotSizes(e2e, 'slash-model');
    await page.keyboard.press('Escape');

    await slash(page, 'approvals');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Approval policy');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => approvals.inputValue()).not.toBe(before);
    await screenshotSizes(e2e, 'slash-approvals');
  });
});
