import { describe, expect, it } from 'vitest';
import { isLikelySandboxDenied } from '../../../src-main/safety/sandbox/denial';
import { createSandboxLauncher } from '../../../src-main/safety/sandbox/launcher';
import { findBash } from '../../../src-main/safety/sandbox/bwrap-launch';
import { findBwrap } from '../../../src-main/safety/sandbox/linux-bwrap';

describe('isLikelySandboxDenied', () => {
  it.each<[string, Parameters<typeof isLikelySandboxDenied>[0], boolean]>([
    ['unsandboxed', { sandboxed: false, exitCode: 1, output: 'Read-only file system' }, false],
    ['success', { sandboxed: true, exitCode: 0, output: 'permission denied' }, false],
    ['read-only fs', { sandboxed: true, exitCode: 1, output: "touch: cannot touch '/x': Read-only file system" }, true],
    ['EPERM', { sandboxed: true, exitCode: 1, output: 'Operation not permitted' }, true],
    ['EACCES', { sandboxed: true, exitCode: 1, output: 'bash: /etc/x: Permission denied' }, true],
    ['bwrap itself', { sandboxed: true, exitCode: 1, output: "bwrap: Can't mount proc" }, true],
    ['marker wins over exit 2', { sandboxed: true, exitCode: 2, output: 'Permission denied' }, true],
    ['plain failure', { sandboxed: true, exitCode: 1, output: 'test failed: expected 1 to be 2' }, false],
    ['not found', { sandboxed: true, exitCode: 127, output: 'bash: foo: command not found' }, false],
    ['SIGSYS', { sandboxed: true, exitCode: 159, output: '' }, true],
    [
      'network off',
      { sandboxed: true, exitCode: 6, output: 'curl: (6) Could not resolve host: example.com', networkDisabled: true },
      true,
    ],
    ['network on', { sandboxed: true, exitCode: 6, output: 'curl: (6) Could not resolve host: example.com' }, false],
  ])('%s', (_label, input, expected) => {
    expect(isLikelySandboxDenied(input)).toBe(expected);
  });
});

describe('createSandboxLauncher', () => {
  const env = { PATH: '/usr/bin:/bin' };

  it('danger-full-access: identity launcher', async () => {
    const result = await createSandboxLauncher({ type: 'dangerFullAccess' }, '/w', env, 'linux');
    expect(result.available).toBe(true);
    if (result.available)
      expect(await result.launcher(['bash', '-lc', 'ls'], { cwd: '/w', env })).toEqual({ argv: ['bash', '-lc', 'ls'] });
  });

  it('an unsupported platform is unavailable, with a reason and a fix', async () => {
    expect(await createSandboxLauncher({ type: 'readOnly' }, '/w', env, 'win32')).toEqual({
      available: false,
      mechanism: 'none',
      reason: 'Weft has no command sandbox for win32 yet.',
      fix: expect.stringContaining('ask for approval'),
    });
  });

  it.runIf(process.platform === 'linux' && findBwrap() !== null)(
    'linux: wraps the command in bwrap (through the trampoline, with the seccomp filter when the network is off) and marks the environment',
    async () => {
      const result = await createSandboxLauncher({ type: 'readOnly' }, '/', env, 'linux');
      if (!result.available) throw new Error(`bwrap is installed but unusable: ${result.reason}`);
      const launched = await result.launcher(['bash', '-lc', 'ls'], {
        cwd: '/usr',
        env: { ...env, BASH_ENV: '/x', 'BASH_FUNC_exec%%': '() { :; }' },
      });
      expect(launched.argv.slice(0, 2)).toEqual([findBash(), '-c']);
      expect(launched.argv[3]).toBe('weft-sandbox');
      expect(launched.argv[5]).toBe(findBwrap());
      expect(launched.argv.slice(-7)).toEqual(['/usr', '--seccomp', '3', '--', 'bash', '-lc', 'ls']);
      expect(launched.env).toEqual({ ...env, WEFT_SANDBOX: 'bwrap', WEFT_SANDBOX_NETWORK_DISABLED: '1' });
      const withNetwork = await createSandboxLauncher({ type: 'readOnly', networkAccess: true }, '/', env, 'linux');
      if (!withNetwork.available) throw new Error(withNetwork.reason);
      const open = await withNetwork.launcher(['true'], { cwd: '/', env });
      expect(open.env).toEqual({ ...env, WEFT_SANDBOX: 'bwrap' });
      expect(open.argv[4]).toBe('');
      expect(open.argv).not.toContain('--seccomp');
    },
  );
});
