// The spawn host's messages are checked on both sides of the channel: these are the shapes each accepts.
import { describe, expect, it } from 'vitest';
import { fromSpawnHost, toSpawnHost } from '../../../src-main/util/spawn-host/messages';

const start = {
  kind: 'start',
  id: 3,
  file: '/bin/sh',
  args: ['-c', 'true'],
  cwd: '/tmp',
  env: {},
  detached: true,
  stdin: 'ignore',
};

describe('spawn host messages', () => {
  it('accept a well-formed start, pty start, resize and input', () => {
    expect(toSpawnHost.safeParse(start).success).toBe(true);
    expect(
      toSpawnHost.safeParse({
        ...start,
        kind: 'startPty',
        stdin: undefined,
        detached: undefined,
        name: 'xterm',
        cols: 80,
        rows: 24,
      }).success,
    ).toBe(true);
    expect(toSpawnHost.safeParse({ kind: 'ptyResize', id: 3, cols: 100, rows: 30 }).success).toBe(true);
    expect(toSpawnHost.safeParse({ kind: 'stdin', id: 0, data: new Uint8Array([104, 105]) }).success).toBe(true);
  });

  it('refuse what is out of shape, naming where', () => {
    const refused = (value: unknown): string => {
      const parsed = toSpawnHost.safeParse(value);
      expect(parsed.success).toBe(false);
      return JSON.stringify(parsed.error?.issues.map((i) => i.path));
    };
    expect(refused({ ...start, id: -1 })).toContain('id');
    expect(refused({ ...start, id: 1.5 })).toContain('id');
    expect(refused({ ...start, file: '' })).toContain('file');
    expect(refused({ ...start, stdin: 'inherit' })).toContain('stdin');
    expect(refused({ kind: 'stdin', id: 1, data: 'hi' })).toContain('data');
    expect(refused({ kind: 'ptyResize', id: 1, cols: 0, rows: 24 })).toContain('cols');
    expect(toSpawnHost.safeParse({ kind: 'kill', id: 1 }).success).toBe(false);
  });

  it('take reports with or without a signal, and only signal names', () => {
    expect(fromSpawnHost.safeParse({ kind: 'exit', id: 1, code: 0, signal: null }).success).toBe(true);
    expect(fromSpawnHost.safeParse({ kind: 'close', id: 1, code: null, signal: 'SIGTERM' }).success).toBe(true);
    expect(fromSpawnHost.safeParse({ kind: 'close', id: 1, code: null, signal: 'sigterm' }).success).toBe(false);
    expect(fromSpawnHost.safeParse({ kind: 'failed', id: 1, message: 'ENOENT' }).success).toBe(true);
    expect(fromSpawnHost.safeParse({ kind: 'failed', id: 1, message: 'x', code: 2 }).success).toBe(false);
    expect(fromSpawnHost.safeParse({ kind: 'output', id: 1, fd: 3, data: new Uint8Array() }).success).toBe(false);
    expect(fromSpawnHost.safeParse({ kind: 'ptyExit', id: 1, exitCode: 0, signal: null }).success).toBe(true);
  });
});
