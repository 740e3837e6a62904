// What the diff views do with a file's hunks, as the one diff reader (src-preload/diff, jsdiff underneath)
// gives them: applying a chosen subset to the original text, rebuilding both sides from the hunks alone
// when the original file cannot be read, and where each hunk sits once laid out. Line numbers follow
// jsdiff (`oldStart` / `newStart`: the first line covered, or the line after an insertion point). Pure.
import { missingNewlines, type DiffHunk } from '../../../src-preload/diff/unified-diff';

/** A hunk of a file's diff (see `DiffHunk`). */
export type Hunk = DiffHunk;

/** A hunk line's mark and text; null for a "\ No newline at end of file" line. */
export function hunkLine(line: string): { kind: ' ' | '-' | '+'; text: string } | null {
  const kind = line[0];
  if (kind === '+' || kind === '-') return { kind, text: line.slice(1) };
  if (kind === '\\') return null;
  return { kind: ' ', text: line.slice(1) };
}

interface SplitText {
  lines: string[];
  finalNewline: boolean;
}

function splitText(text: string): SplitText {
  if (text === '') return { lines: [], finalNewline: false };
  const lines = text.split('\n');
  const finalNewline = lines[lines.length - 1] === '';
  if (finalNewline) lines.pop();
  return { lines, finalNewline };
}

function joinText(lines: readonly string[], finalNewline: boolean): string {
  if (lines.length === 0) return '';
  return lines.join('\n') + (finalNewline ? '\n' : '');
}

/**
 * `original` with the hunks for which `include(index)` is true applied (all by default). Returns null when
 * the original does not match a hunk's old side (the file changed since the diff was made).
 */
export function applyHunks(
  original: string,
  hunks: readonly Hunk[],
  include: (index: number) => boolean = () => true,
): string | null {
  const source = splitText(original);
  const out: string[] = [];
  let cursor = 0;
  let finalNewline = source.finalNewline;
  for (const [index, hunk] of hunks.entries()) {
    if (!include(index)) continue;
    const start = hunk.oldStart - 1;
    if (start < cursor || start > source.lines.length) return null;
    out.push(...source.lines.slice(cursor, start));
    let position = start;
    for (const raw of hunk.lines) {
      const line = hunkLine(raw);
      if (line === null) continue;
      if (line.kind === '+') {
        out.push(line.text);
        continue;
      }
      if (source.lines[position] !== line.text) return null;
      if (line.kind === ' ') out.push(line.text);
      position += 1;
    }
    cursor = position;
    if (position === source.lines.length) finalNewline = !missingNewlines(hunk).new;
  }
  out.push(...source.lines.slice(cursor));
  return joinText(out, out.length > 0 && finalNewline);
}

/** The hunk's old side (context and removed lines) or new side (context and added lines). */
function sideLines(hunk: Hunk, side: 'old' | 'new'): string[] {
  const skip = side === 'old' ? '+' : '-';
  const out: string[] = [];
  for (const raw of hunk.lines) {
    const line = hunkLine(raw);
    if (line !== null && line.kind !== skip) out.push(line.text);
  }
  return out;
}

/**
 * Both sides rebuilt from the hunks alone, each line at its real line number; the lines no hunk shows are
 * blank on both sides (an editor that folds unchanged regions hides them).
 */
export function sidesFromHunks(hunks: readonly Hunk[]): { original: string; modified: string } {
  const original: string[] = [];
  const modified: string[] = [];
  const place = (side: string[], at: number, lines: string[]): void => {
    while (side.length < at) side.push('');
    side.push(...lines);
  };
  for (const hunk of hunks) {
    place(original, hunk.oldStart - 1, sideLines(hunk, 'old'));
    place(modified, hunk.newStart - 1, sideLines(hunk, 'new'));
  }
  return { original: joinText(original, original.length > 0), modified: joinText(modified, modified.length > 0) };
}

/**
 * 1-based new-side line range a hunk occupies once every hunk is applied; when it only deletes, the line
 * before the deletion.
 */
export function newRange(hunk: Hunk): { start: number; end: number } {
  if (hunk.newLines === 0) return { start: hunk.newStart - 1, end: hunk.newStart - 1 };
  return { start: hunk.newStart, end: hunk.newStart + hunk.newLines - 1 };
}

