// The hunks of a turn as its diff numbers them, and one hunk put back in the file as it is now: moved by
// edits elsewhere, refused when its lines changed (or when something was put exactly where it removed
// lines), at the end of a file without a final line break.
import { describe, expect, it } from 'vitest';
import { hunksOf, withHunkUndone } from '../../../src-main/checkpoints/hunk-undo';
import { diffBytes } from '../../../src-main/util/line-diff';
import { Slicer } from '../../../src-main/util/slicer';

const text = (lines: readonly string[], end = '\n'): string => lines.join('\n') + end;
const numbered = (count: number): string[] => Array.from({ length: count }, (_, i) => `line ${i + 1}`);

async function undo(before: string, after: string, now: string, hunk: number): Promise<string | null> {
  const pacer = new Slicer();
  const turn = await diffBytes(Buffer.from(before), Buffer.from(after), pacer);
  const chosen = hunksOf(turn)[hunk];
  if (chosen === undefined) throw new Error(`no hunk ${hunk}`);
  const result = await withHunkUndone(turn, chosen, Buffer.from(now), pacer);
  return result === null ? null : result.toString();
}

describe('hunks of a turn', () => {
  it('are numbered as the diff writes them: 3 lines of context, changes 6 apart share a hunk', async () => {
    const before = numbered(30);
    const after = before.map((line, i) => (i === 1 || i === 8 || i === 25 ? line.toUpperCase() : line));
    const turn = await diffBytes(Buffer.from(text(before)), Buffer.from(text(after)), new Slicer());
    expect(hunksOf(turn).map((h) => h.range)).toEqual([
      { oldStart: 1, oldLines: 12, newStart: 1, newLines: 12 },
      { oldStart: 23, oldLines: 7, newStart: 23, newLines: 7 },
    ]);
  });

  it('a removal and an addition: empty ranges start at the line before', async () => {
    const before = numbered(10);
    const after = [...before.slice(0, 4), ...before.slice(5)];
    const turn = await diffBytes(Buffer.from(text(before)), Buffer.from(text(after)), new Slicer());
    expect(hunksOf(turn).map((h) => h.range)).toEqual([{ oldStart: 2, oldLines: 7, newStart: 2, newLines: 6 }]);
    const created = await diffBytes(Buffer.alloc(0), Buffer.from('a\nb\n'), new Slicer());
    expect(hunksOf(created).map((h) => h.range)).toEqual([{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 2 }]);
  });
});

describe('one hunk undone', () => {
  const before = numbered(20);
  const after = before.map((line, i) => (i === 2 || i === 16 ? line.toUpperCase() : line));

  it('puts back its lines where they are now, after lines added above', async () => {
    const now = text(['mine', ...after]);
    expect(await undo(text(before), text(after), now, 1)).toBe(
      text(['mine', ...after.slice(0, 16), before[16] ?? '', ...after.slice(17)]),
    );
  });

  it('is refused when its lines changed, and when they are undone already', async () => {
    const changed = after.map((line, i) => (i === 16 ? 'my own line 17' : line));
    expect(await undo(text(before), text(after), text(changed), 1)).toBeNull();
    expect(await undo(text(before), text(after), text(before), 0)).toBeNull();
  });

  it('is refused for a removal when something was put exactly where the lines were', async () => {
    const removed = [...before.slice(0, 9), ...before.slice(10)];
    const filled = [...removed.slice(0, 9), 'mine', ...removed.slice(9)];
    expect(await undo(text(before), text(removed), text(filled), 0)).toBeNull();
    // Elsewhere, it comes back.
    expect(await undo(text(before), text(removed), text(['mine', ...removed]), 0)).toBe(text(['mine', ...before]));
  });

  it('keeps the missing final line break of the version before the turn', async () => {
    const last = await undo('a\nb', 'a\nB\n', 'a\nB\n', 0);
    expect(last).toBe('a\nb');
  });
});
