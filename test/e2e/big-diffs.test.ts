// E2E: a patch too big to diff in Monaco unasked (4,000 hunks; its diff cut to 1 MiB by the server) is shown
// as a summary with its totals, in the conversation and in the turn's changes; it opens as plain text or,
// asked, as a diff.
import { describe, expect, it } from 'vitest';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { conversation, screenshotSizes, sendMessage, startE2e } from '../support/weft-serve';

const LINES = 40_000;
const HUNKS = 4_000;

function bigCase(): { original: string; patch: string } {
  const lines = Array.from({ length: LINES }, (_, i) => `line ${i} of a file too big to diff whole`);
  const patch = ['*** Begin Patch', '*** Update File: big.txt'];
  for (let h = 0; h < HUNKS; h++) {
    const at = 5 + h * (LINES / HUNKS);
    patch.push('@@');
    for (let c = at - 3; c < at; c++) patch.push(` ${lines[c]}`);
    patch.push(`-${lines[at]}`, `+${lines[at]}, changed`);
    for (let c = at + 1; c <= at + 3; c++) patch.push(` ${lines[c]}`);
  }
  patch.push('*** End Patch');
  return { original: `${lines.join('\n')}\n`, patch: patch.join('\n') };
}

describe('a big patch', () => {
  it('is summarised with its totals, and opens as text or as a diff on request', { timeout: 300_000 }, async () => {
    const { original, patch } = bigCase();
    const e2e = await startE2e({
      approvalPolicy: 'never',
      viewport: { width: 1400, height: 900 },
      files: { 'big.txt': original },
    });
    const { page, mock } = e2e;
    mock.enqueueMany([
      { kind: 'sse', events: [evCreated(), evFunctionCall('call_p', 'apply_patch', { input: patch }), evCompleted()] },
      answerTurn('Changed every tenth line.'),
    ]);
    await sendMessage(page, 'Change every tenth line');
    await conversation(page).getByText('Changed every tenth line.').waitFor();

    // In the conversation: the file's row is open, and holds a summary, not a diff editor.
    const summary = conversation(page).getByRole('note', { name: 'Changes to big.txt: a large diff' });
    await summary.waitFor();
    const text = await summary.innerText();
    expect(text).toContain('Large diff: 4,000 hunks, +4,000 −4,000 lines.');
    expect(text).toMatch(/Only the first [\d,]+ hunks came with it \(a diff is cut at 1 MiB\)\./);
    expect(await conversation(page).locator('.file-row .file-stats').innerText()).toBe('+4000 −4000');
    expect(await conversation(page).locator('.file-row .static-diff').count()).toBe(0);
    await screenshotSizes(e2e, 'big-diff-summary');

    // Plain text: the unified diff as it came, ending with the marker of what was left out.
    const plain = summary.getByRole('button', { name: 'Plain text' });
    await wheelIntoView(page, plain, conversation(page));
    await clickCentre(page, plain);
    const pre = conversation(page).getByLabel('Changes to big.txt, as unified diff text');
    await pre.waitFor();
    expect(await pre.evaluate((el) => el.textContent?.trimEnd().split('\n').pop())).toMatch(
      /^~ Weft left out [\d,]+ of 4,000 hunks/,
    );

    // Asked, the diff shows it after all.
    const show = summary.getByRole('button', { name: 'Show the diff anyway' });
    await clickCentre(page, show);
    await conversation(page)
      .locator('.file-row .static-diff .sd-code.is-added')
      .first()
      .waitFor({ state: 'attached', timeout: 90_000 });

    // The turn's changes: the same summary, with what the turn changed in all.
    const view = conversation(page).getByRole('button', { name: 'View changes (1 file)' });
    await wheelIntoView(page, view, conversation(page));
    await clickCentre(page, view);
    const dialog = page.getByRole('dialog', { name: 'Changes in this turn' });
    await dialog.waitFor();
    await dialog.getByText('4,000 hunks, +4,000 −4,000 lines').waitFor();
    await dialog.getByRole('note', { name: 'Changes to big.txt: a large diff' }).waitFor();
    expect(await dialog.locator('.monaco-diff').count()).toBe(0);
    await screenshotSizes(e2e, 'big-diff-turn-changes');
  });

  it('is reviewed from its summary: hunks not shown follow Accept', { timeout: 300_000 }, async () => {
    const { original, patch } = bigCase();
    const e2e = await startE2e({ viewport: { width: 1400, height: 900 }, files: { 'big.txt': original } });
    const { page, mock, workspace } = e2e;
    mock.enqueueMany([
      { kind: 'sse', events: [evCreated(), evFunctionCall('call_p', 'apply_patch', { input: patch }), evCompleted()] },
      answerTurn('Changed every tenth line.'),
    ]);
    await sendMessage(page, 'Change every tenth line');
    const dialog = page.getByRole('dialog', { name: 'Review changes' });
    await dialog.waitFor();
    const file = dialog.getByRole('region', { name: 'Changes to big.txt' });
    await file.getByRole('note', { name: 'Proposed changes to big.txt: a large diff' }).waitFor();
    expect(await file.getByText(/of its 4,000 hunks are not shown here: they follow Accept or Decline\./).count()).toBe(
      1,
    );
    // Nothing was read or laid out for the diff: it waits to be asked for.
    expect(await file.locator('.monaco-diff').count()).toBe(0);
    await dialog.getByText('Accept applies all 4000 hunks.').waitFor();
    await e2e.screenshot('big-diff-review');
    await dialog.getByRole('button', { name: 'Accept', exact: true }).click();
    await conversation(page).getByText('Changed every tenth line.').waitFor();
    expect((await workspace.read('big.txt')).split(', changed\n')).toHaveLength(HUNKS + 1);
  });
});
