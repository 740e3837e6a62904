// A rollout line as JSON: `{timestamp, type, payload}` checked just enough to dispatch on `type`; each
// consumer parses the payload it needs with its own schema (see events.ts and the protocol's rollout.ts).
import type { RawLine } from './line-reader';

export interface LooseLine {
  timestamp: string;
  type: string;
  payload: unknown;
}

const TS_NEEDLE = Buffer.from('{"timestamp":"');

function asLooseLine(json: unknown): LooseLine | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  if (!('timestamp' in json) || !('type' in json)) return null;
  const { timestamp, type } = json;
  if (typeof timestamp !== 'string' || typeof type !== 'string') return null;
  return { timestamp, type, payload: 'payload' in json ? json.payload : undefined };
}

export type LineParse = { ok: true; line: LooseLine; recovered: boolean } | { ok: false; error: string };

/**
 * Parses one line. A line that is not JSON but contains the start of a whole line later on (a torn write
 * that the next write was appended to) yields that later line, with `recovered` set.
 */
export function parseLine(raw: RawLine): LineParse {
  const text = raw.buf.toString('utf8', raw.start, raw.end);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const at = raw.buf.lastIndexOf(TS_NEEDLE, raw.end - 1);
    if (at > raw.start && at < raw.end) {
      const tail = parseLine({ buf: raw.buf, start: at, end: raw.end, offset: raw.offset + (at - raw.start) });
      if (tail.ok) return { ok: true, line: tail.line, recovered: true };
    }
    return { ok: false, error: `not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  const line = asLooseLine(json);
  return line
    ? { ok: true, line, recovered: false }
    : { ok: false, error: 'not a rollout line (no timestamp and type)' };
}

/** The `type` of an object payload, or null. */
export function payloadType(payload: unknown): string | null {
  if (typeof payload !== 'object' || payload === null || !('type' in payload)) return null;
  return typeof payload.type === 'string' ? payload.type : null;
}
