// git's diff of one path through the one diff reader: hunks numbered as git writes them, patches of chosen
// hunks rebuilt byte for byte, and line counts.
import { describe, expect, it } from 'vitest';
import { lineSummary, patchWithHunks, readGitDiff } from '../../../src-main/git/hunks';

const DIFF = [
  'diff --git a/w.txt b/w.txt',
  'index 1111111..2222222 100644',
  '--- a/w.txt',
  '+++ b/w.txt',
  '@@ -1,2 +1,2 @@ heading',
  ' a\r',
  '-b\r',
  '+B\r',
  '@@ -9,2 +9,1 @@',
  ' i',
  '--- j',
  '\\ No newline at end of file',
  '',
].join('\n');

describe('readGitDiff', () => {
  it("reads the header, each hunk's @@ line and numbers, and its lines as git wrote them", () => {
    expect(readGitDiff(DIFF)).toEqual({
      header: 'diff --git a/w.txt b/w.txt\nindex 1111111..2222222 100644\n--- a/w.txt\n+++ b/w.txt\n',
      hunks: [
        {
          index: 0,
          header: '@@ -1,2 +1,2 @@ heading',
          oldStart: 1,
          oldLines: 2,
          newStart: 1,
          newLines: 2,
          lines: [' a\r', '-b\r', '+B\r'],
        },
        {
          index: 1,
          header: '@@ -9,2 +9,1 @@',
          oldStart: 9,
          oldLines: 2,
          newStart: 9,
          newLines: 1,
          lines: [' i', '--- j', '\\ No newline at end of file'],
        },
      ],
      binary: false,
    });
    expect(
      readGitDiff('diff --git a/x.png b/x.png\nindex 1..2 100644\nBinary files a/x.png and b/x.png differ\n'),
    ).toEqual({
      header: 'diff --git a/x.png b/x.png\nindex 1..2 100644\nBinary files a/x.png and b/x.png differ\n',
      hunks: [],
      binary: true,
    });
  });

  it('rebuilds the whole diff from all its hunks, or a patch of some', () => {
    const parsed = readGitDiff(DIFF);
    expect(patchWithHunks(parsed, [0, 1])).toBe(DIFF);
    expect(patchWithHunks(parsed, [1])).toBe(
      'diff --git a/w.txt b/w.txt\nindex 1111111..2222222 100644\n--- a/w.txt\n+++ b/w.txt\n@@ -9,2 +9,1 @@\n i\n--- j\n\\ No newline at end of file\n',
    );
    expect(() => patchWithHunks(parsed, [2])).toThrow('the diff has no hunk 2 (it has 2)');
  });

  it('refuses a diff it cannot read, saying why', () => {
    expect(() => readGitDiff('--- a/m\n+++ b/m\n@@ -1,3 +1,3 @@\n a\n')).toThrow(
      'the diff could not be read: Hunk at line 3 contained invalid line ',
    );
  });
});

describe('lineSummary', () => {
  it('counts removed and added lines, including lines whose text starts with -- or ++', () => {
    expect(lineSummary(DIFF)).toBe('+1 −2');
  });
});
