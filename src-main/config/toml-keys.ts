/**
 * Finding where keys are written in TOML source, for messages that point at a line and column.
 * This is a scanner, not a parser: it runs only on text smol-toml has already accepted, follows
 * tables, dotted keys, inline tables, arrays and strings, and records where each key starts.
 * It is best effort: a key it cannot place is reported at the file alone.
 */

export interface KeyPosition {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

/** One key or table header as written in a TOML document. */
export interface KeyEntry {
  /** The full key path (table path + key), decoded. */
  path: string[];
  /** Where the key (or the `[` of a header) starts. */
  offset: number;
  /** `table`/`array`: a `[t]`/`[[t]]` header; `key`: a key/value line; `inline`: a key inside an inline table. */
  kind: 'table' | 'array' | 'key' | 'inline';
  /** For keys, the value's text is `source.slice(valueStart, valueEnd)` (no surrounding blanks); for headers, the header's end. */
  valueStart: number;
  valueEnd: number;
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;
const BARE_CHAR = /[A-Za-z0-9_-]/;

/** A key path as TOML would write it: `a.b."c d"`. Array indices print as `[n]`. */
export function formatKeyPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += (out === '' ? '' : '.') + (BARE_KEY.test(segment) ? segment : JSON.stringify(segment));
  }
  return out;
}

/** Parses a whole string as a dotted TOML key (`a.b."c d"`), or null when it is not one. */
export function parseKeyPath(text: string): string[] | null {
  const scanner = new Scanner(text);
  scanner.skipSpaces();
  const key = scanner.key();
  scanner.skipSpaces();
  return key !== null && scanner.atEnd() ? key : null;
}

/** Every key and table header of a document smol-toml has accepted, in source order. */
export function scanEntries(source: string): KeyEntry[] {
  const scanner = new Scanner(source);
  scanner.document();
  return scanner.entries;
}

/** Where each key of one TOML document is written. */
export class KeyLocator {
  private readonly entries: KeyEntry[];
  private readonly lineStarts: number[];

  constructor(private readonly source: string) {
    this.entries = scanEntries(source);
    this.lineStarts = [0];
    for (let i = 0; i < source.length; i++) if (source[i] === '\n') this.lineStarts.push(i + 1);
  }

  /**
   * The position of the key at `path`, or of the nearest enclosing key or table header that is
   * written in the file when the exact key is not (e.g. an array element points at its array).
   */
  find(path: readonly (string | number)[]): KeyPosition | null {
    const keys = path.filter((segment): segment is string => typeof segment === 'string');
    for (let length = keys.length; length > 0; length--) {
      const entry = this.entries.find(
        (e) => e.path.length === length && keys.slice(0, length).every((k, i) => e.path[i] === k),
      );
      if (entry) return this.position(entry.offset);
    }
    return null;
  }

  /** The line before, the line itself and the line after, with a caret under the column. */
  excerpt(position: KeyPosition): string {
    const lines = this.source.split(/\r?\n/);
    const width = String(position.line + 1).length;
    let out = '';
    for (let n = position.line - 1; n <= position.line + 1; n++) {
      const text = lines[n - 1];
      if (text === undefined || (n !== position.line && text.trim() === '')) continue;
      out += `${String(n).padStart(width)} | ${text}\n`;
      if (n === position.line) out += `${' '.repeat(width)} | ${' '.repeat(position.column - 1)}^\n`;
    }
    return out;
  }

  private position(offset: number): KeyPosition {
    let line = 0;
    while (line + 1 < this.lineStarts.length && (this.lineStarts[line + 1] ?? Infinity) <= offset) line++;
    return { line: line + 1, column: offset - (this.lineStarts[line] ?? 0) + 1 };
  }
}

class Scanner {
  readonly entries: KeyEntry[] = [];
  private pos = 0;

  constructor(private readonly s: string) {}

  atEnd(): boolean {
    return this.pos >= this.s.length;
  }

  skipSpaces(): void {
    while (this.s[this.pos] === ' ' || this.s[this.pos] === '\t') this.pos++;
  }

  /** Whole document: table headers and key/value lines. */
  document(): void {
    let table: string[] = [];
    while (!this.atEnd()) {
      this.skipBlank();
      if (this.atEnd()) break;
      const start = this.pos;
      if (this.s[this.pos] === '[') {
        const kind = this.s[this.pos + 1] === '[' ? 'array' : 'table';
        this.pos += kind === 'array' ? 2 : 1;
        this.skipSpaces();
        const header = this.key();
        if (header !== null) {
          table = header;
          const end = this.pos + (kind === 'array' ? 2 : 1);
          this.entries.push({ path: header, offset: start, kind, valueStart: end, valueEnd: end });
        }
      } else {
        const key = this.key();
        this.skipSpaces();
        if (key !== null && this.s[this.pos] === '=') {
          this.pos++;
          const path = [...table, ...key];
          const entry: KeyEntry = { path, offset: start, kind: 'key', valueStart: 0, valueEnd: 0 };
          this.entries.push(entry);
          this.skipSpaces();
          this.valueSpan(entry, path);
        }
      }
      this.skipLine();
      if (this.pos === start) this.pos++;
    }
  }

