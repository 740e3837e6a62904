// Reading rollouts line by line without loading whole files: chunked reads that report each line's byte
// offset, positioned re-reads of chosen lines, and a "sniff" of a line's kind from its first bytes so that
// most lines never need JSON.parse. Every writer of rollouts (Weft's and Codex's) puts the keys in the order
// `timestamp`, [`ordinal` (Codex 0.169 and Weft),] `type`, `payload`, and the payload's `type` first; a line
// that does not start that way is simply parsed in full.
import { readAt, type RolloutFd } from './rollout-source';
import { THREAD_EVENT_KINDS } from './thread-events';

/** A line's place in its file; `length` excludes the newline. */
export interface LineRef {
  offset: number;
  length: number;
}

/** One line during a scan: `buf[start, end)` holds its bytes (valid only during the callback). */
export interface RawLine {
  buf: Buffer;
  start: number;
  end: number;
  /** File offset of the line's first byte. */
  offset: number;
}

export interface ScanEnd {
  /** File offset just after the last complete (newline-terminated) line. */
  end: number;
  /** Bytes after `end` that did not form a complete line (a torn last line, or a write in progress). */
  tailBytes: number;
}

const DEFAULT_CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/**
 * Calls `onLine` for each complete line from `from` to the end of the file (or `until`). A line without its
 * newline at the end of the file is not reported (see `ScanEnd.tailBytes`). Return false from `onLine` to stop.
 * `sizeHint` (the file's size) keeps the read buffer no bigger than the file.
 */
