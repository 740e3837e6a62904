// git's unified diff of one path, read by the one diff reader (src-preload/diff), and patches rebuilt
// from a chosen subset of its hunks (for `git apply`). Hunks are numbered as their `@@` lines say (git's).
import type { GitHunk } from '../../src-preload/protocol';
import { headerNumbers, hunkStats, parseFileDiff, parseMultiFileDiff } from '../../src-preload/diff/unified-diff';

export interface ParsedHunk extends GitHunk {
  /** The hunk's lines after its `@@` line, as git wrote them (without line ends). */
  lines: readonly string[];
}

export interface ParsedFileDiff {
  /** Everything before the first hunk (`diff --git`, `index`, `---`, `+++`…), each line ending in `\n`. */
  header: string;
  hunks: ParsedHunk[];
  binary: boolean;
}

/** Reads one file's diff as git printed it; throws (saying why) when it cannot be read. */
export function readGitDiff(diff: string): ParsedFileDiff {
  const file = parseFileDiff(diff);
  if (file.problem !== undefined) throw new Error(file.problem);
  return {
    header: file.preamble,
    hunks: file.hunks.map((hunk, index) => ({ index, header: hunk.header, ...headerNumbers(hunk), lines: hunk.lines })),
    binary: file.binary,
  };
}

/** The hunk's text: its `@@` line and body, each line ending in `\n`. */
function hunkText(hunk: ParsedHunk): string {
  return `${hunk.header}\n${hunk.lines.map((line) => `${line}\n`).join('')}`;
}

function checkIndices(parsed: ParsedFileDiff, wanted: ReadonlySet<number>): void {
  for (const i of wanted) {
    if (parsed.hunks[i] === undefined) throw new Error(`the diff has no hunk ${i} (it has ${parsed.hunks.length})`);
  }
}

/** A patch holding the header and only the hunks at `indices`; throws when an index is not there. */
export function patchWithHunks(parsed: ParsedFileDiff, indices: readonly number[]): string {
  const wanted = new Set(indices);
  checkIndices(parsed, wanted);
  // Hunks left out shift the later ones; `git apply` finds them by their context, so the header numbers
  // of the old side (which stay right) are what matters.
  return (
    parsed.header +
    parsed.hunks
      .filter((h) => wanted.has(h.index))
      .map(hunkText)
      .join('')
  );
}

/**
 * A new file's diff (one hunk adding every line) split into blocks at blank lines, each a hunk of its own
 * (`@@ -0,0 +start,count @@`), so that part of a new file can be staged. Other diffs are returned as they are.
 */
export function splitNewFile(parsed: ParsedFileDiff): ParsedFileDiff {
  const only = parsed.hunks[0];
  if (parsed.hunks.length !== 1 || only === undefined || only.oldStart !== 0 || only.oldLines !== 0) return parsed;
  const blocks: string[][] = [];
  let current: string[] = [];
  for (const line of only.lines) {
    // A "\ No newline" marker belongs to the line before it.
    if (line.startsWith('\\')) {
      current.push(line);
      continue;
    }
    const previous = current.filter((l) => !l.startsWith('\\')).at(-1);
    if (previous !== undefined && previous.trim() === '+' && line.trim() !== '+') {
      blocks.push(current);
      current = [];
    }
    current.push(line);
  }
  if (current.length > 0) blocks.push(current);
  let start = 1;
  const hunks = blocks.map((lines, index): ParsedHunk => {
    const count = lines.filter((l) => !l.startsWith('\\')).length;
    const hunk = {
      index,
      header: `@@ -0,0 +${start},${count} @@`,
      oldStart: 0,
      oldLines: 0,
      newStart: start,
      newLines: count,
      lines,
    };
    start += count;
    return hunk;
  });
  return { ...parsed, hunks };
}

/**
 * A patch creating the file with only the lines of the chosen blocks of `splitNewFile` (for `git apply
 * --cached`: the index gets a new file holding those lines); throws when an index is not there.
 */
export function newFilePatchWithHunks(parsed: ParsedFileDiff, indices: readonly number[]): string {
  const wanted = new Set(indices);
  checkIndices(parsed, wanted);
  const lines = parsed.hunks.filter((h) => wanted.has(h.index)).flatMap((h) => h.lines);
  // The blob id on the `index` line names the whole file, not the part staged.
  const header = parsed.header
    .split('\n')
    .filter((line) => !line.startsWith('index '))
    .join('\n');
  const count = lines.filter((l) => !l.startsWith('\\')).length;
  return `${header}@@ -0,0 +1,${count} @@\n${lines.map((line) => `${line}\n`).join('')}`;
}

/** "+3 −1" for a list: the lines a patch adds and removes. */
export function lineSummary(patch: string): string {
  const { added, removed } = hunkStats(parseMultiFileDiff(patch).flatMap((file) => file.hunks));
  return `+${added} −${removed}`;
}
