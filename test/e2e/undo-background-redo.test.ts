// E2E, at 1400×900 and 900×700 by mouse through `weft serve`: files a command wrote in the background after
// its turn ended belong to that turn, so undoing the next turn neither lists nor removes them, and undoing
// their own turn removes them; Redo of an undo brings the turn back with its file, and the conversation
// shows it again.
import { existsSync, readdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { conversation, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';

let e2e: E2e | undefined;
let signal: TempWorkspace | undefined;

afterEach(async () => {
  await e2e?.close();
  e2e = undefined;
  await signal?.cleanup();
  signal = undefined;
});

const command = (id: string, cmd: string, yieldMs?: number) => ({
  kind: 'sse' as const,
  events: [
    evCreated(),
    evFunctionCall(id, 'exec_command', yieldMs === undefined ? { cmd } : { cmd, yield_time_ms: yieldMs }),
    evCompleted(),
  ],
});

/**
 * Resolves once `path` holds `text` (watching its folder). Not once it exists: `echo 3 > bg-3.txt` creates
 * the file before it writes, and the next turn started in between found it empty and then saw it change
 * (its Undo listed bg-3.txt beside two.txt, once in a CI run).
 */
function fileHolds(path: string, text: string): Promise<void> {
  const holds = (): boolean => existsSync(path) && readFileSync(path, 'utf8') === text;
  return new Promise((resolve) => {
    const watcher = watch(dirname(path), () => {
      if (holds()) done();
    });
    const done = (): void => {
      watcher.close();
      resolve();
    };
    if (holds()) done();
  });
}

async function clickAction(page: Page, name: string): Promise<void> {
  const button = conversation(page).getByRole('button', { name }).first();
  await wheelIntoView(page, button, conversation(page));
  await clickCentre(page, button);
}

describe.skipIf(process.platform !== 'linux').each([
  { width: 1400, height: 900 },
  { width: 900, height: 700 },
])('a command left running, then Undo and Redo, at $width×$height', (viewport) => {
  it(
    "undoing the next turn keeps the background command's files; Redo brings the turn back",
    { timeout: 300_000 },
    async () => {
      signal = await makeTempWorkspace({});
      e2e = await startE2e({ approvalPolicy: 'never', viewport });
      const { page, mock, workspace } = e2e;
      const go = join(signal.dir, 'go');
      const background = `while [ ! -e ${go} ]; do sleep 0.02; done; for i in 1 2 3; do echo $i > bg-$i.txt; done`;
      mock.enqueueMany([
        command('b1', background, 100),
        answerTurn('Writer started.'),
        command('c2', 'echo two > two.txt'),
        answerTurn('Two written.'),
      ]);
      await sendMessage(page, 'Start the writer');
      await conversation(page).getByText('Writer started.').waitFor();
      // The writer writes after its turn ended.
      writeFileSync(go, '');
      await fileHolds(workspace.path('bg-3.txt'), '3\n');
      await sendMessage(page, 'Write two');
      await conversation(page).getByText('Two written.').waitFor();

      await clickAction(page, 'Undo this turn');
      const undo = page.getByRole('dialog', { name: 'Undo this turn' });
      await undo.getByRole('region', { name: 'two.txt is removed' }).waitFor();
      expect(await undo.locator('.restore-file').count()).toBe(1);
      await e2e.screenshot(`undo-background-dialog-${viewport.width}`);
      await clickCentre(page, undo.getByRole('button', { name: 'Restore 1 file' }));
      await undo.waitFor({ state: 'detached' });
      await conversation(page).getByText('Two written.').waitFor({ state: 'detached' });
      const bg = readdirSync(workspace.dir).filter((name) => name.startsWith('bg-'));
      expect({ bg: bg.sort(), two: existsSync(workspace.path('two.txt')) }).toEqual({
        bg: ['bg-1.txt', 'bg-2.txt', 'bg-3.txt'],
        two: false,
      });

      const bar = page.getByRole('status', { name: 'Restore done' });
      await clickCentre(page, bar.getByRole('button', { name: 'Redo' }));
      await bar.getByText('Brought back the turn and 1 file as they were before the restore.').waitFor();
      await conversation(page).getByText('Two written.').waitFor();
      expect(existsSync(workspace.path('two.txt'))).toBe(true);
      await e2e.screenshot(`undo-background-redone-${viewport.width}`);

      // Undone again, then the first turn: its background command's files are its own, and go with it.
      await clickAction(page, 'Undo this turn');
      await undo.getByRole('region', { name: 'two.txt is removed' }).waitFor();
      await clickCentre(page, undo.getByRole('button', { name: 'Restore 1 file' }));
      await undo.waitFor({ state: 'detached' });
      await conversation(page).getByText('Two written.').waitFor({ state: 'detached' });
      await clickAction(page, 'Undo this turn');
      for (const name of ['bg-1.txt', 'bg-2.txt', 'bg-3.txt'])
        await undo.getByRole('region', { name: `${name} is removed` }).waitFor();
      await e2e.screenshot(`undo-background-own-turn-${viewport.width}`);
      await clickCentre(page, undo.getByRole('button', { name: 'Restore 3 files' }));
      await undo.waitFor({ state: 'detached' });
      await conversation(page).getByText('Writer started.').waitFor({ state: 'detached' });
      expect(readdirSync(workspace.dir).filter((name) => name.startsWith('bg-'))).toEqual([]);
    },
  );
});