export function forEachLine(
  fd: RolloutFd,
  from: number,
  onLine: (line: RawLine) => unknown,
  options: LineScanOptions = {},
): ScanEnd {
  const steps = lineSteps(fd, from, onLine, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

export interface LineScanOptions {
  chunkSize?: number;
  until?: number;
  sizeHint?: number;
}

/** `forEachLine` that pauses (yields) after each chunk read, so a caller can share the thread between scans. */
export function* lineSteps(
  fd: RolloutFd,
  from: number,
  onLine: (line: RawLine) => unknown,
  options: LineScanOptions = {},
): Generator<void, ScanEnd> {
  const chunk = options.chunkSize ?? DEFAULT_CHUNK;
  const hint = options.sizeHint === undefined ? chunk : Math.max(4096, options.sizeHint - from + 1);
  let buf = Buffer.allocUnsafe(Math.min(chunk, hint));
  const until = options.until ?? Number.POSITIVE_INFINITY;
  let filled = 0;
  let bufOffset = from;
  let eof = false;
  // One line object for the whole scan (a line is valid only during its callback): no garbage per line.
  const line: RawLine = { buf, start: 0, end: 0, offset: 0 };
  for (;;) {
    if (!eof) {
      if (filled === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
      const want = Math.min(buf.length - filled, until - (bufOffset + filled));
      const n = want > 0 ? readAt(fd, buf, filled, want, bufOffset + filled) : 0;
      if (n === 0) eof = true;
      filled += n;
    }
    let pos = 0;
    for (;;) {
      const nl = buf.indexOf(NEWLINE, pos);
      if (nl === -1 || nl >= filled) break;
      line.buf = buf;
      line.start = pos;
      line.end = nl;
      line.offset = bufOffset + pos;
      if (onLine(line) === false) {
        return { end: bufOffset + nl + 1, tailBytes: 0 };
      }
      pos = nl + 1;
    }
    if (eof) return { end: bufOffset + pos, tailBytes: filled - pos };
    if (pos > 0) {
      buf.copy(buf, 0, pos, filled);
      filled -= pos;
      bufOffset += pos;
    }
    yield;
  }
}

/**
 * Reads the given lines in file order, coalescing near ones into single reads; `index` is the line's
 * position in `refs`.
 */
export function readLines(
  fd: RolloutFd,
  given: readonly LineRef[],
  onLine: (line: RawLine, index: number) => void,
): void {
  const MAX_SPAN = 8 << 20;
  const MAX_GAP = 64 << 10;
  let order: number[] | null = null;
  for (let k = 1; k < given.length; k++) {
    if ((given[k]?.offset ?? 0) < (given[k - 1]?.offset ?? 0)) {
      order = given.map((_, n) => n).sort((a, b) => (given[a]?.offset ?? 0) - (given[b]?.offset ?? 0));
      break;
    }
  }
  const refs = order === null ? given : order.map((n) => given[n] ?? { offset: 0, length: 0 });
  let buf = Buffer.allocUnsafe(0);
  let i = 0;
  while (i < refs.length) {
    const first = refs[i];
    if (!first) break;
    let j = i + 1;
    let spanEnd = first.offset + first.length;
    for (; j < refs.length; j++) {
      const next = refs[j];
      if (!next || next.offset - spanEnd > MAX_GAP || next.offset + next.length - first.offset > MAX_SPAN) break;
      spanEnd = Math.max(spanEnd, next.offset + next.length);
    }
    const span = spanEnd - first.offset;
    if (buf.length < span) buf = Buffer.allocUnsafe(Math.max(span, 64 << 10));
    let got = 0;
    while (got < span) {
      const n = readAt(fd, buf, got, span - got, first.offset + got);
      if (n === 0) break;
      got += n;
    }
    for (let k = i; k < j; k++) {
      const ref = refs[k];
      if (!ref) continue;
      const start = ref.offset - first.offset;
      const end = Math.min(start + ref.length, got);
      onLine({ buf, start, end, offset: ref.offset }, order === null ? k : (order[k] ?? k));
    }
    i = j;
  }
}

const TS_PREFIX = Buffer.from('{"timestamp":"');
const TYPE_KEY = Buffer.from('","type":"');
/** Codex 0.169 puts a line's `ordinal` between its timestamp and its type. */
const ORDINAL_KEY = Buffer.from('","ordinal":');
const TYPE_AFTER_NUMBER = Buffer.from(',"type":"');
const PAYLOAD_KEY = Buffer.from('","payload":{"type":"');
const MIRROR = Buffer.from('","weft_mirror":true');

function matchAt(buf: Buffer, at: number, end: number, what: Buffer): boolean {
  const n = what.length;
  if (at + n > end) return false;
  for (let i = 0; i < n; i++) if (buf[at + i] !== what[i]) return false;
  return true;
}

function quoteEnd(buf: Buffer, from: number, end: number, max: number): number {
  const limit = Math.min(end, from + max);
  for (let i = from; i < limit; i++) {
    const c = buf[i];
    if (c === 0x22) return i;
    if (c === 0x5c) return -1;
  }
  return -1;
}

/** Turns short ASCII tags into strings, returning the same string object for known tags (no allocation). */
class Interner {
  private readonly table = new Map<number, string[]>();

  constructor(words: readonly string[]) {
    for (const w of words) {
      const key = w.length * 256 + w.charCodeAt(0);
      const list = this.table.get(key) ?? [];
      list.push(w);
      this.table.set(key, list);
    }
  }

  get(buf: Buffer, start: number, end: number): string {
    const len = end - start;
    const list = this.table.get(len * 256 + (buf[start] ?? 0));
    if (list) {
      for (const w of list) {
        let same = true;
        for (let i = 1; i < len; i++) {
          if (buf[start + i] !== w.charCodeAt(i)) {
            same = false;
            break;
          }
        }
        if (same) return w;
      }
    }
    return buf.toString('latin1', start, end);
  }
}

const LINE_TYPES = new Interner([
  'session_meta',
  'response_item',
  'event_msg',
  'turn_context',
  'compacted',
  'world_state',
  'token_usage_record',
]);
/** The event kinds the table of thread events knows (thread-events.ts). */
const EVENT_TYPES = new Interner(THREAD_EVENT_KINDS);

/**
 * What the first bytes of a line say about it. One Sniffer is reused for every line of a scan: after a
 * successful `sniff`, its fields describe that line (the timestamp is decoded only on demand).
 */
export class Sniffer {
  /** The line's `type` (session_meta, response_item, event_msg, …). */
  type = '';
  /** For `event_msg` lines, the payload's `type`; otherwise null. */
  event: string | null = null;
  /** The payload is a Weft mirror of an item (`"weft_mirror":true` right after its type). */
  mirror = false;
  private tsStart = 0;
  private tsEnd = 0;

  /** False when the prefix is not in the usual form (parse the line then). */
  sniff(buf: Buffer, start: number, end: number): boolean {
    if (!matchAt(buf, start, end, TS_PREFIX)) return false;
    const tsStart = start + TS_PREFIX.length;
    const tsEnd = quoteEnd(buf, tsStart, end, 64);
    if (tsEnd < 0) return false;
    let typeStart: number;
    if (matchAt(buf, tsEnd, end, TYPE_KEY)) typeStart = tsEnd + TYPE_KEY.length;
    else if (matchAt(buf, tsEnd, end, ORDINAL_KEY)) {
      let i = tsEnd + ORDINAL_KEY.length;
      const digits = i;
      while (i < end && i - digits < 20 && (buf[i] ?? 0) >= 0x30 && (buf[i] ?? 0) <= 0x39) i++;
      if (i === digits || !matchAt(buf, i, end, TYPE_AFTER_NUMBER)) return false;
      typeStart = i + TYPE_AFTER_NUMBER.length;
    } else return false;
    const typeEnd = quoteEnd(buf, typeStart, end, 64);
    if (typeEnd < 0) return false;
    const type = LINE_TYPES.get(buf, typeStart, typeEnd);
    let event: string | null = null;
    let mirror = false;
    if (type === 'event_msg') {
      if (!matchAt(buf, typeEnd, end, PAYLOAD_KEY)) return false;
      const evStart = typeEnd + PAYLOAD_KEY.length;
      const evEnd = quoteEnd(buf, evStart, end, 64);
      if (evEnd < 0) return false;
      event = EVENT_TYPES.get(buf, evStart, evEnd);
      mirror = matchAt(buf, evEnd, end, MIRROR);
    }
    this.type = type;
    this.event = event;
    this.mirror = mirror;
    this.tsStart = tsStart;
    this.tsEnd = tsEnd;
    return true;
  }

  /** The sniffed line's `timestamp` (pass the same buffer, during the same callback). */
  timestamp(buf: Buffer): string {
    return buf.toString('latin1', this.tsStart, this.tsEnd);
  }
}

/**
 * The string value of `"<key>":"…"` within the first `within` bytes of a line, or null (not there, or an
 * escaped value). Inside JSON strings quotes are escaped, so the raw key can only be a real key.
 */
export function stringFieldNear(buf: Buffer, start: number, end: number, key: Buffer, within = 512): string | null {
  const limit = Math.min(end, start + within);
  const at = buf.indexOf(key, start);
  if (at < 0 || at + key.length > limit) return null;
  const valueStart = at + key.length;
  const valueEnd = quoteEnd(buf, valueStart, end, 256);
  return valueEnd < 0 ? null : buf.toString('utf8', valueStart, valueEnd);
}

/**
 * The JSON string value of `"<key>":"…"` (key given with the value's opening quote, e.g. `"message":"`)
 * found within the first `within` bytes of a line, decoded; null when absent or not a valid string. Reads a
 * long message out of a line without parsing the rest of it.
 */
export function jsonStringNear(buf: Buffer, start: number, end: number, key: Buffer, within = 256): string | null {
  const at = buf.indexOf(key, start);
  if (at < 0 || at > start + within || at + key.length > end) return null;
  const open = at + key.length - 1;
  for (let i = open + 1; i < end; i++) {
    const c = buf[i];
    if (c === 0x5c) i++;
    else if (c === 0x22) {
      try {
        const value: unknown = JSON.parse(buf.toString('utf8', open, i + 1));
        return typeof value === 'string' ? value : null;
      } catch {
        return null;
      }
    }
  }
  return null;
}
