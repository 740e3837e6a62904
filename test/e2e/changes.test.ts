// E2E: the Changes panel against `weft serve` and a real git repository — stage one of two files and
// commit it with a typed message, stage one hunk, discard and restore, and a review whose findings are
// listed, open their line in a diff, and start a turn with "Fix this".
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { GIT_ENV } from '../support/git-repo';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e, type E2e } from '../support/weft-serve';

const run = promisify(execFile);
const TWENTY = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

let e2e: E2e | undefined;

async function git(dir: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV } })).stdout;
}

/** Makes the project a repository with everything committed. */
async function commitAll(dir: string): Promise<void> {
  await git(dir, 'init', '--quiet', '--initial-branch=main');
  await git(dir, 'config', 'user.name', GIT_ENV.GIT_AUTHOR_NAME);
  await git(dir, 'config', 'user.email', GIT_ENV.GIT_AUTHOR_EMAIL);
  await git(dir, 'add', '--all');
  await git(dir, 'commit', '--quiet', '-m', 'initial');
}

async function openChanges(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Changes', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Changes' });
  await panel.waitFor();
  return panel;
}

/** Scrolls the panel with the mouse wheel until `target` is in view, as a person would. */
async function wheelTo(page: Page, panel: Locator, target: Locator): Promise<void> {
  const box = await panel.boundingBox();
  if (box === null) throw new Error('the panel is not visible');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let i = 0; i < 20; i++) {
    const t = await target.boundingBox();
    if (t !== null && t.y >= box.y && t.y + t.height <= box.y + box.height) return;
    await page.mouse.wheel(0, 200);
    await page.waitForFunction(() => new Promise((r) => requestAnimationFrame(() => r(true))));
  }
}