  /** A dotted key at the cursor, decoded, or null (cursor unspecified) when there is none. */
  key(): string[] | null {
    const segments: string[] = [];
    for (;;) {
      this.skipSpaces();
      const c = this.s[this.pos];
      if (c === '"') {
        const end = this.basicStringEnd(this.pos);
        segments.push(decodeBasic(this.s.slice(this.pos, end)));
        this.pos = end;
      } else if (c === "'") {
        const close = this.s.indexOf("'", this.pos + 1);
        const end = close < 0 ? this.s.length : close + 1;
        segments.push(this.s.slice(this.pos + 1, end - 1));
        this.pos = end;
      } else {
        const start = this.pos;
        while (this.pos < this.s.length && BARE_CHAR.test(this.s[this.pos] ?? '')) this.pos++;
        if (this.pos === start) return null;
        segments.push(this.s.slice(start, this.pos));
      }
      this.skipSpaces();
      if (this.s[this.pos] !== '.') return segments;
      this.pos++;
    }
  }

  /** Skips one value, noting its span in `entry`. */
  private valueSpan(entry: KeyEntry, path: string[] | null): void {
    entry.valueStart = this.pos;
    this.value(path);
    let end = this.pos;
    while (end > entry.valueStart && ' \t\r'.includes(this.s[end - 1] ?? '')) end--;
    entry.valueEnd = end;
  }

  /** Skips one value; records keys of inline tables under `path` (null inside arrays). */
  private value(path: string[] | null): void {
    const c = this.s[this.pos];
    if (c === '"' || c === "'") {
      this.pos = this.stringEnd(this.pos);
    } else if (c === '[') {
      this.pos++;
      for (;;) {
        this.skipBlank();
        if (this.atEnd() || this.s[this.pos] === ']') break;
        const before = this.pos;
        this.value(null);
        this.skipBlank();
        if (this.s[this.pos] === ',') this.pos++;
        if (this.pos === before) break;
      }
      this.pos++;
    } else if (c === '{') {
      this.pos++;
      for (;;) {
        this.skipBlank();
        if (this.atEnd() || this.s[this.pos] === '}') break;
        const start = this.pos;
        const key = this.key();
        this.skipSpaces();
        if (key === null || this.s[this.pos] !== '=') break;
        this.pos++;
        const inner = path === null ? null : [...path, ...key];
        const entry: KeyEntry = { path: inner ?? [], offset: start, kind: 'inline', valueStart: 0, valueEnd: 0 };
        if (inner !== null) this.entries.push(entry);
        this.skipSpaces();
        this.valueSpan(entry, inner);
        this.skipBlank();
        if (this.s[this.pos] === ',') this.pos++;
      }
      this.pos++;
    } else {
      while (this.pos < this.s.length && !',]}\n#'.includes(this.s[this.pos] ?? '')) this.pos++;
    }
  }

  private stringEnd(start: number): number {
    if (this.s[start] === '"') return this.basicStringEnd(start);
    const triple = this.s.startsWith("'''", start);
    const delimiter = triple ? "'''" : "'";
    const close = this.s.indexOf(delimiter, start + delimiter.length);
    if (close < 0) return this.s.length;
    let end = close + delimiter.length;
    while (triple && this.s[end] === "'" && end - close < 5) end++;
    return end;
  }

  private basicStringEnd(start: number): number {
    const triple = this.s.startsWith('"""', start);
    let i = start + (triple ? 3 : 1);
    while (i < this.s.length) {
      const c = this.s[i];
      if (c === '\\') {
        i += 2;
      } else if (triple && this.s.startsWith('"""', i)) {
        let end = i + 3;
        while (this.s[end] === '"' && end - i < 5) end++;
        return end;
      } else if (!triple && (c === '"' || c === '\n')) {
        return i + 1;
      } else {
        i++;
      }
    }
    return this.s.length;
  }

  /** Whitespace, newlines and comments. */
  private skipBlank(): void {
    for (;;) {
      const c = this.s[this.pos];
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n') this.pos++;
      else if (c === '#') this.skipLine();
      else return;
    }
  }

  private skipLine(): void {
    const newline = this.s.indexOf('\n', this.pos);
    this.pos = newline < 0 ? this.s.length : newline + 1;
  }
}

function decodeBasic(quoted: string): string {
  try {
    const decoded: unknown = JSON.parse(quoted);
    if (typeof decoded === 'string') return decoded;
  } catch {
    // TOML escapes JSON lacks (\e, \UXXXXXXXX, \xHH): keep the text between the quotes.
  }
  return quoted.slice(1, -1);
}
