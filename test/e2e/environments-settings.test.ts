// E2E: Settings of a project on an environment are the environment's. A project opened through Open folder
// → box (a real sshd on 127.0.0.1, the remote with its own HOME and WEFT_HOME set in the `weft` string):
// Settings, opened with the mouse, say they are box's; a default changed there is written to the remote's
// config.toml, not this machine's; the MCP servers listed are box's; what belongs to this machine (the
// theme, this desktop's notifications) is marked as this machine's; and a change made once the link to box
// is gone says it was not saved there, keeping what was typed.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { boxConfig, childProcesses, remoteWeft, stopUserServer } from '../support/environments';
import { startMockResponsesServer } from '../support/mock-responses-server';
import { clickCentre, wheelIntoView } from '../support/mouse';
import { sshdUnavailable, startSshd, TEST_HOST } from '../support/sshd';
import { makeTempWorkspace, makeWeftHome } from '../support/workspace';
import { SCREENSHOT_SIZES, startE2e } from '../support/weft-serve';

const unavailable = sshdUnavailable();

describe.skipIf(unavailable !== null)(
  `Settings of a project on an environment${unavailable === null ? '' : ` (skipped: ${unavailable})`}`,
  () => {
    for (const size of SCREENSHOT_SIZES) {
      it(
        `read and write the environment's config.toml and say so (${size.width}×${size.height})`,
        { timeout: 240_000 },
        async () => {
          const sshd = await startSshd();
          onTestFinished(() => sshd.dispose());
          const remoteModel = await startMockResponsesServer();
          onTestFinished(() => remoteModel.close());
          const remoteUser = await makeTempWorkspace({ 'srv/remote-app/README.md': '# Remote\n' });
          onTestFinished(() => remoteUser.cleanup());
          const remoteHome = await makeWeftHome(
            boxConfig(remoteModel.url, {
              top: ['approval_policy = "untrusted"'],
              provider: 'Mock on box',
              tables: ['[mcp_servers.only-on-box]', 'command = "true"', 'enabled = false'],
            }),
          );
          onTestFinished(() => remoteHome.cleanup());
          onTestFinished(() => stopUserServer(remoteHome.dir));
          const e2e = await startE2e({
            viewport: size,
            files: { 'README.md': '# Local\n' },
            // A link that drops is tried again twice, quickly, then given up.
            serveEnv: { WEFT_RELAY_MAX_DELAY_MS: '300', WEFT_RELAY_MAX_ATTEMPTS: '2' },
            extraConfig: [
              '[environments.box]',
              `ssh = ${JSON.stringify(TEST_HOST)}`,
              `ssh_args = ["-F", ${JSON.stringify(sshd.clientConfig)}]`,
              `weft = ${JSON.stringify(`HOME=${remoteUser.dir} ${remoteWeft(remoteHome.dir)}`)}`,
              '',
            ].join('\n'),
          });
          onTestFinished(() => e2e.close());
          const { page } = e2e;
          const localConfigBefore = await readFile(join(e2e.home.dir, 'config.toml'), 'utf8');

          // Open folder → box → the project there.
          await clickCentre(page, page.getByRole('button', { name: 'Open folder', exact: true }));
          const picker = page.getByRole('dialog', { name: 'Open folder' });
          await clickCentre(
            page,
            picker.getByRole('group', { name: 'Where the folder is' }).getByRole('button', { name: 'box' }),
          );
          const field = picker.getByRole('combobox', { name: 'Folder path' });
          await clickCentre(page, field);
          await page.keyboard.type('~/srv/remote-app');
          await clickCentre(page, picker.getByRole('button', { name: 'Open', exact: true }));
          await picker.waitFor({ state: 'detached', timeout: 60_000 });
          const projects = page.getByRole('navigation', { name: 'Projects' });
          await projects.getByRole('button', { name: 'remote-app on box', exact: true }).waitFor();

          // Settings, with the mouse: named for box.
          await clickCentre(page, page.getByRole('button', { name: 'Settings', exact: true }));
          const dialog = page.getByRole('dialog', { name: 'Settings on box' });
          await dialog.waitFor();
          // The providers and the defaults are box's (its config.toml says "untrusted").
          await dialog.getByRole('group', { name: /Mock on box/ }).waitFor({ timeout: 30_000 });
          const approvals = dialog.getByRole('combobox', { name: 'Default approvals' });
          await expect.poll(() => approvals.inputValue(), { timeout: 30_000 }).toBe('untrusted');
          await e2e.screenshot(`environment-settings-${size.width}x${size.height}`);

          const scroller = dialog.locator('.settings-body');
          await wheelIntoView(page, approvals, scroller);
          await clickCentre(page, approvals);
          await approvals.selectOption({ label: 'Never ask' });
          await expect
            .poll(() => readFile(join(remoteHome.dir, 'config.toml'), 'utf8'), { timeout: 30_000 })
            .toContain('approval_policy = "never"');
          expect(await readFile(join(e2e.home.dir, 'config.toml'), 'utf8')).toBe(localConfigBefore);
          await expect.poll(() => approvals.inputValue()).toBe('never');

          // The MCP servers are box's.
          const mcp = dialog.getByRole('region', { name: 'MCP servers on box' });
          const boxServer = mcp.getByRole('listitem', { name: 'MCP server only-on-box' });
          await wheelIntoView(page, boxServer, scroller);
          await boxServer.waitFor({ timeout: 30_000 });

          // What is this machine's says so.
          const local = dialog.getByRole('region', { name: /^This machine/ });
          await wheelIntoView(page, local.getByRole('heading', { name: 'Notifications' }), scroller);
          await local.getByRole('heading', { name: 'Theme' }).waitFor();
          await local.getByRole('heading', { name: 'Notifications' }).waitFor();
          await e2e.screenshot(`environment-settings-this-machine-${size.width}x${size.height}`);

          // The link drops and cannot come back (box's sshd stopped): a base URL typed and saved is not
          // saved, says so naming box, and stays in its field; a default chosen says the same and shows box's
          // value still.
          await sshd.stop();
          const children = await childProcesses(e2e.servePid());
          const lines = await Promise.all(
            children.map(([pid]) => readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')),
          );
          for (const [pid] of children.filter((_, i) => lines[i]?.includes('app-server'))) process.kill(pid, 'SIGKILL');
          const remoteConfig = await readFile(join(remoteHome.dir, 'config.toml'), 'utf8');
          const mock = dialog.getByRole('group', { name: /Mock on box/ });
          const baseUrl = mock.getByRole('textbox', { name: 'Base URL' });
          await wheelIntoView(page, baseUrl, scroller);
          await clickCentre(page, baseUrl);
          await page.keyboard.press('Control+A');
          await page.keyboard.type('http://127.0.0.1:9/v1');
          await clickCentre(page, mock.getByRole('button', { name: 'Save URL' }));
          await mock
            .getByRole('alert')
            .getByText(/^Not saved on box: /)
            .waitFor({ timeout: 60_000 });
          expect(await baseUrl.inputValue()).toBe('http://127.0.0.1:9/v1');
          await wheelIntoView(page, approvals, scroller);
          await clickCentre(page, approvals);
          await approvals.selectOption({ label: 'Ask if the sandbox blocks' });
          const notSaved = dialog
            .getByRole('region', { name: 'Defaults for new threads on box' })
            .getByRole('alert')
            .getByText(/^Not saved on box: /);
          await notSaved.waitFor({ timeout: 60_000 });
          await expect.poll(() => approvals.inputValue()).toBe('never');
          await wheelIntoView(page, notSaved, scroller);
          await e2e.screenshot(`environment-settings-link-down-${size.width}x${size.height}`);
          expect(await readFile(join(remoteHome.dir, 'config.toml'), 'utf8')).toBe(remoteConfig);
          expect(await readFile(join(e2e.home.dir, 'config.toml'), 'utf8')).toBe(localConfigBefore);
        },
      );
    }
  },
);
