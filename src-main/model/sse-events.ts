// Server-sent events, read without holding the event loop however big an event is. For every chunk the
// network delivers, the `openai` SDK copies everything it has buffered and scans it from the start for the
// end of an event, byte by byte in JavaScript: an event of n bytes arriving in chunks of c costs n²/c. A
// function call carrying a 4 MB patch arrives in 64 KB chunks and held the event loop for 1.5 s. Here
// events are cut with native searches, each byte searched once; the Responses client reads them itself
// (responseEvents), and streams the SDK still reads (Chat Completions) reach it one whole event per chunk.

import { APIError, OpenAIError } from 'openai/error';
import { Slicer } from '../util/slicer';

const LF = 0x0a;
const CR = 0x0d;
const EMPTY = new Uint8Array(0);

/**
 * Finds event boundaries (`\n\n`, `\r\r` or `\r\n\r\n`, as the SDK reads them) in one buffer, left to right,
 * with native searches for the line-end bytes: the next CR is remembered, so a stream without CRs is
 * searched for one once, not once per event.
 */
class Boundaries {
  private nextCr = -2;

  constructor(private readonly bytes: Buffer) {}

  /** The end of the first boundary at or after `from`; -1 if none. */
  endFrom(from: number): number {
    const bytes = this.bytes;
    for (let i = from; i < bytes.length - 1;) {
      if (this.nextCr !== -1 && this.nextCr < i) this.nextCr = bytes.indexOf(CR, i);
      const lf = bytes.indexOf(LF, i);
      const at = this.nextCr === -1 ? lf : lf === -1 ? this.nextCr : Math.min(lf, this.nextCr);
      if (at === -1 || at >= bytes.length - 1) return -1;
      const b = bytes[at];
      const next = bytes[at + 1];
      if (b === next) return at + 2;
      if (b === CR && next === LF && bytes[at + 2] === CR && bytes[at + 3] === LF) return at + 4;
      i = at + 1;
    }
    return -1;
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] ?? EMPTY;
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Splits a byte stream into whole events. Bytes of an unfinished event are kept as the chunks they came
 * in and joined once, when the event ends; only the new chunk (and the last three bytes before it, where
 * a boundary may begin) is ever searched.
 */
export class EventCutter {
  private pending: Uint8Array[] = [];
  /** The last bytes of `pending` (at most 3): a boundary may start in them and end in the next chunk. */
  private tail: Uint8Array = EMPTY;

  /** The events that `chunk` completes, in order. */
  push(chunk: Uint8Array): Uint8Array[] {
    const window = this.tail.length === 0 ? chunk : concat([this.tail, chunk]);
    const shift = this.tail.length;
    const boundaries = new Boundaries(Buffer.from(window.buffer, window.byteOffset, window.length));
    const events: Uint8Array[] = [];
    let start = 0;
    for (let end = boundaries.endFrom(0); end >= 0; end = boundaries.endFrom(end)) {
      // The first event also takes the bytes held from earlier chunks.
      const own = chunk.subarray(start, end - shift);
      events.push(start === 0 ? concat([...this.pending, own]) : own);
      if (start === 0) this.pending = [];
      start = end - shift;
    }
    if (events.length === 0) {
      this.pending.push(chunk);
      this.tail = window.subarray(Math.max(0, window.length - 3));
      return events;
    }
    const rest = chunk.subarray(start);
    this.pending = rest.length > 0 ? [rest] : [];
    this.tail = rest.subarray(Math.max(0, rest.length - 3));
    return events;
  }

  /** What is left when the stream ends (an event without its final blank line), or null. */
  flush(): Uint8Array | null {
    const rest = this.pending.length === 0 ? null : concat(this.pending);
    this.pending = [];
    this.tail = EMPTY;
    return rest;
  }
}

/** Past this size an event's parsing (by the SDK, as JSON) is a stretch of its own: see wholeEvents. */
const BIG_EVENT = 256 * 1024;

/**
 * The transform: whole events, one per chunk. It waits for its reader between events once it has held the
 * event loop for a slice, and always after a big event, so a burst of big events (a 4 MB function call,
 * then `response.completed` repeating it) is parsed one event per event-loop turn rather than all in one.
 */
function wholeEvents(): TransformStream<Uint8Array, Uint8Array> {
  const cutter = new EventCutter();
  const slicer = new Slicer();
  return new TransformStream({
    async transform(chunk, controller) {
      for (const event of cutter.push(chunk)) {
        controller.enqueue(event);
        if (event.length >= BIG_EVENT) await slicer.pause();
        else await slicer.pace();
      }
    },
    flush(controller) {
      const rest = cutter.flush();
      if (rest !== null) controller.enqueue(rest);
    },
  });
}

/** The data of one event: `[DONE]`, null for an event without data, or the data parsed as JSON. */
function eventData(bytes: Uint8Array): unknown {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  let name: string | null = null;
  const data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') name = value;
    else if (field === 'data') data.push(value);
  }
  if (name === null && data.length === 0) return null;
  const joined = data.join('\n');
  if (joined.startsWith('[DONE]')) return DONE;
  try {
    return JSON.parse(joined) as unknown;
  } catch (error) {
    throw new OpenAIError(`Could not parse a streamed event as JSON (${String(error)}): ${joined.slice(0, 200)}`);
  }
}

const DONE = Symbol('done');

/**
 * The JSON events of a Responses API stream, read as the SDK's Stream reads them (`[DONE]` ends it, an
 * event whose data has an `error` field throws APIError) but with events cut natively, and a turn given back
 * after a big event and once a slice of reading is used up.
 */
export async function* responseEvents(response: Response): AsyncGenerator<unknown, void, undefined> {
  const body = response.body;
  if (body === null) throw new OpenAIError('Attempted to iterate over a response with no body');
  const cutter = new EventCutter();
  const slicer = new Slicer();
  const handle = (raw: Uint8Array): unknown => {
    const data = eventData(raw);
    if (typeof data === 'object' && data !== null && 'error' in data && data.error)
      throw new APIError(undefined, data.error, undefined, response.headers);
    return data;
  };
  const reader = body.getReader();
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const raw of cutter.push(value)) {
        // A big event was joined from its chunks in this turn: it is decoded and parsed in the next.
        if (raw.length >= BIG_EVENT) await slicer.pause();
        const data = handle(raw);
        if (data === DONE) return;
        if (data !== null) yield data;
        if (raw.length >= BIG_EVENT) await slicer.pause();
        else await slicer.pace();
      }
    }
    ended = true;
    const rest = cutter.flush();
    if (rest === null) return;
    const data = handle(rest);
    if (data !== null && data !== DONE) yield data;
  } finally {
    // Stopped early (the caller had what it needed, or an error): the connection is let go.
    if (!ended) await reader.cancel().catch(() => undefined);
  }
}

/** `fetch` whose event-stream responses reach the caller one whole event per chunk; other responses as they are. */
export function wholeEventsFetch(base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    const type = response.headers.get('content-type') ?? '';
    if (response.body === null || !type.includes('text/event-stream')) return response;
    return new Response(response.body.pipeThrough(wholeEvents()), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
