import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { EventCutter, responseEvents } from '../../../src-main/model/sse-events';

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');

/** Feeds `stream` to a cutter in pieces cut at `cuts`; returns what it hands on. */
function cutInto(stream: string, cuts: readonly number[]): string[] {
  const bytes = Buffer.from(stream);
  const cutter = new EventCutter();
  const out: string[] = [];
  let from = 0;
  for (const to of [...cuts, bytes.length]) {
    for (const event of cutter.push(bytes.subarray(from, to))) out.push(text(event));
    from = to;
  }
  const rest = cutter.flush();
  if (rest !== null) out.push(text(rest));
  return out;
}

describe('EventCutter', () => {
  const events = [
    'event: a\ndata: {"x":1}\n\n',
    'data: two\r\n\r\n',
    'data: three\r\r',
    `data: ${'y'.repeat(5000)}\n\n`,
    'data: \u00e9t\u00e9 \u20ac\n\n',
  ];
  const stream = events.join('');

  it('hands on one whole event per chunk, however the bytes arrive', () => {
    expect(cutInto(stream, [])).toEqual(events);
    const length = Buffer.byteLength(stream);
    for (let step = 1; step <= 7; step++) {
      const cuts = Array.from({ length: Math.floor((length - 1) / step) }, (_, k) => (k + 1) * step);
      expect(cutInto(stream, cuts), `pieces of ${step} bytes`).toEqual(events);
    }
    // Cuts inside each boundary pattern.
    let at = 0;
    for (const event of events.slice(0, 3)) {
      at += Buffer.byteLength(event);
      expect(cutInto(stream, [at - 3, at - 2, at - 1])).toEqual(events);
    }
  });

  it('hands on an unfinished last event when the stream ends', () => {
    expect(cutInto('data: 1\n\ndata: 2\n', [3])).toEqual(['data: 1\n\n', 'data: 2\n']);
  });

  it('passes a big event that arrives in many chunks on in one piece', () => {
    const big = `data: ${'z'.repeat(4 * 1024 * 1024)}\n\n`;
    const cuts = Array.from({ length: 64 }, (_, k) => (k + 1) * 65_536);
    expect(cutInto(big + 'data: end\n\n', cuts)).toEqual([big, 'data: end\n\n']);
  });
});

/** A streamed response delivering `text` in pieces of `size` bytes. */
function streamed(text: string, size: number): Response {
  const bytes = Buffer.from(text);
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += size) controller.enqueue(bytes.subarray(at, at + size));
        controller.close();
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  );
}

async function collect(response: Response): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const event of responseEvents(response)) out.push(event);
  return out;
}

describe('responseEvents', () => {
  it('reads events as the SDK does: comments skipped, data lines joined, [DONE] ends the stream', async () => {
    const text = [
      ': keep-alive\n\n',
      'event: response.created\ndata: {"type":"response.created"}\n\n',
      'event: response.output_text.delta\r\ndata: {"type":"response.output_text.delta",\r\ndata: "delta":"h\u00e9"}\r\n\r\n',
      `data: {"type":"big","text":"${'x'.repeat(300_000)}"}\n\n`,
      'data: [DONE]\n\n',
      'data: {"type":"after done"}\n\n',
    ].join('');
    for (const size of [7, 1000, 65_536]) {
      expect(await collect(streamed(text, size))).toEqual([
        { type: 'response.created' },
        { type: 'response.output_text.delta', delta: 'hé' },
        { type: 'big', text: 'x'.repeat(300_000) },
      ]);
    }
  });

  it('throws an APIError for an event carrying an error, as the SDK does', async () => {
    const text =
      'data: {"type":"response.created"}\n\ndata: {"error":{"message":"overloaded","code":"server_error"}}\n\n';
    const events = responseEvents(streamed(text, 16));
    expect(await events.next()).toEqual({ done: false, value: { type: 'response.created' } });
    await expect(events.next()).rejects.toBeInstanceOf(APIError);
  });
});
