// E2E: browser notifications and cost, through `weft serve`, by mouse. The person allows notifications in
// Settings, starts a thread that will need an approval and moves on to a new thread; the page loses the
// focus (another tab comes to the front) and the approval arrives: a Web Notification names the thread and
// the command, and clicking it brings the page back on that thread with the approval focused. Once it is
// answered the header shows what the thread cost, and Settings → Usage the day's tokens and cost.
//
// Headless Chromium shows no notification anyone could click, and Playwright has no handle on one. So an
// init script wraps `window.Notification` in a subclass that keeps every notification the page makes
// (`window.__weftNotifications`); the test reads what it says and clicks it by dispatching `click` on it,
// which runs the page's own `onclick`, as the browser does for a click on the real one. The page is
// "in the background" for real: Playwright's focus emulation is turned off for it (CDP
// `Emulation.setFocusEmulationEnabled`) and another tab is brought to the front, so `document.hasFocus()`
// is false until the page comes back to the front. Headless Chromium also shows no permission prompt (it
// answers "denied" at once): the init script's `requestPermission` first calls a binding through which the
// test grants the permission, as the person would by answering the prompt, then asks the real one.
import { describe, expect, it } from 'vitest';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { settingsLoadedAbove } from '../support/settings-sections';
import { createGate } from '../support/mock-responses-server';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { conversation, SCREENSHOT_SIZES, sendMessage, startE2e } from '../support/weft-serve';

const PRICES = '[model_prices."mock-model"]\ninput = 2\ncached_input = 0.5\noutput = 8\n';
const USAGE = { input_tokens: 1000, cached_tokens: 200, output_tokens: 100, reasoning_tokens: 30 };

/** Keeps each notification the page makes (see the header for why). */
const CAPTURE_NOTIFICATIONS = `
  (() => {
    const Original = window.Notification;
    if (Original === undefined) return;
    const made = [];
    class Kept extends Original {
      constructor(title, options) {
        super(title, options);
        made.push(this);
      }
    }
    // Headless Chromium asks nobody and answers "denied": the person's answer comes from the test instead.
    const ask = Original.requestPermission.bind(Original);
    Kept.requestPermission = () => window.__weftAnswerPermissionPrompt().then(() => ask());
    window.__weftNotifications = made;
    window.Notification = Kept;
  })();
`;

interface Seen {
  title: string;
  body: string;
  tag: string;
  silent: boolean | null;
}

