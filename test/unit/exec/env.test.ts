import { describe, expect, it } from 'vitest';
import { buildExecEnv } from '../../../src-main/tools/exec';

describe('buildExecEnv', () => {
  it('drops secret-looking names, sets terminal and pager variables, then the caller extras', () => {
    const env = buildExecEnv(
      {
        PATH: '/usr/bin',
        HOME: '/home/u',
        FOO_API_KEY: 'k',
        my_secret: 's',
        GH_Token: 't',
        ALLOWED_TOKEN: 'ok',
        TERM: 'dumb',
        UNSET: undefined,
      },
      { allow: ['ALLOWED_TOKEN'], set: { EXTRA: '1', PAGER: 'less' } },
    );
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      ALLOWED_TOKEN: 'ok',
      TERM: 'xterm-256color',
      PAGER: 'less',
      GIT_PAGER: 'cat',
      EXTRA: '1',
    });
  });

  it('does not force NO_COLOR but keeps an inherited one', () => {
    expect(buildExecEnv({}).NO_COLOR).toBeUndefined();
    expect(buildExecEnv({ NO_COLOR: '1' }).NO_COLOR).toBe('1');
  });
});
