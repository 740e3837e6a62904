// E2E: Open folder on an environment whose Weft is old (it answers the handshake as 0.0.3), reached over
// a real sshd on 127.0.0.1. The dialog says so and offers "Install Weft 0.1.0 on box"; pressed with the
// mouse, the page's host packs this checkout (`npm pack`), copies it over ssh, installs it with npm under
// the remote HOME's .weft/remote/0.1.0, shows each step, points config.toml at it and opens the folder;
// a thread then runs there. The remote's HOME and WEFT_HOME are the test's (set in the `weft` string).
// The two window sizes share the remote's HOME (each has its own WEFT_HOME, project and page): the first
// installs into an empty ~/.weft/remote (npm builds node-pty there), the second installs over that
// install, as a person who presses Install again does (npm finds the same package in place: about 12 s
// of CPU less than a second install from nothing).
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { boxConfig, stopUserServer } from '../support/environments';
import { startMockResponsesServer } from '../support/mock-responses-server';
import { clickCentre } from '../support/mouse';
import { answerTurn } from '../support/sse';
import { sshdUnavailable, startSshd, TEST_HOST } from '../support/sshd';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace } from '../support/workspace';
import { conversation, SCREENSHOT_SIZES, sendMessage, startE2e } from '../support/weft-serve';

const unavailable = sshdUnavailable();
const oldWeft = require.resolve('../fixtures/environments/old-weft.mjs');

describe.skipIf(unavailable !== null)(
  `installing Weft on an environment from Open folder${unavailable === null ? '' : ` (skipped: ${unavailable})`}`,
  () => {
    /** The remote user's HOME, shared by both sizes: Weft goes under its .weft/remote. */
    let remoteUser: TempWorkspace;
    beforeAll(async () => {
      remoteUser = await makeTempWorkspace({ 'srv/remote-app/README.md': '# Remote\n' });
    });
    afterAll(async () => {
      await remoteUser.cleanup();
    });

    for (const size of SCREENSHOT_SIZES) {
      it(
        `offers the install, shows its steps, and opens the folder there once done (${size.width}×${size.height})`,
        { timeout: 300_000 },
        async () => {
          const sshd = await startSshd();
          onTestFinished(() => sshd.dispose());
          const remoteModel = await startMockResponsesServer();
          onTestFinished(() => remoteModel.close());
          const remoteHome = await makeWeftHome(boxConfig(remoteModel.url));
          onTestFinished(() => remoteHome.cleanup());
          onTestFinished(() => stopUserServer(remoteHome.dir));
          // npm's cache is the user's (the install prefers what it holds); node-pty is built with Node's
          // headers from /usr when this machine has them.
          const nodedir = existsSync('/usr/include/node/node_version.h') ? '/usr' : process.env['npm_config_nodedir'];
          const weft = [
            `PATH=${dirname(process.execPath)}:/usr/bin:/bin`,
            `HOME=${remoteUser.dir}`,
            'npm_config_offline=true',
            `npm_config_cache=${join(userInfo().homedir, '.npm')}`,
            ...(nodedir === undefined ? [] : [`npm_config_nodedir=${nodedir}`]),
            `WEFT_HOME=${remoteHome.dir}`,
            'MOCK_API_KEY=sk-test',
            'OLD_WEFT_ATTACH=1',
            process.execPath,
            oldWeft,
          ].join(' ');
          const packs = await mkdtemp(join(tmpdir(), 'weft-e2e-pack-'));
          onTestFinished(() => rm(packs, { recursive: true, force: true }));
          const e2e = await startE2e({
            viewport: size,
            files: { 'README.md': '# Local\n' },
            // npm pack writes its temporary folder under TMPDIR: one the test removes.
            serveEnv: { TMPDIR: packs },
            extraConfig: [
              '[environments.box]',
              `ssh = ${JSON.stringify(TEST_HOST)}`,
              `ssh_args = ["-F", ${JSON.stringify(sshd.clientConfig)}]`,
              `weft = ${JSON.stringify(weft)}`,
              '',
            ].join('\n'),
          });
          onTestFinished(() => e2e.close());
          const { page } = e2e;
          const remoteFolder = `${remoteUser.dir}/srv/remote-app`;

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

          // Explained, and the install offered.
          await picker
            .getByRole('alert')
            .getByText('box runs Weft 0.0.3, and this Weft (0.1.0) needs 0.1.x there', { exact: false })
            .waitFor({ timeout: 30_000 });
          const install = picker.getByRole('button', { name: 'Install Weft 0.1.0 on box', exact: true });
          await install.waitFor();
          await e2e.screenshot(`environment-install-offer-${size.width}x${size.height}`);

          await clickCentre(page, install);
          const steps = picker.getByRole('list', { name: 'Installing Weft on box' });
          await steps.getByText('Checking Node and npm on box…', { exact: true }).waitFor({ timeout: 30_000 });
          await picker.getByRole('button', { name: 'Cancel', exact: true }).waitFor();
          await steps.getByText(/^Installing with npm on box/).waitFor({ timeout: 120_000 });
          await e2e.screenshot(`environment-install-progress-${size.width}x${size.height}`);

          // Done: config.toml starts the installed Weft, and the folder opens there.
          await picker.waitFor({ state: 'detached', timeout: 180_000 });
          const projects = page.getByRole('navigation', { name: 'Projects' });
          await projects.getByRole('button', { name: 'remote-app on box', exact: true }).waitFor({ timeout: 30_000 });
          const config = await readFile(join(e2e.home.dir, 'config.toml'), 'utf8');
          expect(config).toContain(`${remoteUser.dir}/.weft/remote/0.1.0/node_modules/.bin/weft`);
          expect(config).not.toContain(oldWeft);

          // A thread there, on the installed Weft.
          remoteModel.enqueue(answerTurn('Ran on the installed Weft.'));
          await sendMessage(page, 'Hello box');
          await conversation(page)
            .getByText('Ran on the installed Weft.', { exact: true })
            .waitFor({ timeout: 60_000 });
          expect(existsSync(remoteFolder)).toBe(true);
          await e2e.screenshot(`environment-install-done-${size.width}x${size.height}`);
        },
      );
    }
  },
);
