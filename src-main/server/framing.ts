// Hand-written on purpose: size and nesting limits are checked on the bytes before JSON.parse, and a frame
// error keeps the request's id; the JSON-RPC packages parse first and answer unreadable frames with `id: null`.
/**
 * Framing shared by the stream transports: JSONL decoding with size and nesting limits, and the marker a
 * transport hands to the dispatcher instead of a message when a frame could not be read. The dispatcher
 * answers a frame error with a JSON-RPC error carrying the frame's `id` when it could be read (a line
 * over the limit, a message nested too deep), else `id: null`.
 */
import { RequestIdScanner } from './request-id-scanner';
import { QUOTE, BACKSLASH, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY } from './json-bytes';

/** Largest message accepted on any transport: a line on stdio, a text frame on WebSocket. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * Deepest nesting of objects and arrays accepted in a message. Validation and handlers walk params
 * recursively (the JSON value schemas, config overrides, TOML layers); a message nested thousands deep
 * would overflow the stack and take every thread of the host down with it. Real messages stay far below:
 * an output schema 30 properties deep is about 60 levels.
 */
export const MAX_MESSAGE_DEPTH = 100;

export const TOO_DEEP_MESSAGE = `Invalid request: the message is nested deeper than ${MAX_MESSAGE_DEPTH} levels`;

/** A frame that could not become a message: `-32700` not JSON, `-32600` unusable (too large, too deep, binary). */
export interface FrameError {
  readonly kind: 'frame-error';
  readonly code: -32700 | -32600;
  readonly message: string;
  /** The request's id, when it could be read from the unusable frame. */
  readonly id?: string | number;
}

export function isFrameError(value: unknown): value is FrameError {
  if (typeof value !== 'object' || value === null) return false;
  const kind: unknown = Reflect.get(value, 'kind');
  const code: unknown = Reflect.get(value, 'code');
  const id: unknown = Reflect.get(value, 'id');
  const idOk = id === undefined || typeof id === 'string' || typeof id === 'number';
  return (
    kind === 'frame-error' &&
    (code === -32700 || code === -32600) &&
    typeof Reflect.get(value, 'message') === 'string' &&
    idOk
  );
}

/** Describes a byte count for people: `10 MiB` for whole mebibytes, otherwise bytes. */
export function formatLimit(bytes: number): string {
  const mib = 1024 * 1024;
  return bytes % mib === 0 ? `${bytes / mib} MiB` : `${bytes} bytes`;
}

export function tooLargeError(
  bytes: number,
  limit: number = MAX_MESSAGE_BYTES,
  id: string | number | null = null,
): FrameError {
  const message = `message too large: ${bytes} bytes exceeds the ${formatLimit(limit)} limit`;
  return id === null
    ? { kind: 'frame-error', code: -32600, message }
    : { kind: 'frame-error', code: -32600, message, id };
}

/** Longest JSON.parse detail kept in a parse error (V8 already elides long input, this is a backstop). */
const MAX_DETAIL_CHARS = 200;

export function parseError(detail: string): FrameError {
  const short = detail.length > MAX_DETAIL_CHARS ? `${detail.slice(0, MAX_DETAIL_CHARS)}…` : detail;
  return { kind: 'frame-error', code: -32700, message: `Parse error: ${short}` };
}

export function tooDeepError(id: string | number | null): FrameError {
  return id === null
    ? { kind: 'frame-error', code: -32600, message: TOO_DEEP_MESSAGE }
    : { kind: 'frame-error', code: -32600, message: TOO_DEEP_MESSAGE, id };
}

/**
 * Parses one frame's text: the JSON value (not yet validated as a message), a `-32700` frame error, or a
 * `-32600` one for a message nested deeper than {@link MAX_MESSAGE_DEPTH} (counted before parsing, with
 * the request's id when it can be found).
 */
