import { describe, expect, it } from 'vitest';
import type { WeftProjectConfigFile, WeftProjectConfigListResult } from '../../../src-preload/protocol';
import { contentKey, statusLabel, waitingFiles } from '../../../src-renderer/store/project-config';

const file = (relativePath: string, status: WeftProjectConfigFile['status']): WeftProjectConfigFile => ({
  path: `/p/${relativePath}`,
  relativePath,
  sha256: `sha256:${relativePath.length}`,
  status,
  settings: [],
  moreSettings: 0,
  error: null,
});

const listed = (
  trustLevel: WeftProjectConfigListResult['trustLevel'],
  files: WeftProjectConfigFile[],
): WeftProjectConfigListResult => ({ root: '/p', trustLevel, files });

describe('the files the project config prompt asks about', () => {
  const files = [
    file('.weft/config.toml', 'applied'),
    file('a/.weft/config.toml', 'new'),
    file('ab/.weft/config.toml', 'changed'),
    file('abc/.weft/config.toml', 'unverified'),
  ];

  it('are the new, changed and unconfirmed ones, none in an untrusted project', () => {
    expect(waitingFiles(listed('trusted', files), new Set()).map((f) => f.status)).toEqual([
      'new',
      'changed',
      'unverified',
    ]);
    expect(waitingFiles(listed('untrusted', [file('.weft/config.toml', 'ignored')]), new Set())).toEqual([]);
    expect(waitingFiles(null, new Set())).toEqual([]);
  });

  it('leave out what was put off, for the same contents only', () => {
    const putOff = new Set([contentKey(files[1] ?? file('x', 'new'))]);
    expect(waitingFiles(listed('trusted', files), putOff).map((f) => f.relativePath)).toEqual([
      'ab/.weft/config.toml',
      'abc/.weft/config.toml',
    ]);
    const rewritten = { ...file('a/.weft/config.toml', 'new'), sha256: 'sha256:other' };
    expect(waitingFiles(listed('trusted', [rewritten]), putOff)).toEqual([rewritten]);
  });

  it('say why each one waits', () => {
    expect(statusLabel(file('x', 'new'), null)).toBe('Not trusted yet');
    expect(statusLabel(file('x', 'new'), 'trusted')).toBe('New since you trusted the project');
    expect(statusLabel(file('x', 'changed'), 'trusted')).toBe('Changed since you trusted it');
  });
});
