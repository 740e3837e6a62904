// A text file as lines, and back: line ends and a byte-order mark survive a round trip.

export type Eol = '\n' | '\r\n';

export interface SplitText {
  /** The lines with any trailing '\r' removed: what chunks are matched against. */
  lines: string[];
  /** The lines as they were, each still carrying its '\r' if it had one; null when the text has no '\r'. */
  raw: string[] | null;
  /** The text ended with a line break (true for empty text). */
  finalNewline: boolean;
  /** The text began with U+FEFF. */
  bom: boolean;
  /** The dominant line end: CRLF when more lines end in CRLF than in a bare LF. */
  eol: Eol;
}

let memoText: string | null = null;
let memoSplit: SplitText | null = null;

/** Splits text into lines. The last result is remembered, since planning and diffing split the same text. */
export function splitText(text: string): SplitText {
  if (memoSplit !== null && memoText === text) return memoSplit;
  const bom = text.charCodeAt(0) === 0xfeff;
  const body = bom ? text.slice(1) : text;
  const pieces = body === '' ? [] : body.split('\n');
  const finalNewline = pieces.length === 0 || pieces[pieces.length - 1] === '';
  if (pieces.length > 0 && finalNewline) pieces.pop();
  let raw: string[] | null = null;
  let lines = pieces;
  let crlf = 0;
  if (body.includes('\r')) {
    raw = pieces;
    lines = pieces.map((line, i) => {
      if (!line.endsWith('\r')) return line;
      if (i < pieces.length - 1 || finalNewline) crlf++;
      return line.slice(0, -1);
    });
  }
  const lineBreaks = finalNewline ? pieces.length : pieces.length - 1;
  const split: SplitText = { lines, raw, finalNewline, bom, eol: crlf > lineBreaks - crlf ? '\r\n' : '\n' };
  memoText = text;
  memoSplit = split;
  return split;
}

/** A replacement of `oldCount` lines at 0-based `start` by `newLines`. */
export interface LineEdit {
  start: number;
  oldCount: number;
  newLines: readonly string[];
}

/**
 * Applies sorted, non-overlapping edits. Untouched lines keep their own line ends; replacement lines get the
 * dominant one. The result ends with a line break unless the original did not and no edit reaches its end.
 */
export function applyEdits(split: SplitText, edits: readonly LineEdit[]): string {
  const source = split.raw ?? split.lines;
  const parts: string[] = split.bom ? ['\uFEFF'] : [];
  let cursor = 0;
  for (const edit of edits) {
    if (edit.start > cursor) parts.push(source.slice(cursor, edit.start).join('\n'), '\n');
    if (edit.newLines.length > 0) parts.push(edit.newLines.join(split.eol), split.eol);
    cursor = Math.max(cursor, edit.start + edit.oldCount);
  }
  const total = source.length;
  if (cursor < total) {
    parts.push(source.slice(cursor).join('\n'));
    if (split.finalNewline) parts.push('\n');
  }
  return parts.join('');
}
