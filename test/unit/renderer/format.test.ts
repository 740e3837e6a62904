import { describe, expect, it } from 'vitest';
import {
  baseName,
  compactNumber,
  countText,
  duration,
  relativePath,
  relativeTime,
} from '../../../src-renderer/components/format';

describe('format', () => {
  it('says how long ago, compactly', () => {
    const now = Date.UTC(2026, 10, 22, 12, 0, 0);
    const ago = (s: number) => relativeTime(now / 1000 - s, now);
    expect([ago(5), ago(300), ago(3 * 3600), ago(2 * 86_400)]).toEqual(['now', '5m', '3h', '2d']);
    expect(ago(30 * 86_400)).toMatch(/Oct/);
  });

  it('formats durations and token counts', () => {
    expect([duration(850), duration(4200), duration(42_000), duration(185_000), duration(3_720_000)]).toEqual([
      '850 ms',
      '4.2 s',
      '42 s',
      '3 m 05 s',
      '1 h 02 m',
    ]);
    expect([compactNumber(950), compactNumber(12_345), compactNumber(1_234_567)]).toEqual(['950', '12k', '1.2M']);
  });

  it('writes counts as toLocaleString does, with one formatter', () => {
    for (const n of [0, 950, 12_345, 1_234_567, 98_765_432_101])
      expect(countText(n), String(n)).toBe(n.toLocaleString());
  });

  it('shows paths relative to the project', () => {
    expect(relativePath('/p/src/a.ts', '/p')).toBe('src/a.ts');
    expect(relativePath('/other/a.ts', '/p')).toBe('/other/a.ts');
    expect(relativePath('/p', '/p')).toBe('.');
    expect(baseName('/home/ada/project/')).toBe('project');
  });
});
