// The parts of installing Weft on an environment that need no remote: how the install reaches a shell
// there (ssh, or the program before `weft app-server` in a `command`), which variables of `weft` it keeps,
// and how a Node version is held against package.json's engines.
import { describe, expect, it } from 'vitest';
import {
  environmentShell,
  leadingAssignments,
  nodeAtLeast,
  requiredNode,
  shellQuote,
} from '../../../src-main/server/remote-install';

describe('installing Weft on an environment', () => {
  it('keeps the variables a `weft` command starts with, quotes included', () => {
    expect(leadingAssignments('WEFT_HOME=/data PATH=/opt/node/bin:$PATH weft')).toEqual([
      'WEFT_HOME=/data',
      'PATH=/opt/node/bin:$PATH',
    ]);
    expect(leadingAssignments(`A="x y" B='z' node /opt/weft/bin/weft.js C=1`)).toEqual([`A="x y"`, `B='z'`]);
    expect(leadingAssignments('weft')).toEqual([]);
  });

  it('runs its script through ssh with those variables exported', () => {
    const shell = environmentShell(
      'box',
      { ssh: 'dev@box', port: 2222, ssh_args: ['-F', 'cfg'], weft: 'WEFT_HOME=/data weft' },
      'echo hi',
    );
    expect(shell.argv).toEqual([
      'ssh',
      '-F',
      'cfg',
      '-p',
      '2222',
      '-T',
      '-o',
      'BatchMode=yes',
      '-o',
      'ConnectTimeout=15',
      '-o',
      'ServerAliveInterval=15',
      '--',
      'dev@box',
      `sh -c 'export WEFT_HOME=/data\necho hi'`,
    ]);
    expect(shell.replace).toBeNull();
  });

  it('runs its script through the program before `weft app-server` in a command, and knows what to replace', () => {
    const kubectl = ['kubectl', 'exec', '-i', 'weft-0', '--', 'weft', 'app-server', '--attach'];
    const shell = environmentShell('pod', { command: kubectl }, 'echo hi');
    expect(shell.argv).toEqual(['kubectl', 'exec', '-i', 'weft-0', '--', 'sh', '-c', 'echo hi']);
    expect(shell.replace).toEqual([5, 6]);
    const node = ['docker', 'exec', '-i', 'box', 'node', '/opt/weft/bin/weft.js', 'app-server'];
    expect(environmentShell('dev', { command: node }, 'x')).toMatchObject({
      argv: ['docker', 'exec', '-i', 'box', 'sh', '-c', 'x'],
      replace: [4, 6],
    });
    expect(() => environmentShell('odd', { command: ['sh', '-c', 'weft app-server'] }, 'x')).toThrow(
      'cannot tell where the command of environment "odd" starts Weft (no `weft app-server` in it)',
    );
  });

  it("holds Node's version against package.json's engines", async () => {
    expect(await requiredNode()).toEqual([22, 12, 0]);
    expect(nodeAtLeast('v22.12.0', [22, 12, 0])).toBe(true);
    expect(nodeAtLeast('v24.1.0', [22, 12, 0])).toBe(true);
    expect(nodeAtLeast('v22.11.9', [22, 12, 0])).toBe(false);
    expect(nodeAtLeast('v20.19.0', [22, 12, 0])).toBe(false);
    expect(nodeAtLeast('garbage', [22, 12, 0])).toBe(false);
  });

  it('quotes words for a POSIX shell', () => {
    expect(shellQuote('/home/me/.weft/remote/0.1.0/node_modules/.bin/weft')).toBe(
      '/home/me/.weft/remote/0.1.0/node_modules/.bin/weft',
    );
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
