import { describe, expect, it } from 'vitest';
import { hunkStats, missingNewlines, parseFileDiff, parseMultiFileDiff } from '../../../src-preload/diff/unified-diff';
import { applyHunks, sidesFromHunks } from '../../../src-renderer/components/diff/hunks';

const ORIGINAL =
  ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'].join('\n') + '\n';

const DIFF = `--- a/src/n.txt
+++ b/src/n.txt
@@ -1,3 +1,3 @@
-one
+ONE
 two
 three
@@ -9,4 +9,5 @@
 nine
 ten
-eleven
+ELEVEN
+eleven and a half
 twelve
`;

describe('parseFileDiff', () => {
  it('reads paths, hunk ranges and lines', () => {
    const diff = parseFileDiff(DIFF);
    expect(diff.oldPath).toBe('src/n.txt');
    expect(diff.newPath).toBe('src/n.txt');
    expect(diff.hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines])).toEqual([
      [1, 3, 1, 3],
      [9, 4, 9, 5],
    ]);
    expect(diff.hunks[1]?.lines).toEqual([' nine', ' ten', '-eleven', '+ELEVEN', '+eleven and a half', ' twelve']);
    expect(hunkStats(diff.hunks)).toEqual({ added: 3, removed: 2 });
  });

  it('recognises added files, deleted files and missing final line breaks', () => {
    const added = parseFileDiff(
      '--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n',
    );
    expect([added.oldPath, added.newPath]).toEqual([null, 'new.txt']);
    expect(added.hunks.map(missingNewlines)).toEqual([{ old: false, new: true }]);
    expect(applyHunks('', added.hunks)).toBe('a\nb');
    const deleted = parseFileDiff('--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n');
    expect(applyHunks('x\ny\n', deleted.hunks)).toBe('');
    expect(parseFileDiff('Binary files a/x.png and b/x.png differ\n').binary).toBe(true);
  });
});

describe('applyHunks', () => {
  it('applies every hunk, or only the chosen ones', () => {
    const { hunks } = parseFileDiff(DIFF);
    expect(applyHunks(ORIGINAL, hunks)).toBe(
      ORIGINAL.replace('one', 'ONE').replace('eleven\n', 'ELEVEN\neleven and a half\n'),
    );
    expect(applyHunks(ORIGINAL, hunks, (i) => i === 1)).toBe(
      ORIGINAL.replace('eleven\n', 'ELEVEN\neleven and a half\n'),
    );
    expect(applyHunks(ORIGINAL, hunks, () => false)).toBe(ORIGINAL);
  });

  it('returns null when the file no longer matches the diff', () => {
    const { hunks } = parseFileDiff(DIFF);
    expect(applyHunks(ORIGINAL.replace('ten', 'TEN'), hunks)).toBeNull();
  });
});

describe('sidesFromHunks', () => {
  it('puts each hunk line at its line number with blank lines between', () => {
    const { original, modified } = sidesFromHunks(parseFileDiff(DIFF).hunks);
    const old = original.split('\n');
    expect(old[0]).toBe('one');
    expect(old[8]).toBe('nine');
    expect(old[3]).toBe('');
    const next = modified.split('\n');
    expect(next[0]).toBe('ONE');
    expect(next.slice(8, 13)).toEqual(['nine', 'ten', 'ELEVEN', 'eleven and a half', 'twelve']);
  });
});

describe('parseMultiFileDiff', () => {
  it('splits a git-style multi-file diff into per-file sections', () => {
    const text =
      'diff --git a/a.txt b/a.txt\nindex 1..2\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\ndiff --git a/b.txt b/b.txt\nnew file mode 100644\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+b\n';
    const sections = parseMultiFileDiff(text);
    expect(sections.map((s) => s.path)).toEqual(['a.txt', 'b.txt']);
    expect(parseFileDiff(sections[1]?.text ?? '').hunks[0]?.lines).toEqual(['+b']);
  });
});
