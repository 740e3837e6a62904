import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seatbeltArgv, seatbeltProfile } from '../../../src-main/safety/sandbox/seatbelt';

let ws: string;
let extra: string;
const env = { HOME: '/nonexistent-home' };

beforeAll(async () => {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'weft-seatbelt-')));
  ws = join(base, 'ws');
  extra = join(base, 'extra');
  await mkdir(join(ws, '.git'), { recursive: true });
  await mkdir(extra);
});

afterAll(async () => {
  await rm(join(ws, '..'), { recursive: true, force: true });
});

describe('seatbeltProfile', () => {
  it('adds the roots a commit in the thread’s own worktree writes, with their read-only paths', () => {
    const { params } = seatbeltProfile(
      { type: 'workspaceWrite', excludeSlashTmp: true, excludeTmpdirEnvVar: true },
      ws,
      env,
      [],
      [{ root: extra, readOnlySubpaths: [join(extra, 'HEAD')] }],
    );
    expect(params).toEqual({
      WRITABLE_ROOT_0: ws,
      WRITABLE_ROOT_0_RO_0: join(ws, '.agents'),
      WRITABLE_ROOT_0_RO_1: join(ws, '.git'),
      WRITABLE_ROOT_0_RO_2: join(ws, '.weft'),
      WRITABLE_ROOT_1: extra,
      WRITABLE_ROOT_1_RO_0: join(extra, 'HEAD'),
    });
  });

  it('workspace-write without network: writes under the roots minus protected paths', () => {
    const { profile, params } = seatbeltProfile(
      { type: 'workspaceWrite', writableRoots: [extra], excludeSlashTmp: true, excludeTmpdirEnvVar: true },
      ws,
      env,
    );
    expect(params).toEqual({
      WRITABLE_ROOT_0: ws,
      WRITABLE_ROOT_0_RO_0: join(ws, '.agents'),
      WRITABLE_ROOT_0_RO_1: join(ws, '.git'),
      WRITABLE_ROOT_0_RO_2: join(ws, '.weft'),
      WRITABLE_ROOT_1: extra,
      WRITABLE_ROOT_1_RO_0: join(extra, '.agents'),
      WRITABLE_ROOT_1_RO_1: join(extra, '.git'),
      WRITABLE_ROOT_1_RO_2: join(extra, '.weft'),
    });
    expect(profile).toMatchInlineSnapshot(`
      "(version 1)
      ; Weft sandbox: deny by default.
      (deny default)

      ; Run programs; signal and inspect only processes of this sandbox.
      (allow process-exec)
      (allow process-fork)
      (allow signal (target same-sandbox))
      (allow process-info* (target same-sandbox))

      ; Read any file.
      (allow file-read*)

      ; Devices ordinary tools write to, and terminals.
      (allow file-write-data file-ioctl
        (literal "/dev/null")
        (literal "/dev/zero")
        (literal "/dev/tty")
        (literal "/dev/dtracehelper"))
      (allow pseudo-tty)
      (allow file-read* file-write* file-ioctl
        (literal "/dev/ptmx")
        (regex #"^/dev/ttys[0-9]+$"))

      ; System information and services the C library and common runtimes use.
      (allow sysctl-read)
      (allow user-preference-read)
      (allow ipc-posix-sem)
      (allow ipc-posix-shm-read* ipc-posix-shm-write-create ipc-posix-shm-write-data)
      (allow mach-lookup
        (global-name "com.apple.system.opendirectoryd.libinfo")
        (global-name "com.apple.system.notification_center")
        (global-name "com.apple.PowerManagement.control")
        (global-name "com.apple.cfprefsd.daemon")
        (global-name "com.apple.cfprefsd.agent")
        (global-name "com.apple.logd"))

      ; Writable roots, minus their protected paths.
      (allow file-write*
        (require-all
          (subpath (param "WRITABLE_ROOT_0"))
          (require-not (subpath (param "WRITABLE_ROOT_0_RO_0")))
          (require-not (subpath (param "WRITABLE_ROOT_0_RO_1")))
          (require-not (subpath (param "WRITABLE_ROOT_0_RO_2"))))
        (require-all
          (subpath (param "WRITABLE_ROOT_1"))
          (require-not (subpath (param "WRITABLE_ROOT_1_RO_0")))
          (require-not (subpath (param "WRITABLE_ROOT_1_RO_1")))
          (require-not (subpath (param "WRITABLE_ROOT_1_RO_2")))))
      "
    `);
  });

  it('read-only with network: no write rule, network allowed', () => {
    const { profile, params } = seatbeltProfile({ type: 'readOnly', networkAccess: true }, ws, env);
    expect(params).toEqual({});
    expect(profile).not.toContain('(allow file-write*\n');
    expect(profile).toContain('(allow network-outbound)');
    expect(profile.startsWith('(version 1)\n; Weft sandbox: deny by default.\n(deny default)\n')).toBe(true);
  });

  it('read-only without network: neither writes nor network', () => {
    const { profile } = seatbeltProfile({ type: 'readOnly' }, ws, env);
    expect(profile).not.toMatch(/network-outbound|network-inbound|system-socket/);
    expect(profile).not.toContain('(allow file-write*\n');
  });

  it('paths never enter the profile text, only parameters', () => {
    const { profile } = seatbeltProfile(
      { type: 'workspaceWrite', excludeSlashTmp: true, excludeTmpdirEnvVar: true },
      ws,
      env,
    );
    expect(profile).not.toContain(ws);
  });
});

describe('seatbeltArgv', () => {
  it('runs /usr/bin/sandbox-exec with the profile, the -D parameters and the command', () => {
    const policy = { type: 'workspaceWrite', excludeSlashTmp: true, excludeTmpdirEnvVar: true } as const;
    const argv = seatbeltArgv(policy, ws, env, ['bash', '-lc', 'ls']);
    expect(argv).toEqual([
      '/usr/bin/sandbox-exec',
      '-p',
      seatbeltProfile(policy, ws, env).profile,
      `-DWRITABLE_ROOT_0=${ws}`,
      `-DWRITABLE_ROOT_0_RO_0=${join(ws, '.agents')}`,
      `-DWRITABLE_ROOT_0_RO_1=${join(ws, '.git')}`,
      `-DWRITABLE_ROOT_0_RO_2=${join(ws, '.weft')}`,
      '--',
      'bash',
      '-lc',
      'ls',
    ]);
  });
});
