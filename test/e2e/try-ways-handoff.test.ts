// E2E: "try 3 ways" by mouse through `weft serve` — New thread → Worktree → Try 3 ways, one message; three
// worktree threads run it at once; the comparison shows each one's changes, its test run (the third fails)
// and its last message; the chosen way is handed off to the local checkout, where the person changed the
// same line: the Handoff dialog shows the conflict side by side and writes the thread's version only once
// the person says so. At 900×700, the comparison opens again from the thread's header and a second
// handoff is cancelled: nothing changes. Screenshots at 1400×900 and 900×700.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commitFolder } from '../support/git-repo';
import type { RecordedRequest, ScriptStep } from '../support/mock-responses-server';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { SCREENSHOT_SIZES, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';

const NOTES = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

/** Each way (told apart by its thread) edits line 2, writes `way` lines, runs `make test`, then says so. */
function scriptedWays(): ScriptStep[] {
  const wayOf = new Map<string, number>();
  const step = (request: RecordedRequest) => {
    const body = request.body as { prompt_cache_key?: string; input?: { type?: string }[] } | undefined;
    const thread = String(body?.prompt_cache_key);
    if (!wayOf.has(thread)) wayOf.set(thread, wayOf.size + 1);
    const way = wayOf.get(thread) ?? 0;
    const outputs = (body?.input ?? []).filter((item) => item.type === 'function_call_output').length;
    const write = `sed -i 's/^line 2$/line 2, way ${way}/' notes.txt && seq ${way} > made.txt`;
    return {
      kind: 'sse' as const,
      events:
        outputs === 0
          ? [evCreated(), evFunctionCall(`w${way}`, 'exec_command', { cmd: write }), evCompleted()]
          : outputs === 1
            ? [evCreated(), evFunctionCall(`t${way}`, 'exec_command', { cmd: 'make test' }), evCompleted()]
            : [evCreated(), evAssistantMessage(`Way ${way}: made.txt has ${way} line(s).`), evCompleted()],
    };
  };
  return Array.from({ length: 9 }, () => step);
}

describe('try 3 ways, compare, hand off', () => {
  it(
    'runs three worktree threads, compares them and hands the chosen one off with a conflict',
    { timeout: 300_000 },
    async () => {
      const e2e = await startE2e({
        files: { 'notes.txt': NOTES, Makefile: 'test:\n\t@test $$(wc -l < made.txt) -lt 3\n' },
        approvalPolicy: 'never',
        viewport: SCREENSHOT_SIZES[0],
        beforeServe: async ({ cwd }) => {
          commitFolder(cwd);
        },
      });
      const { page, workspace, mock } = e2e;
      // The person's own change to the line every way changes too.
      const mine = NOTES.replace('line 2\n', 'line 2, mine\n');
      writeFileSync(workspace.path('notes.txt'), mine);

      await clickCentre(page, page.getByRole('button', { name: 'New thread', exact: true }));
      await clickCentre(page, page.getByRole('radio', { name: 'Worktree' }));
      await clickCentre(page, page.getByRole('radio', { name: 'Try 3 ways' }));
      await page.getByText('3 new worktree threads in').waitFor();
      await screenshotSizes(e2e, 'try-ways-new-thread');
      mock.enqueueMany(scriptedWays());
      await sendMessage(page, 'Make made.txt and run the tests');

      // The comparison opens and follows the three as they run and end.
      const compare = page.getByRole('dialog', { name: 'Compare ways' });
      for (const way of [1, 2, 3]) await compare.getByRole('region', { name: `Way ${way}` }).waitFor();
      const column = (way: number) => compare.getByRole('region', { name: `Way ${way}` });
      // The columns are in the order the threads started, not the order the model was asked: find each way
      // by its last message.
      await expect
        .poll(
          async () => (await compare.getByText(/^Way \d: made\.txt has \d line\(s\)\.$/).allTextContents()).length,
          {
            timeout: 60_000,
          },
        )
        .toBe(3);
      const columnOf = new Map<number, number>();
      for (const n of [1, 2, 3]) {
        const text = (await column(n).getByRole('region', { name: 'Last message' }).locator('p').textContent()) ?? '';
        columnOf.set(Number(/^Way (\d)/.exec(text)?.[1]), n);
      }
      expect([...columnOf.keys()].sort()).toEqual([1, 2, 3]);
      for (const [way, n] of columnOf) {
        const col = column(n);
        await col.getByText('Done').waitFor();
        await col
          .getByRole('region', { name: 'Changes' })
          .getByText(`+${way + 1} −1 in 2 files`)
          .waitFor();
        const tests = col.getByRole('region', { name: 'Tests' });
        await tests.getByText('make test').waitFor();
        await tests.getByText(way === 3 ? 'exit 2' : 'exit 0').waitFor();
      }
      await screenshotSizes(e2e, 'try-ways-compare');

      // Way 2 is the one: hand it off to the local checkout.
      await clickCentre(page, compare.getByRole('button', { name: `Handoff way ${columnOf.get(2) ?? 0} to local` }));
      const handoff = page.getByRole('dialog', { name: 'Handoff' });
      const conflict = handoff.getByRole('alert');
      await conflict.getByText('1 file was changed on both sides: notes.txt.').waitFor();
      const notes = handoff.getByRole('region', { name: 'notes.txt: changed on both sides' });
      await handoff.getByRole('region', { name: 'made.txt: is added' }).waitFor();
      await notes.locator('.monaco-diff--loading').waitFor({ state: 'detached' });
      // Nothing of the person's is replaced unless asked: by default their version stays.
      const apply = handoff.getByRole('button', { name: 'Hand off 1 file, keep 1 of mine' });
      await apply.waitFor();
      await screenshotSizes(e2e, 'try-ways-handoff-conflict');
      const take = handoff.getByRole('button', { name: "Take the thread's: notes.txt" });
      await wheelIntoView(page, take, handoff.locator('.review-body'));
      await clickCentre(page, take);
      await clickCentre(page, handoff.getByRole('button', { name: 'Hand off 2 files' }));
      await handoff.getByRole('status').getByText('Handed off: 2 files written, 1 replaced.').waitFor();
      expect(readFileSync(workspace.path('notes.txt'), 'utf8')).toBe(NOTES.replace('line 2\n', 'line 2, way 2\n'));
      expect(readFileSync(workspace.path('made.txt'), 'utf8')).toBe('1\n2\n');
      await handoff.getByText('Nothing to hand off: your local checkout has every change already.').waitFor();
      await screenshotSizes(e2e, 'try-ways-handoff-done');
      await clickCentre(page, handoff.getByRole('button', { name: 'Close', exact: true }).last());
      await handoff.waitFor({ state: 'detached' });

      // At 900×700: the comparison again from a thread's header; a second handoff, cancelled, changes nothing.
      await page.setViewportSize(SCREENSHOT_SIZES[1]);
      await page.locator('.main-header').getByRole('button', { name: 'Compare 3 ways' }).waitFor();
      await e2e.screenshot('try-ways-thread-900x700');
      await clickCentre(page, page.locator('.main-header').getByRole('button', { name: 'Compare 3 ways' }));
      await compare.getByRole('region', { name: 'Way 3' }).waitFor();
      await e2e.screenshot('try-ways-compare-again-900x700');
      // Two columns fit beside each other here; the third is below them, reached with the wheel.
      const third = compare.getByRole('button', { name: `Handoff way ${columnOf.get(3) ?? 0} to local` });
      await wheelIntoView(page, third, compare.locator('.review-body'));
      await clickCentre(page, third);
      await handoff.getByRole('alert').getByText('2 files were changed on both sides: made.txt, notes.txt.').waitFor();
      await handoff
        .getByRole('region', { name: 'made.txt: changed on both sides' })
        .getByText('added in the worktree, and the local checkout has a file of its own there')
        .waitFor();
      // Both diffs drawn: the lines each side added are marked.
      for (const file of ['made.txt', 'notes.txt'])
        await handoff
          .getByRole('region', { name: `${file}: changed on both sides` })
          .locator('.line-insert')
          .first()
          .waitFor({ state: 'attached' });
      await e2e.screenshot('try-ways-second-handoff-900x700');
      await clickCentre(page, handoff.getByRole('button', { name: 'Cancel' }));
      await handoff.waitFor({ state: 'detached' });
      expect(readFileSync(workspace.path('made.txt'), 'utf8')).toBe('1\n2\n');
    },
  );
});
