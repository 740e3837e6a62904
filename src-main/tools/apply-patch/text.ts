// A text file seen as lines without splitting it: line starts are indexed once, and a line becomes a string
// only when it is needed (a 200,000-line file must not cost 200,000 allocations). Line ends and a
// byte-order mark survive the round trip through applyEdits.

import type { Pacer } from '../../util/slicer';

export type Eol = '\n' | '\r\n';

/** Read access to a sequence of lines (without their line ends). */
export interface LineSource {
  readonly count: number;
  line(index: number): string;
  /** Whether line `index` equals `text` exactly. */
  lineEquals(index: number, text: string): boolean;
  /** Every line, as strings. */
  lines(): readonly string[];
  /** The first line at or after `from` that equals `text` exactly; -1 if none. */
  findLine(text: string, from: number): number;
}

/** A string array as a LineSource. */
export function arrayLines(lines: readonly string[]): LineSource {
  return {
    count: lines.length,
    line: (index) => lines[index] ?? '',
    lineEquals: (index, text) => lines[index] === text,
    lines: () => lines,
    findLine: (text, from) => {
      for (let k = Math.max(0, from); k < lines.length; k++) if (lines[k] === text) return k;
      return -1;
    },
  };
}

const LF = 10;
const CR = 13;

/** Where each line of a text starts (`starts[count]`: just past the end) and how many end in CRLF. */
interface LineScan {
  starts: Int32Array;
  count: number;
  crlf: number;
  hasCr: boolean;
}

/** Finds the line starts of `body`, yielding every few thousand lines so a caller can pause. */
function* scanLines(body: string | Buffer, hasCr: boolean): Generator<void, LineScan, void> {
  let starts = new Int32Array(1024);
  let count = 0;
  let crlf = 0;
  let from = 0;
  while (from < body.length) {
    if (count + 1 >= starts.length) {
      const grown = new Int32Array(starts.length * 2);
      grown.set(starts);
      starts = grown;
    }
    starts[count++] = from;
    const lf = typeof body === 'string' ? body.indexOf('\n', from) : body.indexOf(LF, from);
    if (lf < 0) {
      from = body.length + 1;
      break;
    }
    if (hasCr && lf > from && (typeof body === 'string' ? body.charCodeAt(lf - 1) : body[lf - 1]) === CR) crlf++;
    from = lf + 1;
    if ((count & 4095) === 0) yield;
  }
  starts[count] = from;
  return { starts, count, crlf, hasCr };
}

/** Whether a body has a carriage return anywhere. */
const hasCarriageReturn = (body: string | Buffer): boolean =>
  typeof body === 'string' ? body.includes('\r') : body.includes(CR);

/** Characters outside ASCII: such text is never found in a file held as ASCII bytes. */
const NON_ASCII = /[^\p{ASCII}]/u;

export class TextLines implements LineSource {
  /**
   * The text without its byte-order mark: a string, or the file's bytes themselves when they are ASCII
   * (each byte one character), so that a big file is never copied into a string of the same size (44 MB
   * decoded in one stretch held the event loop 25–45 ms).
   */
  private readonly body: string | Buffer;
  readonly bom: boolean;
  /** The text ended with a line break (true for empty text). */
  readonly finalNewline: boolean;
  /** The dominant line end: CRLF when more lines end in CRLF than in a bare LF. */
  readonly eol: Eol;
  readonly count: number;
  /** starts[k] is where line k begins; starts[k + 1] - 1 is where its '\n' is (or the text's end). */
  private readonly starts: Int32Array;
  private readonly hasCr: boolean;
  private all: string[] | null = null;

