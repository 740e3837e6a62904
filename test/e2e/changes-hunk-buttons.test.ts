// E2E: in the Changes panel, each hunk's buttons sit in the diff right under that hunk (not in a list
// above the diff), and they act on that hunk. By mouse wheel and clicks through `weft serve`, at 1400×900
// and 900×700.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { GIT_ENV } from '../support/git-repo';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { SCREENSHOT_SIZES, startE2e } from '../support/weft-serve';

const run = promisify(execFile);
const TWENTY = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

async function git(dir: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV } })).stdout;
}

/**
 * Where `target` is once it is drawn (the diff draws the lines a scroll brings into view in a later frame,
 * and replaces a line's element as it draws again: one seen visible may be gone at the next look).
 */
async function box(target: Locator): Promise<{ top: number; bottom: number }> {
  for (;;) {
    await target.waitFor({ state: 'visible' });
    const b = await target.boundingBox();
    if (b !== null) return { top: b.y, bottom: b.y + b.height };
  }
}

describe('Changes panel hunk buttons', () => {
  for (const size of SCREENSHOT_SIZES) {
    it(`sit under their hunk in the diff (${size.width}×${size.height})`, { timeout: 180_000 }, async () => {
      const e2e = await startE2e({ files: { 'notes.txt': TWENTY }, viewport: size });
      const { page, workspace } = e2e;
      await git(workspace.dir, 'init', '--quiet', '--initial-branch=main');
      await git(workspace.dir, 'config', 'user.name', GIT_ENV.GIT_AUTHOR_NAME);
      await git(workspace.dir, 'config', 'user.email', GIT_ENV.GIT_AUTHOR_EMAIL);
      await git(workspace.dir, 'add', '--all');
      await git(workspace.dir, 'commit', '--quiet', '-m', 'initial');
      const edited = TWENTY.replace('line 2\n', 'LINE TWO\n').replace('line 18\n', 'LINE EIGHTEEN\n');
      await writeFile(workspace.path('notes.txt'), edited);

      await clickCentre(page, page.getByRole('button', { name: 'Changes', exact: true }));
      const panel = page.getByRole('region', { name: 'Changes' });
      const body = panel.locator('.changes-body');
      const unstaged = panel.getByRole('region', { name: 'Unstaged', exact: true });
      await clickCentre(page, unstaged.getByRole('button', { name: 'Show diff of notes.txt' }));
      const lines = panel.locator('.changes-diff .editor.modified .view-line');
      const two = lines.filter({ hasText: 'LINE TWO' });
      const eighteen = lines.filter({ hasText: 'LINE EIGHTEEN' });
      await eighteen.waitFor();

      const stage1 = unstaged.getByRole('button', { name: 'Stage hunk 1 of notes.txt' });
      const discard1 = unstaged.getByRole('button', { name: 'Discard hunk 1 of notes.txt' });
      const stage2 = unstaged.getByRole('button', { name: 'Stage hunk 2 of notes.txt' });
      await wheelIntoView(page, stage1, body);
      // Hunk 1's buttons: below its changed line, above hunk 2's.
      const [b1, d1, l2, l18] = await Promise.all([box(stage1), box(discard1), box(two), box(eighteen)]);
      expect(b1.top).toBeGreaterThanOrEqual(l2.bottom);
      expect(b1.bottom).toBeLessThanOrEqual(l18.top);
      expect(d1.top).toBeGreaterThanOrEqual(l2.bottom);
      await e2e.screenshot(`changes-hunk-buttons-${size.width}x${size.height}`);
      await wheelIntoView(page, stage2, body);
      const [b2, l18b] = await Promise.all([box(stage2), box(eighteen)]);
      expect(b2.top).toBeGreaterThanOrEqual(l18b.bottom);

      // They act on their own hunk.
      await clickCentre(page, stage2);
      await panel.getByRole('region', { name: 'Staged', exact: true }).waitFor();
      expect(await git(workspace.dir, 'show', ':notes.txt')).toBe(TWENTY.replace('line 18\n', 'LINE EIGHTEEN\n'));
      expect(await workspace.read('notes.txt')).toBe(edited);
    });
  }
});
