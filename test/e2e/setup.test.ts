// E2E: setting Weft up from the UI: no key → told before typing → Settings → key saved → the next turn
// uses it; defaults and remembered approvals; keyboard use of the dialogs.
import { describe, expect, it } from 'vitest';
import { answerTurn } from '../support/sse';
import { conversation, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

let e2e: E2e | undefined;

const RULES =
  '[[rule]]\nid = "r-npm"\npattern = ["npm", "test"]\ndecision = "allow"\ncreated_at = "2026-11-20T10:00:00Z"\n';

describe('set-up from the UI', () => {
  it(
    'says a key is missing before anything is typed, and a key saved in Settings is used by the next turn',
    { timeout: 90_000 },
    async () => {
      e2e = await startE2e({
        serveEnv: { MOCK_API_KEY: undefined },
        viewport: { width: 1400, height: 900 },
        homeFiles: { 'rules/default.toml': RULES },
      });
      const { page, mock, home } = e2e;
      const notice = page.getByRole('status').filter({ hasText: 'No API key for Mock' });
      await notice.waitFor();
      expect(await notice.textContent()).toContain('MOCK_API_KEY is not set');
      await e2e.screenshot('setup-no-key-1400');
      // Start-up ends with the chunks conversations use loaded when the page is idle; the app's own code
      // is marked for compiling as it streams in (V8's compile hint, first line of the entry script).
      await page.locator('html[data-warm]').waitFor({ state: 'attached' });
      // The warm-up's editor (made off screen to set Monaco up) is gone again.
      expect(await page.locator('.monaco-editor, .monaco-diff-editor').count()).toBe(0);
      const entry = await page.evaluate(async () => {
        const script = document.querySelector<HTMLScriptElement>('script[type="module"][src]');
        return script ? (await (await fetch(script.src)).text()).slice(0, 40) : '';
      });
      expect(entry.split('\n')[0]).toBe('//# allFunctionsCalledOnLoad');

      // Sending anyway fails with a message that names the config file.
      await sendMessage(page, 'Hello?');
      await conversation(page)
        .getByText(/MOCK_API_KEY is not set/)
        .waitFor();
      expect(await conversation(page).getByText(`${home.dir}/config.toml`, { exact: false }).count()).toBeGreaterThan(
        0,
      );
      expect(mock.requests).toHaveLength(0);

      await notice.getByRole('button', { name: 'Add API key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      await dialog.waitFor();
      const mockGroup = dialog.getByRole('group', { name: /Mock/ });
      const keyBox = mockGroup.getByRole('textbox', { name: 'API key' });
      await expect.poll(() => keyBox.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(await mockGroup.getByText('Not set').count()).toBe(1);
      await keyBox.fill('sk-e2e-key');
      await mockGroup.getByRole('button', { name: 'Save', exact: true }).click();
      await mockGroup.getByText('Key saved. The next turn uses it.').waitFor();
      await mockGroup.getByText('Set (saved in Weft)').waitFor();
      expect(await keyBox.inputValue()).toBe('');
      expect(await page.content()).not.toContain('sk-e2e-key');

      // Remembered approvals, with their origin, revoked with one click.
      const rules = dialog.getByRole('list', { name: 'Remembered approvals' });
      await rules.getByText('npm test').waitFor();
      expect(await rules.textContent()).toContain('default.toml:1');
      await rules.getByRole('button', { name: 'Revoke npm test' }).click();
      await dialog.getByText('None yet.', { exact: false }).waitFor();

      // Defaults: a risky choice is called out.
      await dialog.getByRole('combobox', { name: 'Default approvals' }).selectOption({ label: 'Never ask' });
      await dialog.getByRole('alert').filter({ hasText: 'Full access with Never ask' }).waitFor();
      await e2e.screenshot('setup-settings-1400');
      await page.setViewportSize({ width: 900, height: 700 });
      await e2e.screenshot('setup-settings-900');

      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await notice.count()).toBe(0);

      mock.enqueue(answerTurn('Hello from the mock.'));
      await sendMessage(page, 'Hello again');
      await conversation(page).getByText('Hello from the mock.').waitFor();
      expect(mock.requests[0]?.headers['authorization']).toBe('Bearer sk-e2e-key');
      await e2e.screenshot('setup-key-used-900');
    },
  );

  it(
    'traps focus in Settings, closes it with Esc and returns focus to the Settings button',
    { timeout: 60_000 },
    async () => {
      e2e = await startE2e({ viewport: { width: 1400, height: 900 } });
      const { page } = e2e;
      const button = page.getByRole('button', { name: 'Settings', exact: true });
      await button.click();
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      await dialog.waitFor();
      const inside = () =>
        page.evaluate(
          () =>
            document.activeElement?.closest('[role="dialog"]')?.getAttribute('aria-labelledby') !== undefined &&
            document.activeElement?.closest('[role="dialog"]') !== null,
        );
      expect(await inside()).toBe(true);
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        expect(await inside()).toBe(true);
      }
      await page.keyboard.press('Shift+Tab');
      expect(await inside()).toBe(true);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await button.evaluate((el) => el === document.activeElement)).toBe(true);
    },
  );

  it(
    'refuses a folder that does not exist, completes paths, and lets Recent entries be removed',
    { timeout: 60_000 },
    async () => {
      e2e = await startE2e({
        viewport: { width: 1400, height: 900 },
        files: { 'README.md': '# Demo\n', 'src/app.ts': 'x\n', 'scripts/run.sh': 'y\n' },
      });
      const { page, workspace } = e2e;
      const opener = page.getByRole('button', { name: 'Open folder' });
      await opener.click();
      const dialog = page.getByRole('dialog', { name: 'Open folder' });
      await dialog.waitFor();
      const field = dialog.getByRole('combobox', { name: 'Folder path' });
      await field.fill(`${workspace.dir}/s`);
      await expect
        .poll(() => dialog.locator('datalist option').evaluateAll((els) => els.map((el) => el.getAttribute('value'))))
        .toEqual([`${workspace.dir}/scripts`, `${workspace.dir}/src`]);

      await field.fill(`${workspace.dir}/no-such-folder`);
      await field.press('Enter');
      await dialog
        .getByRole('alert')
        .filter({ hasText: `${workspace.dir}/no-such-folder does not exist.` })
        .waitFor();
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      const recent = dialog.getByRole('list');
      expect(await recent.getByRole('listitem').count()).toBe(1);
      await e2e.screenshot('open-folder-missing-1400');

      await dialog.getByRole('button', { name: `Remove ${workspace.dir} from Recent` }).click();
      expect(await dialog.getByRole('listitem').count()).toBe(0);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await opener.evaluate((el) => el === document.activeElement)).toBe(true);
    },
  );
});