  /**
   * `text`: the text, or null when `bytes` are ASCII and stand for it. `bytes`: the file's bytes when the
   * text is them decoded byte for byte (an ASCII file), so that offsets into the text are offsets into the
   * bytes and editedBytes can write untouched runs as views of them. `scanned`: the line starts found
   * beforehand (splitTextPaced), else found here.
   */
  constructor(
    text: string | null,
    readonly bytes: Buffer | null = null,
    scanned: LineScan | null = null,
  ) {
    if (text === null && bytes === null) throw new Error('TextLines: neither text nor bytes');
    if (text !== null && bytes !== null && bytes.length !== text.length)
      throw new Error('TextLines: bytes and text differ in length');
    this.bom = text !== null && text.charCodeAt(0) === 0xfeff;
    const body: string | Buffer = text === null ? (bytes ?? Buffer.alloc(0)) : this.bom ? text.slice(1) : text;
    this.body = body;
    let scan = scanned;
    if (scan === null) {
      const steps = scanLines(body, hasCarriageReturn(body));
      for (let step = steps.next(); ; step = steps.next()) {
        if (step.done === true) {
          scan = step.value;
          break;
        }
      }
    }
    this.hasCr = scan.hasCr;
    this.starts = scan.starts;
    this.count = scan.count;
    this.finalNewline = body.length === 0 || this.code(body.length - 1) === LF;
    const breaks = this.finalNewline ? scan.count : scan.count - 1;
    this.eol = scan.crlf > breaks - scan.crlf ? '\r\n' : '\n';
  }

  private code(at: number): number {
    const body = this.body;
    return typeof body === 'string' ? body.charCodeAt(at) : (body[at] ?? Number.NaN);
  }

  private slice(start: number | undefined, end: number): string {
    const body = this.body;
    return typeof body === 'string' ? body.slice(start, end) : body.toString('latin1', start, end);
  }

  /** Offset just past line `index`'s content, before any '\r' and '\n'. */
  private contentEnd(index: number): number {
    const end = Math.min((this.starts[index + 1] ?? 0) - 1, this.body.length);
    return this.hasCr && end > (this.starts[index] ?? 0) && this.code(end - 1) === CR ? end - 1 : end;
  }

  line(index: number): string {
    if (index < 0 || index >= this.count) return '';
    return this.slice(this.starts[index], this.contentEnd(index));
  }

  lineEquals(index: number, text: string): boolean {
    if (index < 0 || index >= this.count) return false;
    const start = this.starts[index] ?? 0;
    const end = this.contentEnd(index);
    // A slice is a cheap view of the body; comparing it beats startsWith(text, start) in V8.
    return end - start === text.length && this.slice(start, end) === text;
  }

  findLine(text: string, from: number): number {
    if (from >= this.count) return -1;
    const body = this.body;
    if (typeof body !== 'string' && NON_ASCII.test(text)) return -1;
    let offset = this.starts[Math.max(0, from)] ?? 0;
    // A native substring search finds candidates far faster than comparing line by line.
    for (;;) {
      const hit = typeof body === 'string' ? body.indexOf(text, offset) : body.indexOf(text, offset, 'latin1');
      if (hit < 0) return -1;
      const k = this.lineAt(hit);
      if (this.starts[k] === hit && this.contentEnd(k) - hit === text.length) return k;
      offset = this.starts[k + 1] ?? body.length + 1;
      // Past the end (an empty `text` is found at the end of a text ending in a line break: no line is there).
      if (offset > body.length || offset <= hit) return -1;
    }
  }

