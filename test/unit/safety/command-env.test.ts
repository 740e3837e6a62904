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
      WEFT_SANDBOX: 'bwrap',
    });
    expect(commandEnv(HOST, commandEnvPolicy({ inherit: 'none' }))).toEqual({
      TERM: 'xterm-256color',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
    });
    expect(commandEnv(HOST, commandEnvPolicy({ include_only: ['PATH', 'GIT_*'] }))).toEqual({
      PATH: '/usr/bin',
      GIT_AUTHOR_NAME: 'Ann',
      GIT_PAGER: 'cat',
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
});
