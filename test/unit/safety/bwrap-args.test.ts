import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnoseBwrapFailure } from '../../../src-main/safety/sandbox/bwrap-diagnose';
import type { UsernsSettings } from '../../../src-main/safety/sandbox/bwrap-diagnose';
import { bwrapArgs, findBwrap, TRUSTED_BWRAP_DIRS } from '../../../src-main/safety/sandbox/linux-bwrap';

let base: string;
let ws: string;
let extra: string;
const env = { HOME: '/nonexistent-home' };
const ISOLATION = ['--new-session', '--die-with-parent', '--unshare-user', '--cap-drop', 'ALL', '--unshare-pid'];
const BASE_MOUNTS = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'weft-bwrap-args-')));
  ws = join(base, 'ws');
  extra = join(base, 'extra');
  await mkdir(join(ws, '.git'), { recursive: true });
  await writeFile(join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  await mkdir(join(ws, '.weft'), { recursive: true });
  await writeFile(join(ws, '.weft', 'config.toml'), '');
  await mkdir(join(base, 'real-agents', 'skills'), { recursive: true });
  await symlink(join(base, 'real-agents'), join(ws, '.agents'));
  await mkdir(join(extra, 'nested'), { recursive: true });
  await writeFile(join(extra, '.git'), 'gitdir: /somewhere/else\n');
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('bwrapArgs', () => {
  it('read-only: everything read-only, no network', async () => {
    expect((await bwrapArgs({ type: 'readOnly' }, ws, env)).args).toEqual([
      ...ISOLATION,
      '--unshare-net',
      ...BASE_MOUNTS,
      '--chdir',
      ws,
    ]);
  });

  it('read-only with network keeps the network namespace', async () => {
    expect(
      (await bwrapArgs({ type: 'readOnly', networkAccess: true }, ws, env, { chdir: join(ws, 'sub') })).args,
    ).toEqual([...ISOLATION, ...BASE_MOUNTS, '--chdir', join(ws, 'sub')]);
  });

  it('workspace-write: binds roots read-write, then re-binds protected paths read-only', async () => {
    const { args, release } = await bwrapArgs(
      {
        type: 'workspaceWrite',
        writableRoots: [extra, join(extra, 'nested')],
        excludeSlashTmp: true,
        excludeTmpdirEnvVar: true,
      },
      ws,
      env,
    );
    expect(args).toEqual([
      ...ISOLATION,
      '--unshare-net',
      ...BASE_MOUNTS,
      '--bind',
      ws,
      ws,
      '--bind',
      extra,
      extra,
      '--bind',
      join(extra, 'nested'),
      join(extra, 'nested'),
      // .agents is a symlink to a folder outside every root: read-only already, the link is skipped.
      '--ro-bind',
      join(ws, '.git'),
      join(ws, '.git'),
      '--ro-bind',
      join(ws, '.weft'),
      join(ws, '.weft'),
      // Missing .git/.agents/.weft in a configured root get an empty read-only placeholder.
      '--tmpfs',
      join(extra, '.agents'),
      '--remount-ro',
      join(extra, '.agents'),
      '--ro-bind',
      join(extra, '.git'),
      join(extra, '.git'),
      '--tmpfs',
      join(extra, '.weft'),
      '--remount-ro',
      join(extra, '.weft'),
      ...['.agents', '.git', '.weft'].flatMap((name) => [
        '--tmpfs',
        join(extra, 'nested', name),
        '--remount-ro',
        join(extra, 'nested', name),
      ]),
      '--chdir',
      ws,
    ]);
    await release();
    // The placeholders' folders were made for the command, and are gone with it.
    expect((await readdir(extra)).sort()).toEqual(['.git', 'nested']);
    expect(await readdir(join(extra, 'nested'))).toEqual([]);
  });

  it('binds /tmp and $TMPDIR unless excluded; a protected symlink target inside a root is re-bound', async () => {
    const tmpdirEnv = join(base, 'tmpdir');
    await mkdir(tmpdirEnv, { recursive: true });
    const { args, release } = await bwrapArgs({ type: 'workspaceWrite', writableRoots: [base] }, ws, {
      ...env,
      TMPDIR: tmpdirEnv,
    });
    await release();
    const pairs = args.map((arg, i) => `${arg} ${args[i + 1] ?? ''}`);
    expect(pairs).toContain(`--bind ${await realpath('/tmp')}`);
    expect(pairs).toContain(`--bind ${tmpdirEnv}`);
    // With `base` writable, the .agents symlink's target is inside a writable root.
    expect(pairs).toContain(`--ro-bind ${join(base, 'real-agents')}`);
  });

  it('a missing .git, .agents or .weft in the cwd gets an empty read-only placeholder, gone on release', async () => {
    const fresh = join(base, 'fresh');
    await mkdir(fresh);
    const launch = await bwrapArgs(
      { type: 'workspaceWrite', excludeSlashTmp: true, excludeTmpdirEnvVar: true, networkAccess: true },
      fresh,
      env,
    );
    expect(launch.args).toEqual([
      ...ISOLATION,
      ...BASE_MOUNTS,
      '--bind',
      fresh,
      fresh,
      '--tmpfs',
      join(fresh, '.agents'),
      '--remount-ro',
      join(fresh, '.agents'),
      '--tmpfs',
      join(fresh, '.git'),
      '--remount-ro',
      join(fresh, '.git'),
      '--tmpfs',
      join(fresh, '.weft'),
      '--remount-ro',
      join(fresh, '.weft'),
      '--chdir',
      fresh,
    ]);
    // Made just now, each holding this process's lease (the sandbox sees them empty: the tmpfs hides it).
    expect((await readdir(fresh)).sort()).toEqual(['.agents', '.git', '.weft']);
    for (const name of ['.agents', '.git', '.weft'])
      expect(await readdir(join(fresh, name))).toEqual([expect.stringMatching(/^\.weft-sandbox-placeholder\./)]);
    await launch.release();
    await launch.release();
    expect(await readdir(fresh)).toEqual([]);
  });

  it('an empty existing folder gets a placeholder too, and stays; one with content is bound as it is', async () => {
    const mixed = join(base, 'mixed');
    await mkdir(join(mixed, '.weft'), { recursive: true });
    await mkdir(join(mixed, '.agents', 'skills'), { recursive: true });
    const launch = await bwrapArgs(
      { type: 'workspaceWrite', excludeSlashTmp: true, excludeTmpdirEnvVar: true },
      mixed,
      env,
    );
    const pairs = launch.args.map((arg, i) => `${arg} ${launch.args[i + 1] ?? ''}`);
    expect(pairs).toContain(`--ro-bind ${join(mixed, '.agents')}`);
    expect(pairs).toContain(`--tmpfs ${join(mixed, '.weft')}`);
    expect(pairs).toContain(`--tmpfs ${join(mixed, '.git')}`);
    expect(await readdir(join(mixed, '.weft'))).toEqual([expect.stringMatching(/^\.weft-sandbox-in-use\./)]);
    await launch.release();
    expect((await readdir(mixed)).sort()).toEqual(['.agents', '.weft']);
    expect(await readdir(join(mixed, '.weft'))).toEqual([]);
    expect(await readdir(join(mixed, '.agents'))).toEqual(['skills']);
  });

  it('refuses danger-full-access (it runs without bwrap)', async () => {
    await expect(bwrapArgs({ type: 'dangerFullAccess' }, ws, env)).rejects.toThrow(/without bwrap/);
  });
});

describe('findBwrap', () => {
  it('only returns a bwrap from a trusted system folder', () => {
    const found = findBwrap();
    if (found !== null) expect(TRUSTED_BWRAP_DIRS.map((dir) => `${dir}/bwrap`)).toContain(found);
    expect(TRUSTED_BWRAP_DIRS).toEqual(['/usr/bin', '/bin', '/usr/local/bin']);
  });
});

describe('diagnoseBwrapFailure', () => {
  const plain: UsernsSettings = {
    apparmorRestrict: null,
    unprivilegedClone: null,
    maxUserNamespaces: '15000',
    kernelVersion: 'Linux version 6.8',
  };

  it('not installed', () => {
    expect(diagnoseBwrapFailure(null, plain)).toMatchObject({
      reason: 'bubblewrap (bwrap) is not installed, so Weft cannot sandbox commands.',
      fix: expect.stringContaining('sudo apt-get install -y bubblewrap'),
    });
  });

  it('user namespaces blocked by AppArmor', () => {
    const result = diagnoseBwrapFailure('bwrap: setting up uid map: Permission denied', {
      ...plain,
      apparmorRestrict: '1',
    });
    expect(result.reason).toBe(
      'user namespaces are blocked, so bwrap cannot create a sandbox: bwrap: setting up uid map: Permission denied',
    );
    expect(result.fix).toContain('/etc/apparmor.d/bwrap');
    expect(result.fix).toContain('apparmor_parser -r');
  });

  it('user namespaces disabled by sysctl', () => {
    const stderr =
      'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.';
    expect(diagnoseBwrapFailure(stderr, { ...plain, unprivilegedClone: '0' }).fix).toContain(
      'kernel.unprivileged_userns_clone=1',
    );
    expect(diagnoseBwrapFailure(stderr, { ...plain, maxUserNamespaces: '0' }).fix).toContain(
      'user.max_user_namespaces=15000',
    );
    expect(diagnoseBwrapFailure(stderr, plain).fix).toContain('seccomp=unconfined');
  });

  it('network namespace setup, WSL1 and unknown failures', () => {
    expect(diagnoseBwrapFailure('bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted', plain).reason).toMatch(
      /network namespace/,
    );
    expect(
      diagnoseBwrapFailure('x', { ...plain, kernelVersion: 'Linux version 4.4.0-19041-Microsoft' }).reason,
    ).toMatch(/WSL1/);
    expect(diagnoseBwrapFailure('bwrap: something odd', plain)).toMatchObject({
      reason: 'bwrap failed: bwrap: something odd',
    });
  });
});
