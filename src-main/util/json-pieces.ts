// JSON text in pieces. `JSON.stringify` of a value that holds a 4 MB patch runs for 10–20 ms in one stretch;
// here the same text comes as a sequence of pieces, each of bounded cost, so a writer can stop between two
// pieces when its time slice is used and go on in the next event-loop turn. Small values are one piece
// (JSON.stringify itself); only members that hold a lot of text are walked, and a long string is escaped
// a chunk at a time.

/** About how many characters one piece covers. */
export const PIECE_CHARS = 128 * 1024;

/** Whether `value` holds more than `limit` characters of text (counted roughly; stops as soon as it does). */
function holdsMoreThan(value: unknown, limit: number): boolean {
  let budget = limit;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next === 'string') budget -= next.length + 2;
    else if (next !== null && typeof next === 'object') {
      budget -= 2;
      if (Array.isArray(next)) for (const element of next as unknown[]) stack.push(element);
      else
        for (const [key, member] of Object.entries(next)) {
          budget -= key.length + 4;
          stack.push(member);
        }
    } else budget -= 8;
    if (budget < 0) return true;
  }
  return false;
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/** A long string's JSON text, a chunk at a time; a surrogate pair is never cut (each half would be escaped). */
function* stringPieces(text: string): Generator<string> {
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + PIECE_CHARS, text.length);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    const quoted = JSON.stringify(text.slice(start, end));
    yield quoted.slice(start === 0 ? 0 : 1, end === text.length ? quoted.length : -1);
    start = end;
  }
}

/** What JSON.stringify serializes in place of `value` under `key` (its `toJSON`, when it has one). */
function resolved(value: unknown, key: string): unknown {
  if (value !== null && typeof value === 'object' && 'toJSON' in value && typeof value.toJSON === 'function') {
    const toJSON: (key: string) => unknown = value.toJSON.bind(value);
    return toJSON(key);
  }
  return value;
}

/** Whether JSON leaves the value out of an object (and writes `null` for it in an array). */
const unsayable = (value: unknown): boolean =>
  value === undefined || typeof value === 'function' || typeof value === 'symbol';

function* valuePieces(value: unknown): Generator<string> {
  if (typeof value === 'string') {
    if (value.length <= PIECE_CHARS) yield JSON.stringify(value);
    else yield* stringPieces(value);
    return;
  }
  if (value === null || typeof value !== 'object' || !holdsMoreThan(value, PIECE_CHARS)) {
    yield JSON.stringify(value);
    return;
  }
  if (Array.isArray(value)) {
    const elements: readonly unknown[] = value;
    yield '[';
    for (const [index, raw] of elements.entries()) {
      const element = resolved(raw, String(index));
      if (index > 0) yield ',';
      if (unsayable(element)) yield 'null';
      else yield* valuePieces(element);
    }
    yield ']';
    return;
  }
  yield '{';
  let first = true;
  for (const [key, raw] of Object.entries(value)) {
    const member = resolved(raw, key);
    if (unsayable(member)) continue;
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    yield* valuePieces(member);
  }
  yield '}';
}

/**
 * The pieces whose concatenation is `JSON.stringify(value)`, for a value JSON can say (an object, an
 * array, a string, a number, a boolean or null; `toJSON` is honoured as JSON.stringify honours it).
 */
export function jsonPieces(value: unknown): Iterator<string> {
  return valuePieces(resolved(value, ''));
}