describe('notifications and cost', () => {
  for (const viewport of SCREENSHOT_SIZES) {
    const size = `${viewport.width}x${viewport.height}`;
    it(
      `tells of an approval while the page is in the background, and opens it (${size})`,
      { timeout: 120_000 },
      async () => {
        const e2e = await startE2e({
          viewport,
          extraConfig: PRICES,
          beforeLoad: async (session, url) => {
            // The person's "Allow" to the browser's question (see the header for why it is a binding).
            await session.page.exposeBinding('__weftAnswerPermissionPrompt', () =>
              session.context.grantPermissions(['notifications'], { origin: new URL(url).origin }),
            );
            await session.page.addInitScript(CAPTURE_NOTIFICATIONS);
          },
        });
        const { page, mock, browser } = e2e;

        // Settings → Notifications: the Allow step; the person says yes to the browser's question.
        await clickCentre(page, page.getByRole('button', { name: 'Settings', exact: true }));
        const settings = page.getByRole('dialog', { name: 'Settings' });
        const allow = settings.getByRole('button', { name: 'Allow notifications' });
        // The sections above it have loaded (they would move it as they did), and the wheel brings it in.
        await settings.getByRole('combobox', { name: 'Default model' }).waitFor();
        await settings.getByLabel('Loading the providers').waitFor({ state: 'detached' });
        await wheelIntoView(page, allow, settings.locator('.settings-body'));
        await e2e.screenshot(`notifications-allow-step-${size}`);
        await clickCentre(page, allow);
        const inThisBrowser = settings.getByRole('checkbox', { name: /Notify me in this browser/ });
        await inThisBrowser.waitFor();
        expect(await inThisBrowser.isChecked()).toBe(true);
        expect(await settings.getByRole('checkbox', { name: 'An approval waits' }).isChecked()).toBe(true);
        await e2e.screenshot(`notifications-allowed-${size}`);
        await clickCentre(page, settings.getByRole('button', { name: 'Close' }));

        // A thread whose model asks to run a command; its answer is held until the page is in the background.
        const gate = createGate();
        mock.enqueueMany([
          {
            kind: 'sse-slow',
            events: [
              evCreated('r1'),
              gate,
              evFunctionCall('call_1', 'exec_command', { cmd: 'touch made-by-agent.txt' }),
              evCompleted('r1', USAGE),
            ],
          },
          { kind: 'sse', events: [evCreated('r2'), evAssistantMessage('Made the file.'), evCompleted('r2', USAGE)] },
        ]);
        await sendMessage(page, 'Make a file for the notification test');
        await conversation(page).getByText('Make a file for the notification test').waitFor();
        await mock.waitForRequest(1);
        // The person moves on to a new thread, then to another tab.
        await clickCentre(page, page.getByRole('button', { name: 'New thread' }));
        await page.getByRole('textbox', { name: 'Message' }).waitFor();
        const cdp = await browser.context.newCDPSession(page);
        await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
        const elsewhere = await browser.context.newPage();
        await elsewhere.bringToFront();
        expect(await page.evaluate(() => document.hasFocus())).toBe(false);

        gate.release();
        await page.waitForFunction(
          () => (window as unknown as { __weftNotifications: unknown[] }).__weftNotifications.length > 0,
        );
        const seen = await page.evaluate(() =>
          (window as unknown as { __weftNotifications: Notification[] }).__weftNotifications.map((n) => ({
            title: n.title,
            body: n.body,
            tag: n.tag,
            silent: n.silent,
          })),
        );
        expect(seen).toEqual<Seen[]>([
          {
            title: 'Make a file for the notification test',
            body: 'Approve the command: touch made-by-agent.txt',
            tag: expect.stringMatching(/^request-/),
            silent: true,
          },
        ]);

        // The person comes back by clicking the notification: the thread opens at its approval, focused.
        await page.bringToFront();
        await elsewhere.close();
        await page.evaluate(() =>
          (window as unknown as { __weftNotifications: Notification[] }).__weftNotifications[0]?.dispatchEvent(
            new Event('click'),
          ),
        );
        const approval = page.getByRole('dialog', { name: 'Approve command' });
        await approval.waitFor();
        await approval.getByText('touch made-by-agent.txt').first().waitFor();
        await page.waitForFunction(() => document.activeElement?.closest('[role="dialog"]') !== null);
        expect(await page.locator('.main-header h1').textContent()).toBe('Make a file for the notification test');
        await e2e.screenshot(`notification-opened-approval-${size}`);

        // Answered by mouse; the header then shows what the thread cost (2 × 2500 micro-dollars).
        await clickCentre(page, approval.getByRole('button', { name: 'Accept', exact: true }));
        await conversation(page).getByText('Made the file.').waitFor();
        // The turn ended while the page had the focus: nothing more was told.
        expect(
          await page.evaluate(
            () => (window as unknown as { __weftNotifications: Notification[] }).__weftNotifications.length,
          ),
        ).toBe(1);
        const cost = page.locator('.main-header .cost-chip');
        await expect.poll(() => cost.textContent()).toBe('$0.0050');
        expect(await cost.getAttribute('title')).toContain(
          'mock-model: $0.0050 for 2,000 in (400 cached), 200 out (60 reasoning)',
        );
        await e2e.screenshot(`cost-in-header-${size}`);

        // Settings → Usage: today's tokens and cost.
        await clickCentre(page, page.getByRole('button', { name: 'Settings', exact: true }));
        const table = settings.getByRole('table', { name: 'Tokens and cost per day' });
        await table.waitFor();
        await settingsLoadedAbove(settings, 'usage');
        await wheelIntoView(page, table, settings.locator('.settings-body'));
        const rows = await table.locator('tbody tr').allTextContents();
        expect(rows).toHaveLength(1);
        expect(await table.locator('tbody tr td').allTextContents()).toEqual([
          '2,000',
          '400',
          '0',
          '200',
          '60',
          '$0.0050',
        ]);
        await e2e.screenshot(`usage-in-settings-${size}`);
      },
    );
  }
});