/** 1-based old-side line after which something about the hunk goes: its last old line, or its insertion point. */
export function oldEnd(hunk: Hunk): number {
  return hunk.oldStart + hunk.oldLines - 1;
}

/**
 * The hunks that remain when the ones at `declined` indexes are dropped, with their new-side line numbers
 * as they are once only the remaining hunks are applied.
 */
export function keptHunks(hunks: readonly Hunk[], declined: ReadonlySet<number>): Hunk[] {
  const kept: Hunk[] = [];
  let delta = 0;
  hunks.forEach((hunk, index) => {
    if (declined.has(index)) return;
    kept.push({ ...hunk, newStart: hunk.oldStart + delta });
    delta += hunk.newLines - hunk.oldLines;
  });
  return kept;
}

/** Both sides of a diff holding only the hunks' lines, with each line's real number and the gaps between. */
export interface CompactSides {
  original: string;
  modified: string;
  /** Real line number of each line of `original` / `modified` (index 0 = line 1); missing = none. */
  originalNumbers: number[];
  modifiedNumbers: number[];
  /** Unchanged lines left out between two hunks: `hidden` of them, after this line of `modified` (1-based). */
  gaps: { afterModifiedLine: number; hidden: number }[];
}

/**
 * The hunks laid end to end (no blank filler for the lines between them), for a diff view that marks each
 * gap instead. A new or deleted file has one empty side (the diff view shows the other side alone).
 */
export function compactSides(hunks: readonly Hunk[]): CompactSides {
  const original: string[] = [];
  const modified: string[] = [];
  const originalNumbers: number[] = [];
  const modifiedNumbers: number[] = [];
  const gaps: CompactSides['gaps'] = [];
  let previousEnd: number | null = null;
  for (const hunk of hunks) {
    const first = hunk.oldStart;
    if (previousEnd !== null && first > previousEnd)
      gaps.push({ afterModifiedLine: modified.length, hidden: first - previousEnd });
    let oldLine = first;
    let newLine = hunk.newStart;
    for (const raw of hunk.lines) {
      const line = hunkLine(raw);
      if (line === null) continue;
      if (line.kind !== '+') {
        original.push(line.text);
        originalNumbers.push(oldLine++);
      }
      if (line.kind !== '-') {
        modified.push(line.text);
        modifiedNumbers.push(newLine++);
      }
    }
    previousEnd = first + hunk.oldLines;
  }
  return { original: original.join('\n'), modified: modified.join('\n'), originalNumbers, modifiedNumbers, gaps };
}

/**
 * The new-side line right after which a hunk's last change sits (0 = before the first line): where
 * something about the hunk can be shown under its changes, above its trailing context.
 */
export function lastChangeLine(hunk: Hunk): number {
  let line = hunk.newStart - 1;
  let last = line;
  for (const entry of hunk.lines) {
    const kind = entry[0];
    if (kind === '+') {
      line += 1;
      last = line;
    } else if (kind === '-') {
      last = Math.max(last, line);
    } else if (kind !== '\\') {
      line += 1;
    }
  }
  return last;
}

/**
 * For each hunk, the line of `compactSides(hunks).modified` right after which its last change sits
 * (0 = before the first line): where its controls go in a compact diff.
 */
export function compactChangeEnds(hunks: readonly Hunk[]): number[] {
  const ends: number[] = [];
  let offset = 0;
  for (const hunk of hunks) {
    let shown = 0;
    let last = 0;
    for (const entry of hunk.lines) {
      const kind = entry[0];
      if (kind === '+') {
        shown += 1;
        last = shown;
      } else if (kind === '-') last = Math.max(last, shown);
      else if (kind !== '\\') shown += 1;
    }
    ends.push(offset + last);
    offset += shown;
  }
  return ends;
}

/** A hunk's changed lines (context left out) as `+ text` / `- text`, one per line. */
export function changedLines(hunk: Hunk): string {
  const out: string[] = [];
  for (const raw of hunk.lines) {
    const line = hunkLine(raw);
    if (line !== null && line.kind !== ' ') out.push(`${line.kind} ${line.text}`);
  }
  return out.join('\n');
}
