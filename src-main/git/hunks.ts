// Unified diffs as git prints them, split into a file header and hunks, and patches rebuilt from a
// chosen subset of hunks (for `git apply`).
import type { GitHunk } from '../../src-preload/protocol';

export interface ParsedHunk extends GitHunk {
  /** The hunk's text: its `@@` line and body, each line ending in `\n`. */
  text: string;
}

export interface ParsedFileDiff {
  /** Everything before the first hunk (`diff --git`, `index`, `---`, `+++`…). */
  header: string;
  hunks: ParsedHunk[];
  binary: boolean;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Splits one file's unified diff. Lines keep their endings; a diff without hunks has an empty list. */
export function parseFileDiff(diff: string): ParsedFileDiff {
  const lines = diff.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  let header = '';
  const hunks: ParsedHunk[] = [];
  let current: ParsedHunk | null = null;
  let binary = false;
  for (const line of lines) {
    const m = HUNK_HEADER.exec(line);
    if (m) {
      current = {
        index: hunks.length,
        header: line.replace(/\n$/, ''),
        oldStart: Number(m[1]),
        oldLines: m[2] === undefined ? 1 : Number(m[2]),
        newStart: Number(m[3]),
        newLines: m[4] === undefined ? 1 : Number(m[4]),
        text: line.endsWith('\n') ? line : `${line}\n`,
      };
      hunks.push(current);
    } else if (current) {
      current.text += line.endsWith('\n') ? line : `${line}\n`;
    } else {
      if (line.startsWith('Binary files ') || line.startsWith('GIT binary patch')) binary = true;
      header += line.endsWith('\n') ? line : `${line}\n`;
    }
  }
  return { header, hunks, binary };
}

/** A patch holding the header and only the hunks at `indices`; throws when an index is not there. */
export function patchWithHunks(parsed: ParsedFileDiff, indices: readonly number[]): string {
  const wanted = new Set(indices);
  for (const i of wanted) {
    if (parsed.hunks[i] === undefined) throw new Error(`the diff has no hunk ${i} (it has ${parsed.hunks.length})`);
  }
  // Hunks left out shift the later ones; `git apply` finds them by their context, so the header numbers
  // of the old side (which stay right) are what matters.
  return (
    parsed.header +
    parsed.hunks
      .filter((h) => wanted.has(h.index))
      .map((h) => h.text)
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
  const body = only.text
    .split('\n')
    .slice(1, -1)
    .map((line) => `${line}\n`);
  const blocks: string[][] = [];
  let current: string[] = [];
  for (const line of body) {
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
    const header = `@@ -0,0 +${start},${count} @@`;
    const hunk = {
      index,
      header,
      oldStart: 0,
      oldLines: 0,
      newStart: start,
      newLines: count,
      text: `${header}\n${lines.join('')}`,
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
  for (const i of wanted) {
    if (parsed.hunks[i] === undefined) throw new Error(`the diff has no hunk ${i} (it has ${parsed.hunks.length})`);
  }
  const lines = parsed.hunks
    .filter((h) => wanted.has(h.index))
    .flatMap((h) =>
      h.text
        .split('\n')
        .slice(1, -1)
        .map((line) => `${line}\n`),
    );
  // The blob id on the `index` line names the whole file, not the part staged.
  const header = parsed.header
    .split('\n')
    .filter((line) => !line.startsWith('index '))
    .join('\n');
  const count = lines.filter((l) => !l.startsWith('\\')).length;
  return `${header}@@ -0,0 +1,${count} @@\n${lines.join('')}`;
}

/** "+3 −1" for a list. */
export function lineSummary(patch: string): string {
  let added = 0;
  let removed = 0;
  for (const line of patch.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++')) added++;
    else if (line.startsWith('-') && !line.startsWith('---')) removed++;
  }
  return `+${added} −${removed}`;
}
