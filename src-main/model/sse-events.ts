// Server-sent events handed to the `openai` SDK one whole event per chunk. For every chunk the network
// delivers, the SDK copies everything it has buffered and scans it from the start for the end of an event:
// an event of n bytes arriving in chunks of c costs n²/c. A function call carrying a 4 MB patch (and the
// `response.completed` event repeating it) arrives in 64 KB chunks and held the event loop for 1.5 s. Cut
// at event boundaries here, each chunk the SDK sees ends where an event ends, so it scans every byte once.

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
