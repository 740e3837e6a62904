// E2E: a project on an environment is open in the switcher when the Weft there changes under it (here it
// becomes an old one: 0.0.3). The link drops, the page says "Reconnecting to box…" with why, and offers the
// same install as Open folder does ("Install Weft 0.1.0 on box", its steps and Cancel) right there; so does
// the page opened again, whose first request for box is refused. The
// environment is a real sshd on 127.0.0.1; which Weft answers there is chosen by a file in the remote HOME.
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { boxConfig, childProcesses, stopUserServer, WEFT_BIN } from '../support/environments';
import { startMockResponsesServer } from '../support/mock-responses-server';
import { clickCentre } from '../support/mouse';
import { sshdUnavailable, startSshd, TEST_HOST } from '../support/sshd';
import { makeTempWorkspace, makeWeftHome } from '../support/workspace';
import { SCREENSHOT_SIZES, startE2e } from '../support/weft-serve';

const unavailable = sshdUnavailable();
const oldWeft = require.resolve('../fixtures/environments/old-weft.mjs');

describe.skipIf(unavailable !== null)(
  `a project on an environment whose Weft changed${unavailable === null ? '' : ` (skipped: ${unavailable})`}`,
  () => {
    for (const size of SCREENSHOT_SIZES) {
      it(
        `offers the install where the page says it cannot reconnect (${size.width}×${size.height})`,
        { timeout: 240_000 },
        async () => {
          const sshd = await startSshd();
          onTestFinished(() => sshd.dispose());
          const remoteModel = await startMockResponsesServer();
          onTestFinished(() => remoteModel.close());
          const remoteUser = await makeTempWorkspace({ 'srv/remote-app/README.md': '# Remote\n' });
          onTestFinished(() => remoteUser.cleanup());
          const remoteHome = await makeWeftHome(boxConfig(remoteModel.url));
          onTestFinished(() => remoteHome.cleanup());
          onTestFinished(() => stopUserServer(remoteHome.dir));
          // The Weft there: this checkout's, or the old one once `$HOME/old` exists.
          const choose = join(remoteUser.dir, 'choose-weft.sh');
          await writeFile(
            choose,
            [
              `if [ -e "$HOME/old" ]; then exec "${process.execPath}" "${oldWeft}" "$@"; fi`,
              `exec "${process.execPath}" "${WEFT_BIN}" "$@"`,
              '',
            ].join('\n'),
          );
          const weft = [
            `PATH=${dirname(process.execPath)}:/usr/bin:/bin`,
            `HOME=${remoteUser.dir}`,
            `WEFT_HOME=${remoteHome.dir}`,
            'MOCK_API_KEY=sk-test',
            'OLD_WEFT_ATTACH=1',
            'sh',
            choose,
          ].join(' ');
          const e2e = await startE2e({
            viewport: size,
            files: { 'README.md': '# Local\n' },
            // Reconnect attempts come quickly.
            serveEnv: { WEFT_RELAY_MAX_DELAY_MS: '300' },
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

          // Box's Weft becomes an old one, and the link drops (the ssh between here and there ends).
          await writeFile(join(remoteUser.dir, 'old'), '');
          const children = await childProcesses(e2e.servePid());
          const lines = await Promise.all(
            children.map(([pid]) => readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')),
          );
          const pipes = children.filter((_, i) => lines[i]?.includes('app-server'));
          if (pipes.length !== 1) throw new Error(`expected one pipe to box, found ${pipes.length}`);
          for (const [pid] of pipes) process.kill(pid, 'SIGKILL');

          // Said where the page says it is reconnecting, with the install offered there.
          const banner = page.getByRole('status').filter({ hasText: 'Reconnecting to box…' });
          await banner
            .getByText('box runs Weft 0.0.3; this app needs 0.1.0 there.', { exact: false })
            .waitFor({ timeout: 60_000 });
          // Said once: the link's own message, which says the same, is left out beside the offer.
          expect(await banner.getByText('needs 0.1.x there', { exact: false }).count()).toBe(0);
          const install = banner.getByRole('button', { name: 'Install Weft 0.1.0 on box', exact: true });
          await install.waitFor();
          await e2e.screenshot(`environment-reinstall-offer-${size.width}x${size.height}`);

          // The same install as Open folder's: its steps as they come, and Cancel.
          await clickCentre(page, install);
          const steps = banner.getByRole('list', { name: 'Installing Weft on box' });
          await steps.getByText('Checking Node and npm on box…', { exact: true }).waitFor({ timeout: 30_000 });
          await e2e.screenshot(`environment-reinstall-progress-${size.width}x${size.height}`);
          await clickCentre(page, banner.getByRole('button', { name: 'Cancel', exact: true }));
          await banner
            .getByRole('alert')
            .getByText('The install failed:', { exact: false })
            .waitFor({ timeout: 30_000 });
          await banner.getByRole('button', { name: 'Install Weft 0.1.0 on box', exact: true }).waitFor();

          // The page opened again: its first request for box is refused, and the install is offered with why.
          await page.reload();
          const refused = page.getByRole('alert').filter({ hasText: 'Cannot use box.' });
          await refused
            .getByText('box runs Weft 0.0.3, and this Weft (0.1.0) needs 0.1.x there', { exact: false })
            .waitFor({ timeout: 60_000 });
          await refused.getByRole('button', { name: 'Install Weft 0.1.0 on box', exact: true }).waitFor();
          await e2e.screenshot(`environment-reinstall-refused-${size.width}x${size.height}`);
          await clickCentre(page, refused.getByRole('button', { name: 'Dismiss' }));
          await refused.waitFor({ state: 'detached' });
        },
      );
    }
  },
);