describe('Changes panel', () => {
  it(
    'stages one of two changed files and commits it with a typed message; the other stays unstaged',
    { timeout: 180_000 },
    async () => {
      e2e = await startE2e({ files: { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' } });
      const { page, workspace } = e2e;
      await commitAll(workspace.dir);
      await writeFile(workspace.path('a.txt'), 'alpha changed\n');
      await writeFile(workspace.path('b.txt'), 'beta changed\n');
      // The repository's own pre-commit hook: the commit box says it will run, and it does.
      const ran = workspace.path('.git/hook-ran');
      await writeFile(workspace.path('.git/hooks/pre-commit'), `#!/bin/sh\necho ran > '${ran}'\n`, { mode: 0o755 });

      const panel = await openChanges(page);
      await panel.getByRole('button', { name: 'Branch main' }).waitFor();
      await panel
        .getByRole('note', { name: 'Hooks' })
        .getByText(`This repository's pre-commit hook will run when you commit (from ${workspace.path('.git/hooks')}).`)
        .waitFor();
      const unstaged = panel.getByRole('region', { name: 'Unstaged', exact: true });
      await unstaged.getByRole('button', { name: 'Show diff of a.txt' }).click();
      await panel.locator('.changes-diff .line-insert').first().waitFor({ state: 'attached' });
      await e2e.screenshot('changes-two-files');
      await unstaged.getByRole('button', { name: 'Stage a.txt' }).click();
      await panel
        .getByRole('region', { name: 'Staged', exact: true })
        .getByRole('button', { name: 'Unstage a.txt' })
        .waitFor();

      const message = panel.getByRole('textbox', { name: 'Commit message' });
      await message.click();
      await page.keyboard.type('Change alpha only');
      await panel.getByRole('button', { name: 'Commit', exact: true }).click();
      await panel.getByRole('region', { name: 'Staged', exact: true }).waitFor({ state: 'detached' });
      await e2e.screenshot('changes-committed');
      expect(await readFile(ran, 'utf8')).toBe('ran\n');

      expect(await git(workspace.dir, 'log', '-1', '--format=%s')).toBe('Change alpha only\n');
      expect((await git(workspace.dir, 'show', '--name-only', '--format=', 'HEAD')).trim()).toBe('a.txt');
      expect(await git(workspace.dir, 'status', '--porcelain')).toBe(' M b.txt\n');
      await panel
        .getByRole('region', { name: 'Unstaged', exact: true })
        .getByRole('button', { name: 'Stage b.txt' })
        .waitFor();
    },
  );

  it('stages one hunk of a file at 900x700, and discards a file then restores it', { timeout: 180_000 }, async () => {
    e2e = await startE2e({
      files: { 'notes.txt': TWENTY, 'c.txt': 'keep me\n' },
      viewport: { width: 900, height: 700 },
    });
    const { page, workspace } = e2e;
    await commitAll(workspace.dir);
    const edited = TWENTY.replace('line 2\n', 'LINE TWO\n').replace('line 18\n', 'LINE EIGHTEEN\n');
    await writeFile(workspace.path('notes.txt'), edited);
    await writeFile(workspace.path('c.txt'), 'my precious edit\n');

    const panel = await openChanges(page);
    const unstaged = panel.getByRole('region', { name: 'Unstaged', exact: true });
    await unstaged.getByRole('button', { name: 'Show diff of notes.txt' }).click();
    const stageHunk = unstaged.getByRole('button', { name: 'Stage hunk 2 of notes.txt' });
    await stageHunk.waitFor();
    await panel.locator('.changes-diff .line-insert').first().waitFor({ state: 'attached' });
    await e2e.screenshot('changes-hunks-small');
    await stageHunk.click();
    await panel
      .getByRole('region', { name: 'Staged', exact: true })
      .getByRole('button', { name: 'Unstage notes.txt' })
      .waitFor();
    expect(await git(workspace.dir, 'show', ':notes.txt')).toBe(TWENTY.replace('line 18\n', 'LINE EIGHTEEN\n'));
    expect(await workspace.read('notes.txt')).toBe(edited);

    // Discard asks first, keeps the content, and Restore puts it back.
    const discard = unstaged.getByRole('button', { name: 'Discard c.txt' });
    await wheelTo(page, panel, discard);
    await discard.click();
    const confirm = panel.getByRole('alertdialog', { name: 'Discard changes to c.txt?' });
    await confirm.getByRole('button', { name: 'Discard' }).click();
    const restore = panel.getByRole('region', { name: 'Discarded' }).getByRole('button', { name: 'Restore c.txt' });
    await restore.waitFor();
    expect(await workspace.read('c.txt')).toBe('keep me\n');
    await wheelTo(page, panel, restore);
    await e2e.screenshot('changes-discarded');
    await restore.click();
    await panel.getByRole('region', { name: 'Discarded' }).waitFor({ state: 'detached' });
    expect(await workspace.read('c.txt')).toBe('my precious edit\n');
  });

  it(
    'shows a new file on one side only and stages one block of it (1400x900, 900x700)',
    { timeout: 180_000 },
    async () => {
      e2e = await startE2e({ files: { 'a.txt': 'alpha\n' } });
      const { page, workspace } = e2e;
      await commitAll(workspace.dir);
      const fresh = 'head one\nhead two\n\ntail one\ntail two\n';
      await writeFile(workspace.path('fresh.txt'), fresh);

      const panel = await openChanges(page);
      const untracked = panel.getByRole('region', { name: 'Untracked', exact: true });
      await untracked.getByRole('button', { name: 'Show diff of fresh.txt' }).click();
      const diff = untracked.locator('.changes-diff');
      await diff.locator('.line-insert').first().waitFor({ state: 'attached' });
      // Only the new file's lines, each marked added: no empty removed line beside them.
      await page.waitForFunction((el) => el.querySelectorAll('.view-line').length >= 5, await diff.elementHandle());
      const drawn = await diff.evaluate((el) =>
        [...el.querySelectorAll<HTMLElement>('.view-line')].map((l) => (l.textContent ?? '').replace(/\u00a0/g, ' ')),
      );
      expect(drawn.sort()).toEqual(['', 'head one', 'head two', 'tail one', 'tail two']);
      expect(await diff.locator('.line-delete').count()).toBe(0);
      expect(await untracked.getByRole('button', { name: /^Discard hunk/ }).count()).toBe(0);
      await screenshotSizes(e2e, 'changes-untracked-hunks');

      await untracked.getByRole('button', { name: 'Stage hunk 2 of fresh.txt' }).click();
      await panel
        .getByRole('region', { name: 'Staged', exact: true })
        .getByRole('button', { name: 'Unstage fresh.txt' })
        .waitFor();
      expect(await git(workspace.dir, 'show', ':fresh.txt')).toBe('tail one\ntail two\n');
      expect(await workspace.read('fresh.txt')).toBe(fresh);
      await panel
        .getByRole('region', { name: 'Unstaged', exact: true })
        .getByRole('button', { name: 'Stage fresh.txt' })
        .waitFor();
    },
  );

  it(
    'lists review findings, opens a finding in its diff, and "Fix this" starts a turn about it',
    { timeout: 180_000 },
    async () => {
      e2e = await startE2e({
        files: { 'calc.ts': 'export const f = (a: number) => a;\n', 'AGENTS.md': 'Check divisions.\n' },
      });
      const { page, workspace, mock } = e2e;
      await commitAll(workspace.dir);
      await writeFile(
        workspace.path('calc.ts'),
        'export const f = (a: number) => a;\nexport const ratio = (a: number, b: number) => a / b;\n',
      );
      const findings = {
        findings: [
          {
            title: '[P1] Division by zero',
            body: 'b may be 0: check it first.',
            confidence_score: 0.9,
            priority: 1,
            code_location: { absolute_file_path: workspace.path('calc.ts'), line_range: { start: 2, end: 2 } },
          },
        ],
        overall_correctness: 'patch is incorrect',
        overall_explanation: 'ratio divides by zero.',
        overall_confidence_score: 0.85,
      };
      mock.enqueueMany([answerTurn('Hello.'), answerTurn(JSON.stringify(findings)), answerTurn('Added a zero check.')]);
      await sendMessage(page, 'Hi');
      await conversation(page).getByText('Hello.').waitFor();

      const panel = await openChanges(page);
      await panel.getByRole('tab', { name: 'Review' }).click();
      await panel.getByRole('button', { name: 'Review uncommitted changes' }).click();
      const finding = conversation(page).getByRole('listitem', { name: 'Finding: Division by zero' });
      await finding.waitFor();
      const reviewBody = JSON.stringify((await mock.waitForRequest(2)).body);
      expect(reviewBody).toContain('a / b');
      expect(reviewBody).toContain('Check divisions.');

      await finding.getByRole('button', { name: 'Open calc.ts:2' }).click();
      const inDiff = panel.getByRole('region', { name: 'Finding in calc.ts' });
      await inDiff.locator('.diff-focus').first().waitFor({ state: 'attached' });
      await panel.getByRole('listitem', { name: 'Finding: Division by zero' }).waitFor();
      await e2e.screenshot('review-findings');

      await panel
        .getByRole('listitem', { name: 'Finding: Division by zero' })
        .getByRole('button', { name: 'Fix this: Division by zero' })
        .click();
      const fix = JSON.stringify((await mock.waitForRequest(3)).body);
      expect(fix).toContain('Fix this review finding in calc.ts:2');
      expect(fix).toContain('b may be 0: check it first.');
      await conversation(page).getByText('Added a zero check.').waitFor();
      await e2e.screenshot('review-fix-started');
    },
  );

  it('sends inline comments on diff lines to the agent as the next message', { timeout: 180_000 }, async () => {
    e2e = await startE2e({ files: { 'a.txt': 'one\ntwo\nthree\n' } });
    const { page, workspace, mock } = e2e;
    await commitAll(workspace.dir);
    await writeFile(workspace.path('a.txt'), 'one\nTWO\nthree\n');
    mock.enqueue(answerTurn('Will do.'));
    const panel = await openChanges(page);
    await panel.getByRole('button', { name: 'Show diff of a.txt' }).click();
    const lineNumber = panel.locator('.changes-diff .editor.modified .line-numbers').filter({ hasText: /^2$/ });
    await lineNumber.first().click();
    const box = panel.getByRole('textbox', { name: 'Comment on a.txt line 2' });
    await box.fill('Keep this lower case');
    await panel.getByRole('button', { name: 'Add comment' }).click();
    await panel.getByRole('region', { name: 'Comments' }).getByText('Keep this lower case').waitFor();
    await panel.getByRole('button', { name: 'Send to agent' }).click();
    const sent = JSON.stringify((await mock.waitForRequest(1)).body);
    expect(sent).toContain('a.txt:2: Keep this lower case');
    await conversation(page).getByText('Will do.').waitFor();
  });

  it(
    "says git is off outside a repository and shows the thread's checkpointed changes",
    { timeout: 180_000 },
    async () => {
      e2e = await startE2e({ files: { 'a.txt': 'one\n' }, approvalPolicy: 'never' });
      const { page, mock } = e2e;
      const patch = ['*** Begin Patch', '*** Update File: a.txt', '@@', '-one', '+ONE', '*** End Patch'].join('\n');
      mock.enqueueMany([
        {
          kind: 'sse',
          events: [evCreated(), evFunctionCall('call_p', 'apply_patch', { input: patch }), evCompleted()],
        },
        answerTurn('Done.'),
      ]);
      await sendMessage(page, 'Capitalise');
      await conversation(page).getByText('Done.').waitFor();
      const panel = await openChanges(page);
      await panel
        .getByRole('note')
        .getByText(/Git is off for this folder/)
        .waitFor();
      await panel.getByText('a.txt', { exact: true }).waitFor();
      await panel.locator('.changes-diff .line-insert').first().waitFor({ state: 'attached' });
      await e2e.screenshot('changes-no-git');
    },
  );
});
