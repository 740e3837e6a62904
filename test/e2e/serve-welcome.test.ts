// E2E: `weft serve` started in a project folder without `--cd` opens that folder, as its help says; with
// no API key for the provider, both the project and the welcome screen (no project chosen) say so before
// anything is typed, and "Add API key" opens Settings at the key. Through `weft serve`, at 1400×900 and
// 900×700.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { launchBrowser } from '../support/chromium';
import { clickCentre } from '../support/mouse';
import { SCREENSHOT_DIR, SCREENSHOT_SIZES, startE2e } from '../support/weft-serve';

describe('weft serve without --cd, and the welcome screen', () => {
  for (const size of SCREENSHOT_SIZES) {
    it(`opens the current folder and says the key is missing (${size.width}×${size.height})`, async () => {
      const e2e = await startE2e({ viewport: size, noCd: true, serveEnv: { MOCK_API_KEY: undefined } });
      const { workspace } = e2e;
      // The printed address names the folder it was started in, and the page opens it.
      expect(new URL(e2e.url).searchParams.get('cwd')).toBe(workspace.dir);
      await expect.poll(() => e2e.page.locator('.project').getAttribute('title')).toBe(workspace.dir);
      await e2e.page.getByRole('status').filter({ hasText: 'No API key for Mock' }).waitFor();

      // The welcome screen says it too: another browser, never used with Weft, on the address without a
      // project.
      const welcome = new URL(e2e.url);
      welcome.searchParams.delete('cwd');
      const other = await launchBrowser({ viewport: size });
      onTestFinished(() => other.close());
      const page = other.page;
      await page.goto(welcome.toString());
      await page.getByRole('heading', { name: 'Welcome to Weft' }).waitFor();
      const notice = page.getByRole('status').filter({ hasText: 'No API key for Mock' });
      await notice.waitFor();
      expect(await notice.textContent()).toContain('MOCK_API_KEY is not set');
      await mkdir(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOT_DIR, `serve-welcome-no-key-${size.width}x${size.height}.png`) });
      await clickCentre(page, notice.getByRole('button', { name: 'Add API key' }));
      const keyBox = page
        .getByRole('dialog', { name: 'Settings' })
        .getByRole('group', { name: /Mock/ })
        .getByRole('textbox', { name: 'API key' });
      await expect.poll(() => keyBox.evaluate((el) => el === document.activeElement)).toBe(true);
    });
  }
});