  /** The line containing character `offset` of the body. */
  private lineAt(offset: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((this.starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Every line, as strings (built once). */
  lines(): string[] {
    if (this.all === null) {
      const all: string[] = new Array<string>(this.count);
      for (let k = 0; k < this.count; k++) all[k] = this.line(k);
      this.all = all;
    }
    return this.all;
  }

  /** Lines from..to-1 exactly as in the text, each with its own line end (none after an unterminated last line). */
  raw(from: number, to: number): string {
    return this.slice(this.starts[from], Math.min(this.starts[to] ?? 0, this.body.length));
  }

  /** raw(from, to) as a view of the file's bytes (needs `bytes`). */
  rawBytes(bytes: Buffer, from: number, to: number): Buffer {
    return bytes.subarray(this.starts[from], Math.min(this.starts[to] ?? 0, bytes.length));
  }
}

let memoKey: string | Buffer | null = null;
let memoLines: TextLines | null = null;

/**
 * The lines of `text` (`bytes`: see TextLines). The last result is remembered, since planning and diffing
 * read the same text.
 */
export function splitText(text: string, bytes: Buffer | null = null): TextLines {
  if (memoLines !== null && memoKey === text && (bytes === null || memoLines.bytes === bytes)) return memoLines;
  memoLines = new TextLines(text, bytes);
  memoKey = text;
  return memoLines;
}

/** Past this size ASCII bytes are read as bytes only: a string of a 44 MB file took 25–45 ms to make. */
export const ASCII_AS_STRING_MAX = 16 * 1024 * 1024;

/**
 * splitText, finding the lines of a big text in slices between pauses. Given a Buffer, the text is those
 * bytes, which must be ASCII (see TextLines); past ASCII_AS_STRING_MAX no string of the whole file is made.
 */
export async function splitTextPaced(source: string | Buffer, pacer: Pacer): Promise<TextLines> {
  if (memoLines !== null && memoKey === source) return memoLines;
  // ASCII bytes of a file up to a few MB are also read as a string (a copy of a few ms): the lines are
  // then found and compared by the engine's own string search, without a call into Node per line. The
  // bytes stay beside it for writing (editedBytes).
  const bytes = typeof source === 'string' ? null : source;
  const text =
    typeof source === 'string' ? source : source.length <= ASCII_AS_STRING_MAX ? source.toString('latin1') : null;
  const body = text === null ? source : text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const steps = scanLines(body, hasCarriageReturn(body));
  let scan: LineScan;
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done === true) {
      scan = step.value;
      break;
    }
    if (pacer.due()) await pacer.pause();
  }
  memoLines = new TextLines(text, bytes, scan);
  memoKey = source;
  return memoLines;
}

/** A replacement of `oldCount` lines at 0-based `start` by `newLines`. */
export interface LineEdit {
  start: number;
  oldCount: number;
  newLines: readonly string[];
}

/** The pieces of the edited text in order: untouched runs of the original (`raw`) and replacement text. */
function editPieces<T>(
  text: TextLines,
  edits: readonly LineEdit[],
  raw: (from: number, to: number) => T,
  fresh: (text: string) => T,
): T[] {
  const parts: T[] = text.bom ? [fresh('\uFEFF')] : [];
  let cursor = 0;
  for (const edit of edits) {
    if (edit.start > cursor) {
      parts.push(raw(cursor, edit.start));
      // Lines added after an unterminated last line need a line break between.
      if (edit.start >= text.count && !text.finalNewline) parts.push(fresh(text.eol));
    }
    if (edit.newLines.length > 0) parts.push(fresh(edit.newLines.join(text.eol) + text.eol));
    cursor = Math.max(cursor, edit.start + edit.oldCount);
  }
  if (cursor < text.count) parts.push(raw(cursor, text.count));
  return parts;
}

/**
 * Applies sorted, non-overlapping edits. Untouched lines keep their own line ends; replacement lines get the
 * dominant one. The result ends with a line break unless the original did not and no edit reaches its end.
 */
export function applyEdits(text: TextLines, edits: readonly LineEdit[]): string {
  return editPieces(
    text,
    edits,
    (from, to) => text.raw(from, to),
    (s) => s,
  ).join('');
}

/**
 * applyEdits as UTF-8 bytes to write in order, without building the text: untouched runs are views of the
 * file's bytes (for 2,000 edits in an 8 MB file this skips copying the whole text twice, once to join it
 * and once to encode it). Null when the text was not built with its bytes.
 */
export function editedBytes(text: TextLines, edits: readonly LineEdit[]): Buffer[] | null {
  const bytes = text.bytes;
  if (bytes === null) return null;
  // The replacement text is encoded in one go and cut into views: one Buffer.from per edit costs 2 µs
  // each, 20 ms for a patch of 10,000 hunks in one stretch.
  const fresh: string[] = [];
  const pieces = editPieces<Buffer | number>(
    text,
    edits,
    (from, to) => text.rawBytes(bytes, from, to),
    (s) => fresh.push(s) - 1,
  );
  const joined = fresh.join('');
  const encoded = Buffer.from(joined, 'utf8');
  const ascii = encoded.length === joined.length;
  const views: Buffer[] = [];
  let at = 0;
  for (const piece of pieces) {
    if (typeof piece !== 'number') {
      views.push(piece);
      continue;
    }
    const s = fresh[piece] ?? '';
    const size = ascii ? s.length : Buffer.byteLength(s, 'utf8');
    views.push(encoded.subarray(at, at + size));
    at += size;
  }
  return views;
}
