import { describe, expect, it } from 'vitest';
import { diffRows, lineCount } from '../../../src-renderer/components/diff/diff-rows';

describe('lineCount', () => {
  it('counts lines as an editor shows them', () => {
    expect(lineCount('')).toBe(1);
    expect(lineCount('one')).toBe(1);
    expect(lineCount('one\n')).toBe(1);
    expect(lineCount('one\ntwo')).toBe(2);
    expect(lineCount('one\ntwo\n')).toBe(2);
    expect(lineCount('\n\n')).toBe(2);
  });
});

describe('diffRows', () => {
  const context = ['a', 'b', 'c'];
  const original = [...context, 'old 1', 'old 2', ...context.map((l) => `${l}2`)].join('\n');
  const modified = [...context, 'new 1', 'new 2', 'new 3', ...context.map((l) => `${l}2`)].join('\n');

  it('inline: the unchanged lines, then every removed and every added line', () => {
    expect(diffRows(original, modified, true)).toBe(6 + 2 + 3);
  });

  it('side by side: the unchanged lines and the longer side of the change', () => {
    expect(diffRows(original, modified, false)).toBe(6 + 3);
  });

  it('counts a line repeated on one side once for each time it stands on the other', () => {
    expect(diffRows('x\nx\ny', 'x\ny', true)).toBe(3);
    expect(diffRows('x\ny', 'x\nx\ny', false)).toBe(3);
  });

  it('with unchanged regions folded, shows the change with its context and a fold marker', () => {
    const long = (changed: string) =>
      [
        ...Array.from({ length: 50 }, (_, i) => `line ${i}`),
        changed,
        ...Array.from({ length: 50 }, (_, i) => `end ${i}`),
      ].join('\n');
    expect(diffRows(long('old'), long('new'), true, { contextLines: 3 })).toBe(2 + 7);
    expect(diffRows(long('old'), long('new'), false, { contextLines: 3 })).toBe(1 + 7);
    expect(diffRows(long('old'), long('new'), true)).toBe(2 + 100);
    // Fewer unchanged lines than the context: all of them.
    expect(diffRows(original, modified, true, { contextLines: 3 })).toBe(6 + 2 + 3);
  });

  it('takes identical texts as all unchanged', () => {
    expect(diffRows(original, original, true)).toBe(8);
    expect(diffRows(original, original, false)).toBe(8);
  });

  it('counts the shared lines as a whole-text count would, for any two texts', () => {
    // The rows of a naive count: every line of both texts, as a multiset (what the estimate must equal).
    const linesOf = (t: string) => (t.endsWith('\n') ? t.slice(0, -1) : t).split('\n');
    const naive = (a: string, b: string, inline: boolean): number => {
      const counts = new Map<string, number>();
      for (const line of linesOf(a)) counts.set(line, (counts.get(line) ?? 0) + 1);
      let shared = 0;
      for (const line of linesOf(b)) {
        const left = counts.get(line) ?? 0;
        if (left > 0) {
          counts.set(line, left - 1);
          shared++;
        }
      }
      const [x, y] = [linesOf(a).length, linesOf(b).length];
      const common = Math.min(shared, x, y);
      return inline ? x + y - common : common + Math.max(x - common, y - common);
    };
    // Every pair of texts of up to four characters of a, b and line breaks.
    const small: string[] = [''];
    for (let length = 1; length <= 4; length++)
      for (const start of small.filter((t) => t.length === length - 1))
        small.push(...['a', 'b', '\n'].map((c) => start + c));
    for (const a of small)
      for (const b of small)
        for (const inline of [true, false])
          expect(diffRows(a, b, inline), JSON.stringify([a, b])).toBe(naive(a, b, inline));
    // And texts with lines longer than the stretch compared at once, often a variation of each other.
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const words = ['a', 'b', 'c', '', 'x'.repeat(5000)];
    const text = (): string => {
      const parts: string[] = [];
      const n = next(12);
      for (let i = 0; i < n; i++) parts.push(words[next(words.length)] ?? '');
      return parts.join('\n') + (next(2) === 0 ? '\n' : '');
    };
    for (let round = 0; round < 3000; round++) {
      const a = text();
      const b = next(3) === 0 ? text() : a.replace(/b/, next(2) === 0 ? 'B' : 'b\nnew');
      for (const inline of [true, false])
        expect(diffRows(a, b, inline), JSON.stringify([a.length, b.length, inline])).toBe(naive(a, b, inline));
    }
  });

  it('reads a change to a big file without counting its every line', () => {
    const big = Array.from({ length: 200_000 }, (_, i) => `line ${i} of a big file`).join('\n') + '\n';
    const changed = big.replace('line 5000 of', 'LINE 5000 of');
    expect(diffRows(big, changed, true)).toBe(200_001);
    expect(diffRows(big, changed, false, { contextLines: 3 })).toBe(1 + 7);
  });
});
