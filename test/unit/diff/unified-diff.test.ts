// The one unified-diff reader (jsdiff's parsePatch underneath): the forms Weft, git and Codex write, and
// what the renderer does with them.
import { describe, expect, it } from 'vitest';
import {
  cutMarker,
  formatHunkHeader,
  headerNumbers,
  hunkHeading,
  hunkStats,
  missingNewlines,
  parseFileDiff,
  parseMultiFileDiff,
  type FileDiff,
} from '../../../src-preload/diff/unified-diff';
import { applyHunks, compactSides, keptHunks, sidesFromHunks } from '../../../src-renderer/components/diff/hunks';
import * as F from './fixtures';

/** What a reader of the diff uses, without jsdiff's own header fields. */
function summary(file: FileDiff) {
  return {
    path: file.path,
    oldPath: file.oldPath,
    newPath: file.newPath,
    binary: file.binary,
    problem: file.problem,
    hunks: file.hunks.map(({ header, oldStart, oldLines, newStart, newLines, lines }) => ({
      header,
      oldStart,
      oldLines,
      newStart,
      newLines,
      lines,
    })),
  };
}

describe('parseFileDiff', () => {
  it('reads paths, ranges, lines and the heading of each @@ line', () => {
    const file = parseFileDiff(F.UPDATE);
    expect(summary(file)).toEqual({
      path: 'src/n.txt',
      oldPath: 'src/n.txt',
      newPath: 'src/n.txt',
      binary: false,
      problem: undefined,
      hunks: [
        {
          header: '@@ -1,3 +1,3 @@',
          oldStart: 1,
          oldLines: 3,
          newStart: 1,
          newLines: 3,
          lines: ['-one', '+ONE', ' two', ' three'],
        },
        {
          header: '@@ -9,4 +9,5 @@ function eleven() {',
          oldStart: 9,
          oldLines: 4,
          newStart: 9,
          newLines: 5,
          lines: [' nine', ' ten', '-eleven', '+ELEVEN', '+eleven and a half', ' twelve'],
        },
      ],
    });
    expect(file.preamble).toBe('--- a/src/n.txt\n+++ b/src/n.txt\n');
    expect(file.hunks.map(hunkHeading)).toEqual(['', ' function eleven() {']);
    expect(hunkStats(file.hunks)).toEqual({ added: 3, removed: 2 });
  });

  it('reads `@@ -0,0 +1 @@` (a count of 1 left out) with jsdiff numbering, and gives back the @@ numbers', () => {
    const file = parseFileDiff(F.ADD_ONE_LINE);
    expect(summary(file)).toEqual({
      path: 'new.txt',
      oldPath: null,
      newPath: 'new.txt',
      binary: false,
      problem: undefined,
      hunks: [
        {
          header: '@@ -0,0 +1 @@',
          oldStart: 1,
          oldLines: 0,
          newStart: 1,
          newLines: 1,
          lines: ['+only', '\\ No newline at end of file'],
        },
      ],
    });
    const [hunk] = file.hunks;
    expect(hunk && headerNumbers(hunk)).toEqual({ oldStart: 0, oldLines: 0, newStart: 1, newLines: 1 });
    expect(hunk && formatHunkHeader(hunk)).toBe('@@ -0,0 +1 @@');
    expect(formatHunkHeader({ oldStart: 3, oldLines: 2, newStart: 3, newLines: 0 }, ' f()')).toBe(
      '@@ -3,2 +2,0 @@ f()',
    );
    expect(file.hunks.map(missingNewlines)).toEqual([{ old: false, new: true }]);
    expect(applyHunks('', file.hunks)).toBe('only');
  });

  it('reads a deleted file: the new side starts after line 0', () => {
    const file = parseFileDiff(F.DELETE);
    expect(summary(file).hunks).toEqual([
      { header: '@@ -1,2 +0,0 @@', oldStart: 1, oldLines: 2, newStart: 1, newLines: 0, lines: ['-x', '-y'] },
    ]);
    expect([file.oldPath, file.newPath]).toEqual(['old.txt', null]);
    expect(file.hunks.map(headerNumbers)).toEqual([{ oldStart: 1, oldLines: 2, newStart: 0, newLines: 0 }]);
    expect(applyHunks('x\ny\n', file.hunks)).toBe('');
  });

  it('keeps "\\ No newline at end of file" with the side it belongs to', () => {
    const both = parseFileDiff(F.NO_NEWLINE);
    expect(both.hunks.map(missingNewlines)).toEqual([{ old: true, new: true }]);
    expect(applyHunks('keep\nold', both.hunks)).toBe('keep\nnew');
    const context = parseFileDiff(F.NO_NEWLINE_CONTEXT);
    expect(context.hunks.map(missingNewlines)).toEqual([{ old: true, new: true }]);
    expect(applyHunks('a\nb', context.hunks)).toBe('first\na\nb');
    expect(compactSides(context.hunks)).toEqual({
      original: 'a\nb',
      modified: 'first\na\nb',
      originalNumbers: [1, 2],
      modifiedNumbers: [1, 2, 3],
      gaps: [],
    });
  });

  it('keeps the \\r of CRLF content in each line', () => {
    const file = parseFileDiff(F.CRLF);
    expect(file.hunks[0]?.lines).toEqual([' a\r', '-b\r', '+B\r']);
    expect(applyHunks('a\r\nb\r\n', file.hunks)).toBe('a\r\nB\r\n');
  });

  it('reads removed and added lines that look like file headers as lines', () => {
    const file = parseFileDiff(F.HEADER_LIKE_LINES);
    expect(file.hunks[0]?.lines).toEqual([' select 1;', '--- a comment', '+++ x', ' select 2;']);
    expect(applyHunks('select 1;\n-- a comment\nselect 2;\n', file.hunks)).toBe('select 1;\n++ x\nselect 2;\n');
  });

  it('reads an empty line inside a hunk as an empty context line', () => {
    const file = parseFileDiff(F.STRIPPED_CONTEXT);
    expect(file.hunks[0]?.lines).toEqual([' a', ' ', '-b', '+B']);
    expect(applyHunks('a\n\nb\n', file.hunks)).toBe('a\n\nB\n');
  });

  it('reads hunks without file headers (Codex) and a binary file', () => {
    expect(summary(parseFileDiff(F.HUNKS_ONLY, 'x.txt'))).toEqual({
      path: 'x.txt',
      oldPath: undefined,
      newPath: undefined,
      binary: false,
      problem: undefined,
      hunks: [
        {
          header: '@@ -2,2 +2,2 @@',
          oldStart: 2,
          oldLines: 2,
          newStart: 2,
          newLines: 2,
          lines: [' two', '-three', '+THREE'],
        },
      ],
    });
    expect(summary(parseFileDiff(F.BINARY_PLAIN))).toMatchObject({ binary: true, hunks: [] });
  });

  it('leaves the cut marker out of the hunks, and finds it', () => {
    const file = parseFileDiff(F.CUT);
    expect(file.hunks.map((h) => h.lines)).toEqual([['-a', '+A', ' b']]);
    expect(cutMarker(F.CUT)).toBe(
      '~ Weft left out 9,999 of 10,000 hunks: diffs are cut at 1 MiB (the whole diff: 1 file, +10,000 −10,000 lines).',
    );
    expect(cutMarker(F.UPDATE)).toBeNull();
  });

  it('says why a diff whose counts do not match its lines cannot be read, and gives no hunks', () => {
    expect(summary(parseFileDiff(F.MISCOUNTED, 'm.txt'))).toEqual({
      path: 'm.txt',
      oldPath: undefined,
      newPath: undefined,
      binary: false,
      problem: 'the diff could not be read: Hunk at line 3 contained invalid line ',
      hunks: [],
    });
  });
});

