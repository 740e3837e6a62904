import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandEnv, commandEnvPolicy, DEFAULT_COMMAND_ENV_POLICY } from '../../../src-main/safety/command-env';

const HOST = {
  PATH: '/usr/bin',
  HOME: '/home/u',
  LANG: 'C',
  OPENAI_API_KEY: 'sk-1',
  FOO_API_KEY: 'k',
  my_secret: 's',
  GH_Token: 't',
  GH_PAT: 'ghp_x',
  PGPASSWORD: 'pw',
  MYSQL_PASSWORD: 'pw',
  DATABASE_URL: 'postgres://app:hunter2@db.example.com/app',
  PUBLIC_URL: 'https://example.com/app',
  SESSION_COOKIE: 'c',
  AWS_SHARED_CREDENTIALS_FILE: '/home/u/.aws/credentials',
  SSH_AUTH_SOCK: '/run/user/1000/ssh-agent.sock',
  GPG_AGENT_INFO: '/run/user/1000/gnupg/S.gpg-agent:0:1',
  DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
  GIT_AUTHOR_NAME: 'Ann',
  TERM: 'dumb',
  UNSET: undefined,
};

describe('the command environment filter', () => {
  it('drops secrets by name and value, and agent sockets; keeps the rest and fixes the terminal', () => {
    expect(commandEnv(HOST)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      LANG: 'C',
      PUBLIC_URL: 'https://example.com/app',
      GIT_AUTHOR_NAME: 'Ann',
      TERM: 'xterm-256color',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      SHLVL: '1',
    });
  });

  it('applies inherit, exclude, set and include_only in that order; extras come last', () => {
    const core = commandEnvPolicy({ inherit: 'core', exclude: ['home'], set: { CI: '1', PAGER: 'less' } });
    expect(commandEnv(HOST, core, { WEFT_SANDBOX: 'bwrap' })).toEqual({
      PATH: '/usr/bin',
      TERM: 'xterm-256color',
      PAGER: 'less',
      GIT_PAGER: 'cat',
      CI: '1',
      SHLVL: '1',
      WEFT_SANDBOX: 'bwrap',
    });
    expect(commandEnv(HOST, commandEnvPolicy({ inherit: 'none' }))).toEqual({
      TERM: 'xterm-256color',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      SHLVL: '1',
    });
    expect(commandEnv(HOST, commandEnvPolicy({ include_only: ['PATH', 'GIT_*'] }))).toEqual({
      PATH: '/usr/bin',
      GIT_AUTHOR_NAME: 'Ann',
      GIT_PAGER: 'cat',
      SHLVL: '1',
    });
  });

  it('ignore_default_excludes passes secret-looking names through (for people who choose so)', () => {
    const env = commandEnv(HOST, commandEnvPolicy({ ignore_default_excludes: true, exclude: ['OPENAI_*'] }));
    expect(env['PGPASSWORD']).toBe('pw');
    expect(env['OPENAI_API_KEY']).toBeUndefined();
  });

  it('does not force NO_COLOR but keeps an inherited one', () => {
    expect(commandEnv({}, DEFAULT_COMMAND_ENV_POLICY).NO_COLOR).toBeUndefined();
    expect(commandEnv({ NO_COLOR: '1' }).NO_COLOR).toBe('1');
  });

  it("counts a command as a nested shell: bash -c never takes itself for a login's and reads ~/.bashrc", () => {
    // Weft over ssh (an environment) is started by a shell that `exec`s it (SHLVL 0), and a command's stdin
    // is a socket (Node's pipes are): bash then reads ~/.bashrc even for `bash -c`.
    const home = mkdtempSync(join(tmpdir(), 'weft-bashrc-'));
    try {
      writeFileSync(join(home, '.bashrc'), 'echo read-the-bashrc\n');
      const login = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, SHLVL: '0', SSH_CLIENT: '::1 5 22' };
      const run = (variables: Record<string, string>): string =>
        execFileSync('bash', ['-c', 'echo ran'], { env: variables, encoding: 'utf8' });
      // The check can fail: with the login's variables as they are, bash reads the file.
      expect(run(login)).toBe('read-the-bashrc\nran\n');
      expect(commandEnv(login)['SHLVL']).toBe('1');
      expect(run(commandEnv(login))).toBe('ran\n');
      // Whatever the policy keeps, and whatever level came (none at all, or a deeper one).
      const none = commandEnv(login, commandEnvPolicy({ inherit: 'none', set: { PATH: login.PATH, HOME: home } }));
      expect(none['SHLVL']).toBe('1');
      expect(run(none)).toBe('ran\n');
      expect(commandEnv({ PATH: '/usr/bin' }, commandEnvPolicy({ include_only: ['PATH'] }))['SHLVL']).toBe('1');
      expect(commandEnv({ SHLVL: '3' })['SHLVL']).toBe('3');
      // Set on purpose (`shell_environment_policy.set`), it is the user's choice.
      expect(commandEnv(login, commandEnvPolicy({ set: { SHLVL: '0' } }))['SHLVL']).toBe('0');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
