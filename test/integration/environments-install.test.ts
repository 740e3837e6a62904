// Installing this Weft on an environment, for real: over the test sshd, a remote whose `weft` is an old
// Weft (it answers the handshake as 0.0.3) gets the package `npm pack` makes of this checkout, copied over
// ssh and installed with npm under the remote HOME's .weft/remote/<version>; config.toml is pointed at it,
// then `check` passes and a thread runs there. A remote whose Node is too old, or missing, is refused
// before anything is copied. The remote's HOME is the test's (set in the `weft` string, as a person may set
// variables there), so nothing lands in this machine's real home; npm's cache is the user's (`--prefer-offline`).
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packThis } from '../../src-main/server/remote-install';
import { stopUserServer, WEFT_BIN } from '../support/environments';
import { StdioRpcClient } from '../support/rpc-client';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { evAssistantMessage, evCompleted, evCreated, evOutputTextDelta } from '../support/sse';
import { runWeftCli } from '../support/weft-cli';
import { sshdUnavailable, startSshd, TEST_HOST, type TestSshd } from '../support/sshd';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const unavailable = sshdUnavailable();
const oldWeft = require.resolve('../fixtures/environments/old-weft.mjs');
const toml = (value: string): string => JSON.stringify(value);

let sshd: TestSshd;
let server: MockResponsesServer;
let project: TempWorkspace;
let remote: WeftHome;
let local: WeftHome;
/** The remote user's HOME (the install goes under it), a folder with a `node` too old, and the tarball's. */
let scratch: string;
let tarball: string;

beforeAll(async () => {
  if (unavailable !== null) return;
  sshd = await startSshd();
  server = await startMockResponsesServer();
  project = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  scratch = await mkdtemp(join(tmpdir(), 'weft-install-'));
  await mkdir(join(scratch, 'home'));
  await mkdir(join(scratch, 'old-node'));
  await writeFile(join(scratch, 'old-node', 'node'), '#!/bin/sh\necho v18.19.0\n');
  await chmod(join(scratch, 'old-node', 'node'), 0o755);
  // The old Weft as a program named `weft`, for the `command` form (as `kubectl exec -i pod -- weft …`).
  await mkdir(join(scratch, 'bin'));
  await copyFile(oldWeft, join(scratch, 'bin', 'weft'));
  await chmod(join(scratch, 'bin', 'weft'), 0o755);
  // The package the install makes of this (built) checkout when none is given: its tree locked by the
  // checkout's package-lock.json, so npm there needs nothing but its cache.
  tarball = await packThis();
  remote = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  const ssh = [`ssh = ${toml(TEST_HOST)}`, `ssh_args = [${toml('-F')}, ${toml(sshd.clientConfig)}]`];
  const home = join(scratch, 'home');
  const node = dirname(process.execPath);
  // node-pty has no Linux prebuilds: npm builds it there, with Node's headers from this folder when the
  // machine has them (else node-gyp downloads them).
  const nodedir = existsSync('/usr/include/node/node_version.h') ? '/usr' : process.env['npm_config_nodedir'];
  const npmEnv = `npm_config_offline=true npm_config_cache=${join(userInfo().homedir, '.npm')}${nodedir === undefined ? '' : ` npm_config_nodedir=${nodedir}`}`;
  local = await makeWeftHome(
    [
      '# environments of the install test',
      '[environments.stale]',
      ...ssh,
      `weft = ${toml(`PATH=${node}:/usr/bin:/bin HOME=${home} ${npmEnv} WEFT_HOME=${remote.dir} MOCK_API_KEY=sk-test OLD_WEFT_ATTACH=1 ${process.execPath} ${oldWeft}`)}`,
      '[environments.cancelled]',
      ...ssh,
      `weft = ${toml(`PATH=${node}:/usr/bin:/bin HOME=${join(scratch, 'home-cancelled')} ${npmEnv} ${process.execPath} ${oldWeft}`)}`,
      '[environments.piped]',
      `command = ${JSON.stringify([
        'env',
        `PATH=${node}:/usr/bin:/bin`,
        `HOME=${home}`,
        ...npmEnv.split(' '),
        `WEFT_HOME=${remote.dir}`,
        'MOCK_API_KEY=sk-test',
        'OLD_WEFT_ATTACH=1',
        join(scratch, 'bin', 'weft'),
        'app-server',
        '--attach',
      ])}`,
      '[environments.oldnode]',
      ...ssh,
      `weft = ${toml(`PATH=${join(scratch, 'old-node')}:/usr/bin:/bin HOME=${home} /nonexistent/weft`)}`,
      '[environments.nonode]',
      ...ssh,
      `weft = ${toml(`PATH=/nonexistent HOME=${home} /nonexistent/weft`)}`,
      '',
    ].join('\n'),
  );
}, 120_000);

