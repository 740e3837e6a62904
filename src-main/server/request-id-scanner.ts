/**
 * Finds the top-level `"id"` of a JSON object fed to it in pieces, without keeping the object: used on
 * a line too large to parse, so that its error can still carry the request's id. Only the bytes of the
 * id's value are kept (at most {@link MAX_ID_BYTES}); everything else is only walked through.
 *
 * The id is what `JSON.parse` would give: the last top-level `"id"` key wins. A key written with escapes
 * (`"\u0069d"`) is not recognised, and an id that is not a string or an integer counts as unknown.
 */
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './json-bytes';

/** Longest id value kept, in bytes. Ids are short counters or uuids; a longer one counts as unknown. */
const MAX_ID_BYTES = 1024;

const isSpace = (b: number): boolean => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

export class RequestIdScanner {
  /** Nesting depth: 1 inside the top-level object. */
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** The top level is not an object: there is no id to find. */
  #hopeless = false;
  /** At depth 1, the next string is a key. */
  #expectKey = false;
  /** Bytes of the key being read (only while it could still be `id`). */
  #key: number[] | null = null;
  /** The key just read was `id`: the next value is captured. */
  #idKeyRead = false;
  /** Bytes of the id value being captured, or null when not capturing. */
  #value: number[] | null = null;
  #valueIsString = false;
  #found: string | number | null = null;
  #seenAny = false;

  /** The id found so far (the last one seen), or null. */
  get id(): string | number | null {
    return this.#found;
  }

  push(chunk: Uint8Array): void {
    if (this.#hopeless) return;
    for (const b of chunk) {
      this.#step(b);
      if (this.#hopeless) return;
    }
  }

  #step(b: number): void {
    if (!this.#seenAny) {
      if (isSpace(b)) return;
      this.#seenAny = true;
      if (b !== OPEN_OBJECT) {
        this.#hopeless = true;
        return;
      }
      this.#depth = 1;
      this.#expectKey = true;
      return;
    }
    if (this.#value !== null) {
      this.#capture(b);
      return;
    }
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (b === BACKSLASH) {
        this.#escaped = true;
        this.#key = null;
      } else if (b === QUOTE) {
        this.#inString = false;
        if (this.#key !== null)
          this.#idKeyRead = this.#key.length === 2 && this.#key[0] === 0x69 && this.#key[1] === 0x64;
        this.#key = null;
      } else if (this.#key !== null) {
        if (this.#key.length < 2) this.#key.push(b);
        else this.#key = null;
      }
      return;
    }
    if (isSpace(b)) return;
    if (this.#depth === 1 && b === COLON && this.#idKeyRead) {
      this.#idKeyRead = false;
      this.#value = [];
      return;
    }
    this.#idKeyRead = false;
    switch (b) {
      case QUOTE:
        this.#inString = true;
        if (this.#depth === 1 && this.#expectKey) {
          this.#key = [];
          this.#expectKey = false;
        }
        return;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        this.#depth++;
        return;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        this.#depth--;
        if (this.#depth <= 0) this.#hopeless = true;
        return;
      case COMMA:
        if (this.#depth === 1) this.#expectKey = true;
        return;
      default:
        return;
    }
  }

  /** Collects the id's value token; at its end, parses it. */
  #capture(b: number): void {
    const value = this.#value;
    if (value === null) return;
    if (value.length === 0) {
      if (isSpace(b)) return;
      if (b !== QUOTE && b !== 0x2d && (b < 0x30 || b > 0x39)) {
        // Not a string or a number: not an id a reply can carry. The value is walked as any other.
        this.#value = null;
        this.#found = null;
        this.#step(b);
        return;
      }
      this.#valueIsString = b === QUOTE;
      value.push(b);
      return;
    }
    if (this.#valueIsString) {
      value.push(b);
      if (this.#escaped) this.#escaped = false;
      else if (b === BACKSLASH) this.#escaped = true;
      else if (b === QUOTE) {
        this.#finishValue();
        return;
      }
      this.#checkLength(value);
      return;
    }
    if (b === COMMA || b === CLOSE_OBJECT || isSpace(b)) {
      this.#finishValue();
      // The byte that ended a bare value belongs to the object.
      this.#step(b);
      return;
    }
    value.push(b);
    this.#checkLength(value);
  }

  #checkLength(value: number[]): void {
    if (value.length <= MAX_ID_BYTES) return;
    // Too long to be an id: skip the rest of the value as an ordinary one.
    this.#value = null;
    this.#found = null;
    if (this.#valueIsString) this.#inString = true;
  }

  #finishValue(): void {
    const value = this.#value;
    this.#value = null;
    this.#escaped = false;
    if (value === null) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(value).toString('utf8'));
    } catch {
      parsed = null;
    }
    this.#found =
      typeof parsed === 'string' || (typeof parsed === 'number' && Number.isSafeInteger(parsed)) ? parsed : null;
  }
}
