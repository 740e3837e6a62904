// E2E: Settings → Hooks lists a hook from WEFT_HOME/hooks.json as not trusted; Trust (clicked with the mouse)
// records it; the hook then blocks a command and the conversation shows the run as a compact cell
// (`hook: PreToolUse Blocked`, with its reason, command and output on opening it); Settings shows its last
// run. Reloaded, the thread shows the cell again, where the hook ran: after the prompt, before the answer.
// With another project opened in the window, Settings → Hooks lists that project's own hooks. Through
// `weft serve`, screenshots at 1400×900 and 900×700.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { settingsLoadedAbove } from '../support/settings-sections';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { runWeftCli } from '../support/weft-cli';
import { makeTempWorkspace } from '../support/workspace';
import { conversation, screenshotSizes, sendMessage, startE2e, type E2e } from '../support/weft-serve';

const GUARD = `input=$(cat)
case "$input" in
  *BLOCKME*) echo "commands that mention BLOCKME are not allowed" >&2; exit 2 ;;
esac
echo "checked"
`;

let e2e: E2e | undefined;

afterEach(async () => {
  await e2e?.close();
  e2e = undefined;
});

describe('hooks in the UI', () => {
  it(
    'trusts a hook from Settings, then shows its run as a cell in the conversation',
    { timeout: 180_000 },
    async () => {
      e2e = await startE2e({
        viewport: { width: 1400, height: 900 },
        approvalPolicy: 'never',
        beforeServe: async ({ home }) => {
          await writeFile(join(home, 'guard.sh'), GUARD);
          const hooks = {
            hooks: {
              PreToolUse: [
                {
                  matcher: 'Bash',
                  hooks: [{ type: 'command', command: `/bin/sh ${join(home, 'guard.sh')}`, timeout: 10 }],
                },
              ],
            },
          };
          await writeFile(join(home, 'hooks.json'), JSON.stringify(hooks));
        },
      });
      const { page, mock, home } = e2e;

      await clickCentre(page, page.getByRole('button', { name: 'Settings', exact: true }));
      const settings = page.getByRole('dialog', { name: 'Settings' });
      const list = settings.getByRole('list', { name: 'Hooks' });
      const hook = list.getByRole('listitem').filter({ hasText: 'PreToolUse' });
      await hook.getByText('Not trusted: does not run', { exact: true }).waitFor();
      // The sections above it have loaded (they would move it), and the wheel brings it in.
      await settingsLoadedAbove(settings, 'hooks');
      await wheelIntoView(page, hook, settings.locator('.settings-body'));
      expect(await hook.textContent()).toContain(`/bin/sh ${join(home.dir, 'guard.sh')}`);
      expect(await hook.textContent()).toContain(join(home.dir, 'hooks.json'));
      await screenshotSizes(e2e, 'hooks-settings-untrusted', () =>
        wheelIntoView(page, hook, settings.locator('.settings-body')),
      );

      await clickCentre(page, hook.getByRole('button', { name: /^Trust the PreToolUse hook/ }));
      await hook.getByText('Trusted', { exact: true }).waitFor();
      expect(await readFile(join(home.dir, 'config.toml'), 'utf8')).toMatch(/trusted_hash = "sha256:[0-9a-f]{64}"/);
      await page.keyboard.press('Escape');
      await settings.waitFor({ state: 'detached' });

      mock.enqueueMany([
        {
          kind: 'sse',
          events: [evCreated(), evFunctionCall('call_1', 'exec_command', { cmd: 'echo BLOCKME' }), evCompleted()],
        },
        answerTurn('The hook stopped that command.'),
      ]);
      await sendMessage(page, 'RUN echo BLOCKME');
      const chat = conversation(page);
      await chat.getByText('The hook stopped that command.').waitFor();
      const cell = chat.locator('.hook-run.is-blocked');
      await cell.locator('.hook-run-said').getByText('commands that mention BLOCKME are not allowed').waitFor();
      expect(await cell.locator('summary').textContent()).toContain('hook: PreToolUse Blocked');
      await clickCentre(page, cell.locator('summary'));
      await cell
        .locator('.hook-run-details')
        .getByText(`/bin/sh ${join(home.dir, 'guard.sh')}`)
        .waitFor();
      expect(await cell.locator('summary').textContent()).toContain('exit 2');
      await screenshotSizes(e2e, 'hooks-cell');

      await clickCentre(page, page.getByRole('button', { name: 'Settings', exact: true }));
      const reopened = page.getByRole('dialog', { name: 'Settings' });
      const again = reopened.getByRole('list', { name: 'Hooks' });
      const ran = again.getByRole('listitem').filter({ hasText: 'PreToolUse' });
      await ran.getByText(/Last run .*: blocked in \d+ ms, exit 2/).waitFor();
      await settingsLoadedAbove(reopened, 'hooks');
      await wheelIntoView(page, ran, reopened.locator('.settings-body'));
      await screenshotSizes(e2e, 'hooks-settings-last-run', () =>
        wheelIntoView(page, ran, reopened.locator('.settings-body')),
      );
      await page.keyboard.press('Escape');

      // Reloaded: the run comes back from the rollout, placed where it ran (after the prompt, before the answer).
      await page.reload();
      await clickCentre(page, page.getByRole('button', { name: 'RUN echo BLOCKME', exact: true }));
      const answer = chat.getByText('The hook stopped that command.');
      await answer.waitFor();
      const replayed = chat.locator('.hook-run.is-blocked');
      await replayed.locator('.hook-run-said').getByText('commands that mention BLOCKME are not allowed').waitFor();
      const order = await chat.evaluate((root) => {
        const texts = [...root.querySelectorAll('.hook-run, .cell')].map((el) => el.textContent ?? '');
        return {
          prompt: texts.findIndex((t) => t.includes('RUN echo BLOCKME') && !t.includes('hook:')),
          hook: texts.findIndex((t) => t.includes('hook: PreToolUse')),
          answer: texts.findIndex((t) => t.includes('The hook stopped that command.')),
        };
      });
      expect(order.prompt).toBeGreaterThanOrEqual(0);
      expect(order.prompt < order.hook && order.hook < order.answer).toBe(true);
      await screenshotSizes(e2e, 'hooks-cell-reloaded');
    },
  );

  it(
    'Settings → Hooks lists the hooks of the project shown, not of the server’s folder',
    { timeout: 180_000 },
    async () => {
      e2e = await startE2e({ viewport: { width: 1400, height: 900 } });
      const { page, home } = e2e;
      const other = await makeTempWorkspace({ 'b.txt': 'the other project\n' });
      onTestFinished(() => other.cleanup());
      await mkdir(other.path('.weft'), { recursive: true });
      const check = `/bin/sh ${other.path('check.sh')}`;
      await writeFile(
        other.path('.weft/hooks.json'),
        JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: check }] }] } }),
      );
      expect((await runWeftCli(['config', 'trust'], { cwd: other.dir, weftHome: home.dir })).code).toBe(0);

      await clickCentre(page, page.getByRole('button', { name: 'Open folder', exact: true }));
      const picker = page.getByRole('dialog', { name: 'Open folder' });
      const field = picker.getByRole('combobox', { name: 'Folder path' });
      await clickCentre(page, field);
      await field.fill(other.dir);
      await field.press('Enter');
      await picker.waitFor({ state: 'detached' });

      await clickCentre(page, page.getByRole('button', { name: 'Settings', exact: true }));
      const list = page.getByRole('dialog', { name: 'Settings' }).getByRole('list', { name: 'Hooks' });
      const hook = list.getByRole('listitem').filter({ hasText: 'Stop' });
      await hook.getByText('Not trusted: does not run', { exact: true }).waitFor();
      expect(await hook.textContent()).toContain(check);
      expect(await hook.textContent()).toContain(other.path('.weft/hooks.json'));
    },
  );
});