describe('parseMultiFileDiff', () => {
  it("reads a turn's git diff: updates, new and deleted files, renames, modes, binaries, quoted names", () => {
    const files = parseMultiFileDiff(F.TURN);
    expect(
      files.map((f) => ({
        path: f.path,
        oldPath: f.oldPath,
        newPath: f.newPath,
        binary: f.binary,
        hunks: f.hunks.map((h) => h.header),
        git: [f.isCreate ?? false, f.isDelete ?? false, f.isRename ?? false, f.oldMode ?? null, f.newMode ?? null],
      })),
    ).toEqual([
      {
        path: 'a.txt',
        oldPath: 'a.txt',
        newPath: 'a.txt',
        binary: false,
        hunks: ['@@ -1 +1 @@'],
        git: [false, false, false, null, null],
      },
      {
        path: 'b.txt',
        oldPath: null,
        newPath: 'b.txt',
        binary: false,
        hunks: ['@@ -0,0 +1 @@'],
        git: [true, false, false, null, '100644'],
      },
      {
        path: 'gone.txt',
        oldPath: 'gone.txt',
        newPath: null,
        binary: false,
        hunks: ['@@ -1,2 +0,0 @@'],
        git: [false, true, false, '100644', null],
      },
      {
        path: 'to.txt',
        oldPath: 'from.txt',
        newPath: 'to.txt',
        binary: false,
        hunks: ['@@ -1,2 +1,2 @@'],
        git: [false, false, true, null, null],
      },
      {
        path: 'run.sh',
        oldPath: 'run.sh',
        newPath: 'run.sh',
        binary: false,
        hunks: [],
        git: [false, false, false, '100644', '100755'],
      },
      {
        path: 'img.png',
        oldPath: null,
        newPath: 'img.png',
        binary: true,
        hunks: [],
        git: [true, false, false, null, '100644'],
      },
      {
        path: 'huge.bin',
        oldPath: 'huge.bin',
        newPath: 'huge.bin',
        binary: false,
        hunks: [],
        git: [false, false, false, null, null],
      },
      {
        path: 'café.txt',
        oldPath: 'café.txt',
        newPath: 'café.txt',
        binary: false,
        hunks: ['@@ -1 +1 @@'],
        git: [false, false, false, null, null],
      },
    ]);
    // Each file's text is its section as written; together they are the whole diff.
    expect(files.map((f) => f.text).join('')).toBe(F.TURN);
    expect(files[6]?.text).toBe(
      'diff --git a/huge.bin b/huge.bin\n~ Weft left out the content of huge.bin: it was too large to be checkpointed\n',
    );
    expect(cutMarker(files[7]?.text ?? '')).toMatch(/^~ Weft left out 1 of 9 hunks/);
  });

  it('does not start a file at a removed `-- comment` line inside a hunk', () => {
    const files = parseMultiFileDiff(`diff --git a/q.sql b/q.sql\n${F.HEADER_LIKE_LINES}`);
    expect(files.map((f) => [f.path, f.hunks.length])).toEqual([['q.sql', 1]]);
  });

  it('names a file it cannot read by its diff --git line, and reads the others', () => {
    const files = parseMultiFileDiff(
      `diff --git a/m.txt b/m.txt\n${F.MISCOUNTED}diff --git a/a.txt b/a.txt\n${F.UPDATE}`,
    );
    expect(files.map((f) => [f.path, f.hunks.length, f.problem])).toEqual([
      ['m.txt', 0, 'the diff could not be read: Hunk at line 4 contained invalid line '],
      ['src/n.txt', 2, undefined],
    ]);
  });

  it('is empty for an empty diff', () => {
    expect(parseMultiFileDiff('')).toEqual([]);
    expect(parseMultiFileDiff('\n')).toEqual([]);
  });
});

describe('what the renderer does with hunks', () => {
  it('rebuilds both sides from the hunks alone, and renumbers the new side when hunks are dropped', () => {
    const { hunks } = parseFileDiff(F.UPDATE);
    const sides = sidesFromHunks(hunks);
    expect(sides.original.split('\n').slice(0, 3)).toEqual(['one', 'two', 'three']);
    expect(sides.modified.split('\n').slice(8, 13)).toEqual(['nine', 'ten', 'ELEVEN', 'eleven and a half', 'twelve']);
    const insert = parseFileDiff('--- a/i\n+++ b/i\n@@ -2,0 +3,2 @@\n+x\n+y\n@@ -5 +7 @@\n-e\n+E\n').hunks;
    expect(keptHunks(insert, new Set([0])).map((h) => headerNumbers(h))).toEqual([
      { oldStart: 5, oldLines: 1, newStart: 5, newLines: 1 },
    ]);
    expect(keptHunks(insert, new Set([1])).map((h) => headerNumbers(h))).toEqual([
      { oldStart: 2, oldLines: 0, newStart: 3, newLines: 2 },
    ]);
  });
});
