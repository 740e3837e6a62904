// E2E: the Review tab of the Changes panel follows the review it started: while the reviewer works it says
// so, and when the review ends it shows the verdict, the explanation and the findings (not only the
// conversation does). By mouse and keyboard through `weft serve`, at 1400×900 and 900×700.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { GIT_ENV } from '../support/git-repo';
import { createGate } from '../support/mock-responses-server';
import { clickCentre } from '../support/mouse';
import { answerTurn } from '../support/sse';
import { SCREENSHOT_SIZES, conversation, startE2e } from '../support/weft-serve';

const run = promisify(execFile);

async function git(dir: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV } })).stdout;
}

describe('the Review tab', () => {
  for (const size of SCREENSHOT_SIZES) {
    it(`shows a review's progress and its result (${size.width}×${size.height})`, { timeout: 180_000 }, async () => {
      const e2e = await startE2e({ files: { 'calc.ts': 'export const f = (a: number) => a;\n' }, viewport: size });
      const { page, workspace, mock } = e2e;
      await git(workspace.dir, 'init', '--quiet', '--initial-branch=main');
      await git(workspace.dir, 'config', 'user.name', GIT_ENV.GIT_AUTHOR_NAME);
      await git(workspace.dir, 'config', 'user.email', GIT_ENV.GIT_AUTHOR_EMAIL);
      await git(workspace.dir, 'add', '--all');
      await git(workspace.dir, 'commit', '--quiet', '-m', 'initial');
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
      const gate = createGate();
      mock.enqueueMany([
        answerTurn('Hello.'),
        async () => {
          await gate.released;
          return answerTurn(JSON.stringify(findings));
        },
      ]);
      await clickCentre(page, page.getByRole('textbox', { name: 'Message' }));
      await page.keyboard.type('Hi');
      await page.keyboard.press('Enter');
      await conversation(page).getByText('Hello.').waitFor();

      await clickCentre(page, page.getByRole('button', { name: 'Changes', exact: true }));
      const panel = page.getByRole('region', { name: 'Changes' });
      await clickCentre(page, panel.getByRole('tab', { name: 'Review' }));
      await clickCentre(page, panel.getByRole('button', { name: 'Review uncommitted changes' }));

      // While the reviewer works, the tab says so.
      const progress = panel.getByRole('status').filter({ hasText: 'Reviewing' });
      await progress.waitFor();
      expect(await progress.textContent()).toBe('Reviewing the uncommitted changes…');
      await mock.waitForRequest(2);
      await e2e.screenshot(`review-tab-progress-${size.width}x${size.height}`);

      // When it ends: the verdict, the explanation and the findings, in the tab.
      gate.release();
      const result = panel.getByRole('region', { name: 'Review result' });
      await result.waitFor();
      expect(await result.locator('.review-result-head').textContent()).toBe(
        'Review of the uncommitted changes1 finding · patch is incorrect',
      );
      expect(await result.getByText('ratio divides by zero.').count()).toBe(1);
      await result.getByRole('listitem', { name: 'Finding: Division by zero' }).waitFor();
      expect(await progress.count()).toBe(0);
      await e2e.screenshot(`review-tab-result-${size.width}x${size.height}`);

      // Its finding opens in the tab's diff.
      await clickCentre(page, result.getByRole('button', { name: 'Open calc.ts:2' }));
      await panel
        .getByRole('region', { name: 'Finding in calc.ts' })
        .locator('.diff-focus')
        .first()
        .waitFor({ state: 'attached' });
      expect(await panel.getByRole('listitem', { name: 'Finding: Division by zero' }).count()).toBe(1);
    });
  }
});