export function parseFrame(text: string): unknown {
  if (textNestsDeeper(text, MAX_MESSAGE_DEPTH)) {
    const scanner = new RequestIdScanner();
    scanner.push(Buffer.from(text, 'utf8'));
    return tooDeepError(scanner.id);
  }
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch (error) {
    return parseError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Whether JSON text opens more than `limit` objects and arrays inside one another (strings skipped).
 * Malformed text is not judged: `JSON.parse` says what is wrong with it.
 */
export function textNestsDeeper(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = closingQuote(text, i);
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth -= 1;
  }
  return false;
}

/** Index of the quote closing the string opened at `open` (the text's length when there is none). */
function closingQuote(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/**
 * Whether a value holds objects and arrays more than `limit` deep (a cycle counts as endless), for
 * transports that hand over objects rather than text. Walked level by level without recursion; an
 * object reached twice on one level is walked once, so shared parts cost no more than a tree.
 */
export function nestsDeeper(value: unknown, limit: number): boolean {
  let level = new Set<object>();
  if (typeof value === 'object' && value !== null) level.add(value);
  for (let depth = 1; level.size > 0; depth++) {
    if (depth > limit) return true;
    const next = new Set<object>();
    for (const node of level)
      for (const child of Object.values(node)) if (typeof child === 'object' && child !== null) next.add(child);
    level = next;
  }
  return false;
}

const NEWLINE = 0x0a;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface JsonlDecoderOptions {
  /** Longest line accepted, in bytes, without its newline. Default {@link MAX_MESSAGE_BYTES}. */
  maxLineBytes?: number;
}

/**
 * Splits a byte stream into lines and parses each as JSON. Lines are split on bytes and decoded whole,
 * so a UTF-8 character split across chunks is intact. Blank lines are skipped; `\r\n` is accepted.
 * A line longer than the limit is never held in memory: once it passes the limit its bytes are only
 * counted (and walked for its top-level `id`) until its newline, then one `-32600` frame error is
 * emitted for it, with that id when one was found, and decoding resumes.
 */
export class JsonlDecoder {
  readonly #emit: (message: unknown) => void;
  readonly #maxLineBytes: number;
  #parts: Buffer[] = [];
  #lineBytes = 0;
  /** Set while skipping the rest of an oversized line (`#lineBytes` keeps counting): looks for its id. */
  #discarding: RequestIdScanner | null = null;

  constructor(emit: (message: unknown) => void, options: JsonlDecoderOptions = {}) {
    this.#emit = emit;
    this.#maxLineBytes = options.maxLineBytes ?? MAX_MESSAGE_BYTES;
  }

  push(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(NEWLINE, start);
      const end = newline === -1 ? bytes.length : newline;
      this.#take(bytes.subarray(start, end));
      if (newline === -1) return;
      this.#finishLine();
      start = newline + 1;
    }
  }

  /** The stream ended: a last line without a newline is still a line. */
  end(): void {
    if (this.#lineBytes > 0 || this.#discarding !== null) this.#finishLine();
  }

  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.#lineBytes += piece.length;
    if (this.#discarding !== null) {
      this.#discarding.push(piece);
      return;
    }
    if (this.#lineBytes > this.#maxLineBytes) {
      const scanner = new RequestIdScanner();
      for (const part of this.#parts) scanner.push(part);
      scanner.push(piece);
      this.#discarding = scanner;
      this.#parts = [];
      return;
    }
    this.#parts.push(piece);
  }

  #finishLine(): void {
    const parts = this.#parts;
    const lineBytes = this.#lineBytes;
    const discarded = this.#discarding;
    this.#parts = [];
    this.#lineBytes = 0;
    this.#discarding = null;
    if (discarded !== null) {
      this.#emit(tooLargeError(lineBytes, this.#maxLineBytes, discarded.id));
      return;
    }
    if (lineBytes === 0) return;
    const line = parts.length === 1 && parts[0] !== undefined ? parts[0] : Buffer.concat(parts, lineBytes);
    let text: string;
    try {
      text = utf8.decode(line);
    } catch {
      this.#emit(parseError('the line is not valid UTF-8'));
      return;
    }
    if (text.trim() === '') return;
    this.#emit(parseFrame(text));
  }
}
