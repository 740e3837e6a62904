// Unified diffs read by jsdiff (`parsePatch`), the one reader of diff text for the core and the renderer:
// a file's diff (a fileChange entry, git's diff of one path) or a git-style diff of many files (a turn's).
// What jsdiff leaves out is added here: each hunk's `@@` line as written (with its section heading), the
// text before the first hunk, and `Binary files … differ` outside a git header. Pure.
import { parsePatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';

/**
 * A hunk as jsdiff reads it. Numbering is jsdiff's: `oldStart` / `newStart` are the first line the hunk
 * covers on that side, or, when its count is 0, the line after the point where it inserts (one more than the
 * `@@` line says; `headerNumbers` gives those). `lines` keep their mark (`' '`, `'-'`, `'+'` or `'\'` for
 * "\ No newline at end of file"); an empty context line (its space stripped by some tool) reads as `' '`.
 */
export interface DiffHunk extends StructuredPatchHunk {
  /** The `@@ … @@` line as written, with any section heading after it. */
  header: string;
}

/** One file's diff: jsdiff's structured patch with the additions above. */
export interface FileDiff extends StructuredPatch {
  hunks: DiffHunk[];
  /**
   * Each side's path without git's `a/` / `b/`: null when the side is absent (`/dev/null`, or git says the
   * file was created or deleted), undefined when the diff names no file (hunks alone).
   */
  oldPath: string | null | undefined;
  newPath: string | null | undefined;
  /** The path to show: the new side's, else the old side's, else `fallback`. */
  path: string;
  binary: boolean;
  /** The lines before the first hunk as written (`diff --git`, `index`, `---`, `+++`…), each ending in `\n`. */
  preamble: string;
  /** The file's text as written (a section of a many-file diff, or the whole of a one-file diff). */
  text: string;
  /** Set when jsdiff could not read the text (it then has no hunks): what was wrong, for people. */
  problem?: string;
}

/** A hunk's range as its `@@ -oldStart,oldLines +newStart,newLines @@` line writes it (git's numbering). */
export interface HunkNumbers {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
}

const HUNK_LINE = /^@@\s.*$/gm;
const BINARY_LINE = /^(?:Binary files .* differ|GIT binary patch)\r?$/m;

function stripSide(name: string | undefined): string | null | undefined {
  if (name === undefined) return undefined;
  return name === '/dev/null' ? null : name.replace(/^[ab]\//, '');
}

/** `text` read as one file's diff (only its first file, should it hold more). */
export function parseFileDiff(text: string, fallbackPath = 'file'): FileDiff {
  const files = readSection(text, fallbackPath);
  return files[0] ?? emptyFile(text, fallbackPath);
}

/**
 * `text` read as the diffs of many files: cut at its `diff --git` lines, each section read by jsdiff. A
 * section without a `diff --git` line that holds several files (not made by Weft, git or Codex) gives each
 * of them the section's whole text.
 */
export function parseMultiFileDiff(text: string): FileDiff[] {
  const files: FileDiff[] = [];
  for (const section of gitSections(text)) {
    // Named by its `diff --git` line should jsdiff not read it.
    const named = /^diff --git a\/(.*?) b\//.exec(section)?.[1];
    files.push(...readSection(section, named ?? 'file'));
  }
  return files;
}

/** `text` cut before each line starting `diff --git `; a leading part holding only blank lines is dropped. */
function gitSections(text: string): string[] {
  const starts: number[] = [];
  if (text.startsWith('diff --git ')) starts.push(0);
  for (let at = text.indexOf('\ndiff --git '); at >= 0; at = text.indexOf('\ndiff --git ', at + 1)) starts.push(at + 1);
  if (starts.length === 0) return text.trim() === '' ? [] : [text];
  const sections: string[] = [];
  const first = starts[0] ?? 0;
  if (text.slice(0, first).trim() !== '') sections.push(text.slice(0, first));
  starts.forEach((start, index) => sections.push(text.slice(start, starts[index + 1] ?? text.length)));
  return sections;
}

function emptyFile(text: string, fallbackPath: string, problem?: string): FileDiff {
  return {
    oldFileName: undefined,
    newFileName: undefined,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: [],
    oldPath: undefined,
    newPath: undefined,
    path: fallbackPath,
    binary: BINARY_LINE.test(text),
    preamble: text,
    text,
    ...(problem === undefined ? {} : { problem }),
  };
}

function readSection(text: string, fallbackPath: string): FileDiff[] {
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return [emptyFile(text, fallbackPath, `the diff could not be read: ${message}`)];
  }
  // Every line starting `@@ ` is a hunk header (a hunk's own lines start with a mark), in jsdiff's order.
  const headers: { line: string; at: number }[] = [];
  for (const match of text.matchAll(HUNK_LINE)) headers.push({ line: match[0], at: match.index });
  let next = 0;
  const files = patches.map((patch): FileDiff => {
    const hunks = patch.hunks.map((hunk): DiffHunk => {
      const lines = hunk.lines;
      for (let i = lines.indexOf(''); i >= 0; i = lines.indexOf('', i + 1)) lines[i] = ' ';
      return Object.assign(hunk, { header: headers[next++]?.line ?? '' });
    });
    const oldPath = patch.isCreate === true ? null : stripSide(patch.oldFileName);
    const newPath = patch.isDelete === true ? null : stripSide(patch.newFileName);
    const preamble = text.slice(0, headers[0]?.at ?? text.length);
    return {
      ...patch,
      hunks,
      oldPath,
      newPath,
      path: newPath ?? oldPath ?? fallbackPath,
      binary: patch.isBinary === true || (hunks.length === 0 && BINARY_LINE.test(preamble)),
      preamble,
      text,
    };
  });
  if (files.length > 1) {
    // Several files in a section without `diff --git` lines: the preamble is only the first file's.
    for (const file of files.slice(1)) file.preamble = '';
  }
  return files;
}

/**
 * The line a diff cut to WEFT_DIFF_MAX_CHARS ends with (`~ Weft left out …`, see src-main/util/diff-cut.ts),
 * or null. jsdiff skips it as text between files.
 */
export function cutMarker(text: string): string | null {
  const end = text.endsWith('\n') ? text.length - 1 : text.length;
  const line = text.slice(text.lastIndexOf('\n', end - 1) + 1, end);
  return line.startsWith('~ Weft left out ') ? line : null;
}

/** The `@@` line's numbers of a hunk (git's: a count of 0 starts at the line before). */
export function headerNumbers(hunk: HunkNumbers): HunkNumbers {
  return {
    oldStart: hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart,
    oldLines: hunk.oldLines,
    newStart: hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart,
    newLines: hunk.newLines,
  };
}

/**
 * A `@@ -a,b +c,d @@` line for jsdiff-numbered ranges, followed by `heading` (e.g. ` function f()`); a count
 * of 1 is left out, as git writes it.
 */
export function formatHunkHeader(hunk: HunkNumbers, heading = ''): string {
  const n = headerNumbers(hunk);
  const side = (start: number, count: number): string => (count === 1 ? `${start}` : `${start},${count}`);
  return `@@ -${side(n.oldStart, n.oldLines)} +${side(n.newStart, n.newLines)} @@${heading}`;
}

/** What follows the `@@ … @@` of a hunk's header: its section heading with the space before it, or ''. */
export function hunkHeading(hunk: DiffHunk): string {
  return /^@@ [^@]*@@(.*)$/.exec(hunk.header)?.[1] ?? '';
}

/** Lines added and removed by the hunks. */
export function hunkStats(hunks: readonly StructuredPatchHunk[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      const mark = line.charCodeAt(0);
      if (mark === PLUS) added += 1;
      else if (mark === MINUS) removed += 1;
    }
  }
  return { added, removed };
}

const PLUS = 0x2b;
const MINUS = 0x2d;

/** Whether the old / new side's last line in this hunk has no final line break ("\ No newline…"). */
export function missingNewlines(hunk: StructuredPatchHunk): { old: boolean; new: boolean } {
  let old = false;
  let added = false;
  let previous = '';
  for (const line of hunk.lines) {
    const mark = line[0] ?? ' ';
    if (mark === '\\') {
      if (previous === '-' || previous === ' ') old = true;
      if (previous === '+' || previous === ' ') added = true;
    } else previous = mark;
  }
  return { old, new: added };
}
