import { describe, expect, it } from 'vitest';
import { formatKeyPath, KeyLocator, parseKeyPath } from '../../../src-main/config/toml-keys';
import { closestMatch, editDistance } from '../../../src-main/config/suggest';

const SOURCE = [
  '# comment with key = 1', // 1
  'model = "m" # trailing', // 2
  'notes = """', // 3
  'fake = "inside a multi-line string"', // 4
  '"""', // 5
  'list = [', // 6
  '  "x = 1",', // 7
  '  { inner = 2 },', // 8
  ']', // 9
  'a.b . c = 1', // 10
  '[projects."/home/me/my app"]', // 11
  '  trust_level = "trusted"', // 12
  '[[servers]]', // 13
  "'quoted key' = { x = 1, y = { z = 'lit' } }", // 14
].join('\n');

describe('KeyLocator', () => {
  const locator = new KeyLocator(SOURCE);

  it('finds keys, table headers, dotted keys and inline-table keys', () => {
    expect(locator.find(['model'])).toEqual({ line: 2, column: 1 });
    expect(locator.find(['list'])).toEqual({ line: 6, column: 1 });
    expect(locator.find(['a', 'b', 'c'])).toEqual({ line: 10, column: 1 });
    expect(locator.find(['projects', '/home/me/my app'])).toEqual({ line: 11, column: 1 });
    expect(locator.find(['projects', '/home/me/my app', 'trust_level'])).toEqual({ line: 12, column: 3 });
    expect(locator.find(['servers', 'quoted key', 'y', 'z'])).toEqual({ line: 14, column: 31 });
  });

  it('ignores look-alikes in comments, strings and arrays', () => {
    expect(locator.find(['fake'])).toBeNull();
    expect(locator.find(['x'])).toBeNull();
    expect(locator.find(['inner'])).toBeNull();
    expect(locator.find(['key'])).toBeNull();
  });

  it('falls back to the nearest written ancestor', () => {
    expect(locator.find(['list', 1, 'inner'])).toEqual({ line: 6, column: 1 });
    expect(locator.find(['nowhere', 'at', 'all'])).toBeNull();
  });

  it('shows the lines around a position with a caret', () => {
    expect(locator.excerpt({ line: 12, column: 3 })).toBe(
      '11 | [projects."/home/me/my app"]\n12 |   trust_level = "trusted"\n   |   ^\n13 | [[servers]]\n',
    );
  });
});

describe('key paths', () => {
  it('parse and format round-trip', () => {
    expect(parseKeyPath('projects."/a b".trust_level')).toEqual(['projects', '/a b', 'trust_level']);
    expect(parseKeyPath(" a . 'b.c' ")).toEqual(['a', 'b.c']);
    expect(parseKeyPath('a..b')).toBeNull();
    expect(parseKeyPath('a b')).toBeNull();
    expect(formatKeyPath(['projects', '/a b', 'trust_level'])).toBe('projects."/a b".trust_level');
    expect(formatKeyPath(['writable_roots', 2])).toBe('writable_roots[2]');
  });
});

describe('suggestions', () => {
  it('counts a swap of neighbours as one edit and suggests only close names', () => {
    expect(editDistance('modle', 'model')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(closestMatch('modle', ['model', 'mode'])).toBe('model');
    expect(closestMatch('On-Request', ['on-failure', 'on-request'])).toBe('on-request');
    expect(closestMatch('sometimes', ['untrusted', 'on-failure', 'on-request', 'never'])).toBeNull();
  });
});
