// The e2e harness's shared Chromium (test/support/chromium.ts, started with the browser tool's flags of
// src-main/browser/launch-settings.ts): a test's browser context runs its page and nothing else. Chromium
// opens the omnibox popup's WebUI (chrome://omnibox-popup.top-chrome/ and its AI-mode page) for every new
// window, here every context, in a renderer process of its own: about 0.6 s of CPU per test for a popup no
// test opens. The flags turn those features off, and since Chromium takes only the last `--disable-features`
// it is given, they repeat the features playwright-core turns off: none is lost.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openSession } from '../support/chromium';

/** The command lines (their arguments) of this process's Chromium browser processes, from /proc. */
function chromiumCommandLines(): string[][] {
  const lines: string[][] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
      if (parent !== String(process.pid)) continue;
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv.includes('--remote-debugging-pipe')) lines.push(argv);
    } catch {
      // Gone between the listing and the read.
    }
  }
  return lines;
}

describe('the e2e harness browser', () => {
  it("opens no omnibox popup WebUI for a test's context, and keeps every feature playwright-core turns off, off", async () => {
    const session = await openSession();
    try {
      await session.page.goto('data:text/html,<title>one</title><p>one page</p>');
      const cdp = await session.context.browser()?.newBrowserCDPSession();
      if (cdp === undefined) throw new Error('the shared browser is not connected');
      const { targetInfos } = await cdp.send('Target.getTargets', { filter: [{}] });
      await cdp.detach();
      const mine = targetInfos.filter(
        (t) => t.browserContextId === targetInfos.find((p) => p.type === 'page')?.browserContextId,
      );
      expect(mine.map((t) => `${t.type} ${t.url}`).sort()).toEqual([
        'page data:text/html,<title>one</title><p>one page</p>',
        'tab data:text/html,<title>one</title><p>one page</p>',
      ]);

      const [argv] = chromiumCommandLines();
      if (argv === undefined) throw new Error('no Chromium browser process of this test process in /proc');
      const lists = argv
        .filter((arg) => arg.startsWith('--disable-features='))
        .map((arg) => arg.slice('--disable-features='.length).split(','));
      // playwright-core's list comes first, the harness's last (the one Chromium keeps).
      expect(lists.length).toBeGreaterThanOrEqual(2);
      const kept = lists.at(-1) ?? [];
      for (const feature of lists.slice(0, -1).flat()) expect(kept).toContain(feature);
      expect(kept).toEqual(expect.arrayContaining(['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup']));
    } finally {
      await session.close();
    }
  });
});
