import { describe, expect, it } from 'vitest';
import { newFilePatchWithHunks, readGitDiff, splitNewFile } from '../../../src-main/git/hunks';

const HEADER =
  'diff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0000000..1234567\n--- /dev/null\n+++ b/new.txt\n';

describe('a new file split into blocks', () => {
  it('splits at blank lines, each blank line ending the block before it', () => {
    const parsed = splitNewFile(readGitDiff(`${HEADER}@@ -0,0 +1,6 @@\n+one\n+two\n+\n+\n+three\n+four\n`));
    expect(parsed.hunks.map((h) => [h.header, h.newStart, h.newLines])).toEqual([
      ['@@ -0,0 +1,4 @@', 1, 4],
      ['@@ -0,0 +5,2 @@', 5, 2],
    ]);
  });

  it('keeps "no newline" with the last line, and makes a patch of the chosen blocks without the blob id', () => {
    const parsed = splitNewFile(readGitDiff(`${HEADER}@@ -0,0 +1,3 @@\n+one\n+\n+two\n\\ No newline at end of file\n`));
    expect(parsed.hunks).toHaveLength(2);
    expect(newFilePatchWithHunks(parsed, [1])).toBe(
      'diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+two\n\\ No newline at end of file\n',
    );
    expect(() => newFilePatchWithHunks(parsed, [2])).toThrow('has no hunk 2');
  });

  it('leaves other diffs alone', () => {
    const diff = readGitDiff('--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n');
    expect(splitNewFile(diff)).toBe(diff);
  });
});
