import { describe, expect, it } from 'vitest';
import { BIG_DIFF_LINES, describeDiffSize, diffSize, isBigDiff } from '../../../src-renderer/components/diff/diff-size';
import { parseFileDiff } from '../../../src-preload/diff/unified-diff';

const hunks = parseFileDiff(
  '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n ctx\n-a\n+A\n@@ -9 +9,2 @@\n-i\n+I\n+J\n',
).hunks;

describe('diffSize', () => {
  it('counts a whole diff from its hunks: small, shown as it is', () => {
    const size = diffSize(hunks, undefined);
    expect(size).toEqual({ files: 1, hunks: 2, shownHunks: 2, added: 3, removed: 2, lines: 6, cut: false });
    expect(isBigDiff(size)).toBe(false);
    expect(describeDiffSize(size)).toEqual({ totals: '2 hunks, +3 −2 lines', shown: null });
  });

  it('takes a cut diff’s totals from the server, and summarises it', () => {
    const size = diffSize(hunks, { files: 3, hunks: 10_000, shownHunks: 2, added: 10_000, removed: 9_000 });
    expect(size).toEqual({
      files: 3,
      hunks: 10_000,
      shownHunks: 2,
      added: 10_000,
      removed: 9_000,
      lines: 6,
      cut: true,
    });
    expect(isBigDiff(size)).toBe(true);
    expect(describeDiffSize(size)).toEqual({
      totals: '3 files, 10,000 hunks, +10,000 −9,000 lines',
      shown: 'Only the first 2 hunks came with it (a diff is cut at 1 MiB).',
    });
  });

  it('summarises a whole diff of more than BIG_DIFF_LINES lines', () => {
    const body = Array.from({ length: BIG_DIFF_LINES }, (_, i) => `+line ${i}`).join('\n');
    const big = parseFileDiff(
      `--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,${BIG_DIFF_LINES + 1} @@\n+first\n${body}\n`,
    ).hunks;
    expect(isBigDiff(diffSize(big, undefined))).toBe(true);
  });
});
