// E2E: `weft serve` keeps its token across restarts (WEFT_HOME/serve-token), and when it was restarted
// with a new one the page says so instead of "could not connect". The page loads with no CSP errors.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

let e2e: E2e | undefined;

describe('weft serve token', () => {
  it(
    'keeps the token across a restart, and names a new token as the reason the page cannot connect',
    { timeout: 90_000 },
    async () => {
      e2e = await startE2e({ serveArgs: ['--port', '0'], viewport: { width: 1400, height: 900 } });
      const { page, home, browser } = e2e;
      const first = new URL(e2e.url);
      const kept = (await readFile(join(home.dir, 'serve-token'), 'utf8')).trim();
      expect(first.searchParams.get('token')).toBe(kept);
      expect(browser.errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);

      // Same port, kept token: the open page reconnects by itself.
      const again = new URL(await e2e.startServeAgain(['--port', first.port]));
      expect(again.searchParams.get('token')).toBe(kept);
      await page.getByRole('status').filter({ hasText: 'reconnecting' }).waitFor({ state: 'detached' });
      await page.getByRole('navigation', { name: 'Threads' }).waitFor();
      expect(await page.getByRole('alert').filter({ hasText: 'Could not reach' }).count()).toBe(0);

      // A new token: the page says what happened and what to do, after one attempt, not five.
      const renewed = new URL(await e2e.startServeAgain(['--port', first.port, '--new-token']));
      expect(renewed.searchParams.get('token')).not.toBe(kept);
      expect((await readFile(join(home.dir, 'serve-token'), 'utf8')).trim()).toBe(renewed.searchParams.get('token'));
      const alert = page.getByRole('alert').filter({ hasText: 'Weft restarted with a new access token' });
      await alert.waitFor();
      expect(await alert.textContent()).toContain('weft serve');
      expect(await page.getByText(/Could not reach Weft after/).count()).toBe(0);
      await e2e.screenshot('serve-new-token-1400');
      await page.setViewportSize({ width: 900, height: 700 });
      await e2e.screenshot('serve-new-token-900');

      // The new address works.
      await page.goto(renewed.toString());
      await page.getByRole('navigation', { name: 'Threads' }).waitFor();
      expect(await page.getByRole('alert').filter({ hasText: 'new access token' }).count()).toBe(0);
      expect(browser.errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
    },
  );
});
