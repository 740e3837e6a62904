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
});