afterAll(async () => {
  if (unavailable !== null) return;
  await stopUserServer(remote.dir);
  await sshd.dispose();
  await server.close();
  await project.cleanup();
  await remote.cleanup();
  await local.cleanup();
  await rm(scratch, { recursive: true, force: true });
  await rm(dirname(tarball), { recursive: true, force: true });
});

const cli = (...args: string[]) => runWeftCli(args, { cwd: local.dir, weftHome: local.dir });

describe.skipIf(unavailable !== null)(
  `installing Weft on an environment${unavailable === null ? '' : ` (skipped: ${unavailable})`}`,
  () => {
    it('refuses a remote whose Node is too old or missing, before copying anything', async () => {
      const config = await readFile(join(local.dir, 'config.toml'), 'utf8');
      const old = await cli('environments', 'install', 'oldnode', '--package', tarball);
      expect(old.code).toBe(1);
      expect(old.stderr).toContain(
        "oldnode runs Node v18.19.0, and Weft 0.1.0 needs Node 22.12.0 or later (package.json's engines): install a newer Node there (or put its folder on the PATH in `weft`",
      );
      const none = await cli('environments', 'install', 'nonode', '--package', tarball);
      expect(none.code).toBe(1);
      expect(none.stderr).toContain('nonode has no `node` on its PATH: install Node 22.12.0 or later there');
      expect(await readdir(join(scratch, 'home'))).toEqual([]);
      expect(await readFile(join(local.dir, 'config.toml'), 'utf8')).toBe(config);
    });

    it('an install asked of the app server shows its steps and stops when cancelled, leaving config.toml as it was', async () => {
      const config = await readFile(join(local.dir, 'config.toml'), 'utf8');
      const client = StdioRpcClient.start(
        { WEFT_HOME: local.dir, MOCK_API_KEY: 'sk-test', WEFT_INSTALL_PACKAGE: tarball },
        local.dir,
        WEFT_BIN,
      );
      try {
        await client.initialize();
        const answer = client.call('weft/environment/install', { environment: 'cancelled' });
        const installing = await client.notification(
          'weft/environment/install/progress',
          (p) => p['stage'] === 'install',
        );
        // What npm takes there: the package made of this checkout pins the tree this Weft was tested with.
        expect(installing['message']).toBe(
          "Installing with npm on cancelled: the dependency versions this Weft was tested with (its npm-shrinkwrap.json), from npm's cache there or the registry…",
        );
        expect(await client.request('weft/environment/install/cancel', { environment: 'cancelled' })).toEqual({
          cancelled: true,
        });
        const response = await answer;
        expect(response.error?.message).toBe('cancelled while installing Weft on cancelled');
        expect(response.error?.data).toEqual({ stage: 'install' });
        const steps = client.notifications('weft/environment/install/progress').map((p) => p['stage']);
        expect(steps.slice(0, 2)).toEqual(['node', 'node']);
        expect(steps).toContain('upload');
        // Nothing more to cancel; config.toml untouched.
        expect(await client.request('weft/environment/install/cancel', { environment: 'cancelled' })).toEqual({
          cancelled: false,
        });
        expect(await readFile(join(local.dir, 'config.toml'), 'utf8')).toBe(config);
      } finally {
        await client.close();
      }
    }, 120_000);

    it('installs from a tarball over ssh and points the environment at it; then check passes and a thread runs there', async () => {
      const before = await cli('environments', 'check', 'stale');
      expect(before.code).toBe(1);
      expect(before.stdout).toContain('stale runs Weft 0.0.3, and this Weft (0.1.0) needs 0.1.x there');
      expect(before.stdout).toContain(`  node for Weft 0.1.0 (22.12.0 or later): yes, v${process.versions.node}`);
      expect(before.stdout).toContain('  fix: `weft environments install stale` installs Weft 0.1.0 there');

      const started = Date.now();
      const installed = await cli('environments', 'install', 'stale', '--package', tarball);
      const took = Date.now() - started;
      expect(installed.stderr).toBe('');
      expect(installed.code).toBe(0);
      const directory = join(scratch, 'home', '.weft', 'remote', '0.1.0');
      expect(installed.stdout).toContain(`stale runs Node v${process.versions.node} and npm `);
      expect(installed.stdout).toContain(`to stale:${directory}`);
      expect(installed.stdout).toContain('Installing with npm on stale');
      expect(installed.stdout).toContain(`Weft 0.1.0 is installed on stale in ${directory}.`);
      // Its variables kept, the command now the installed one; the file's comment kept.
      const config = await readFile(join(local.dir, 'config.toml'), 'utf8');
      expect(config).toContain('# environments of the install test');
      expect(config).toContain(`${directory}/node_modules/.bin/weft`);
      expect(config).toContain(
        `WEFT_HOME=${remote.dir} MOCK_API_KEY=sk-test OLD_WEFT_ATTACH=1 ${directory}/node_modules/.bin/weft"`,
      );
      // The environment installed to no longer starts the old Weft (another one of the file still does).
      const stale = config.slice(config.indexOf('[environments.stale]'), config.indexOf('[environments.cancelled]'));
      expect(stale).toContain(`${directory}/node_modules/.bin/weft`);
      expect(stale).not.toContain(oldWeft);
      expect(await readdir(directory)).toEqual(expect.arrayContaining(['weft-0.1.0.tgz', 'node_modules']));
      process.stderr.write(`environments-install: the install took ${took} ms (npm offline, from its cache)\n`);

      const after = await cli('environments', 'check', 'stale');
      expect(after.stdout).toContain(
        `  weft: 0.1.0 (this one: 0.1.0); node ${process.versions.node}; WEFT_HOME ${remote.dir}`,
      );
      expect(after.code).toBe(0);

      server.enqueue({
        kind: 'sse',
        events: [evCreated(), evOutputTextDelta('ran there'), evAssistantMessage('ran there'), evCompleted()],
      });
      const run = await cli('exec', '--env', 'stale', '-C', project.dir, 'hello');
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: 'ran there\n' });
    }, 300_000);

    it('installs through a `command` environment: the program before its `weft` runs the install, and `weft` is replaced', async () => {
      const before = await cli('environments', 'check', 'piped');
      expect(before.code).toBe(1);
      expect(before.stdout).toContain('  fix: `weft environments install piped` installs Weft 0.1.0 there');
      const installed = await cli('environments', 'install', 'piped', '--package', tarball);
      expect(installed.stderr).toBe('');
      expect(installed.code).toBe(0);
      const bin = join(scratch, 'home', '.weft', 'remote', '0.1.0', 'node_modules', '.bin', 'weft');
      const config = await readFile(join(local.dir, 'config.toml'), 'utf8');
      expect(config).toContain(
        `${JSON.stringify('OLD_WEFT_ATTACH=1')}, ${JSON.stringify(bin)}, "app-server", "--attach"]`,
      );
      const after = await cli('environments', 'check', 'piped');
      expect(after.stdout).toContain('  weft: 0.1.0 (this one: 0.1.0)');
      expect(after.code).toBe(0);
    }, 300_000);
  },
);
