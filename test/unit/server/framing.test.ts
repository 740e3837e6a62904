import { describe, expect, it } from 'vitest';
import {
  isFrameError,
  JsonlDecoder,
  MAX_MESSAGE_DEPTH,
  nestsDeeper,
  parseFrame,
  textNestsDeeper,
  TOO_DEEP_MESSAGE,
  tooLargeError,
} from '../../../src-main/server/framing';

function decode(chunks: (Buffer | string)[], maxLineBytes?: number, end = false): unknown[] {
  const out: unknown[] = [];
  const decoder = new JsonlDecoder((message) => out.push(message), maxLineBytes === undefined ? {} : { maxLineBytes });
  for (const chunk of chunks) decoder.push(chunk);
  if (end) decoder.end();
  return out;
}

describe('JsonlDecoder', () => {
  it('joins a message split across chunks and skips blank lines', () => {
    expect(decode(['{"id":1,', '"method":"a"}\n', '\n', '   \n\r\n{"method":"b"}\r', '\n'])).toEqual([
      { id: 1, method: 'a' },
      { method: 'b' },
    ]);
  });

  it('decodes a UTF-8 character split between chunks', () => {
    const bytes = Buffer.from('{"text":"héllo → 世界 🎉"}\n', 'utf8');
    const chunks = [...bytes].map((byte) => Buffer.from([byte]));
    expect(decode(chunks)).toEqual([{ text: 'héllo → 世界 🎉' }]);
  });

  it('reports a line that is not JSON as a -32700 frame error and goes on', () => {
    const out = decode(['hello world\n{"id":2,"method":"x"}\n']);
    expect(out).toEqual([
      {
        kind: 'frame-error',
        code: -32700,
        message: expect.stringMatching(/^Parse error: .*not valid JSON/) as unknown,
      },
      { id: 2, method: 'x' },
    ]);
  });

  it('reports invalid UTF-8 as a parse error', () => {
    expect(decode([Buffer.from([0x22, 0xff, 0xfe, 0x22, 0x0a])])).toEqual([
      { kind: 'frame-error', code: -32700, message: 'Parse error: the line is not valid UTF-8' },
    ]);
  });

  it('rejects an oversized line once, with its full size, then decodes the next line', () => {
    // 1,000 chunks of 1 KiB with no newline, against a 4 KiB limit: counted, not buffered.
    const chunk = 'x'.repeat(1024);
    const chunks = [...Array.from({ length: 1000 }, () => chunk), '\n{"id":3,"method":"after"}\n'];
    expect(decode(chunks, 4096)).toEqual([
      { kind: 'frame-error', code: -32600, message: 'message too large: 1024000 bytes exceeds the 4096 bytes limit' },
      { id: 3, method: 'after' },
    ]);
  });

  it('accepts a line of exactly the limit and rejects one byte more', () => {
    const exact = JSON.stringify({ pad: 'y'.repeat(20) });
    const limit = Buffer.byteLength(exact);
    expect(decode([`${exact}\n`], limit)).toEqual([{ pad: 'y'.repeat(20) }]);
    expect(decode([`${exact} \n`], limit)).toEqual([tooLargeError(limit + 1, limit)]);
  });

  it('treats a last line without a newline as a line when the stream ends', () => {
    expect(decode(['{"a":1}\n{"b":2}'])).toEqual([{ a: 1 }]);
    expect(decode(['{"a":1}\n{"b":2}'], undefined, true)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(decode(['x'.repeat(50)], 10, true)).toEqual([tooLargeError(50, 10)]);
  });
});

describe('frame errors', () => {
  it('phrases the size limit in MiB by default', () => {
    expect(tooLargeError(12 * 1024 * 1024)).toEqual({
      kind: 'frame-error',
      code: -32600,
      message: 'message too large: 12582912 bytes exceeds the 10 MiB limit',
    });
  });

  it('recognises frame errors and nothing else', () => {
    expect(isFrameError(parseFrame('{'))).toBe(true);
    expect(isFrameError(tooLargeError(1, 0))).toBe(true);
    expect(isFrameError(parseFrame('{"kind":"frame-error","code":-32700}'))).toBe(false);
    expect(isFrameError({ kind: 'frame-error', code: 1, message: 'x' })).toBe(false);
    expect(isFrameError(null)).toBe(false);
    expect(isFrameError('frame-error')).toBe(false);
  });
});

describe('the id of a line over the limit', () => {
  const pad = 'x'.repeat(200);
  const tooLarge = (line: string, chunkBytes = 7): unknown => {
    const bytes = Buffer.from(`${line}\n`, 'utf8');
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += chunkBytes) chunks.push(bytes.subarray(i, i + chunkBytes));
    const out = decode(chunks, 64);
    expect(out).toHaveLength(1);
    return out[0];
  };
  const idOf = (line: string, chunkBytes?: number): unknown => {
    const error = tooLarge(line, chunkBytes);
    expect(isFrameError(error)).toBe(true);
    return typeof error === 'object' && error !== null && 'id' in error ? error.id : 'absent';
  };

  it('is read wherever it sits in the object, in chunks of any size', () => {
    for (const chunk of [1, 3, 64, 4096]) {
      expect(idOf(`{"id":7,"method":"thread/list","params":{"searchTerm":"${pad}"}}`, chunk)).toBe(7);
      expect(idOf(`{"method":"thread/list","params":{"searchTerm":"${pad}"},"id":"req-9"}`, chunk)).toBe('req-9');
      expect(idOf(` { "method" : "x" , "id" : -12.5e1 , "params" : ["${pad}"] }`, chunk)).toBe(-125);
    }
    expect(tooLarge(`{"id":7,"params":"${pad}"}`)).toEqual({
      kind: 'frame-error',
      code: -32600,
      id: 7,
      message: expect.stringContaining('exceeds the 64 bytes limit') as unknown,
    });
  });

  it('ignores ids that are nested, inside strings, escaped, or not a string or number', () => {
    expect(idOf(`{"params":{"id":3,"x":"${pad}"},"method":"m"}`)).toBe('absent');
    expect(idOf(`{"params":"\\"id\\":4 ${pad}","method":"m"}`)).toBe('absent');
    expect(idOf(`{"params":["${pad}",{"id":5}],"method":"m"}`)).toBe('absent');
    expect(idOf(`{"id":{"n":1},"params":"${pad}"}`)).toBe('absent');
    expect(idOf(`{"id":null,"params":"${pad}"}`)).toBe('absent');
    expect(idOf(`{"id":1.5,"params":"${pad}"}`)).toBe('absent');
    expect(idOf(`{"id":"${'i'.repeat(2000)}","params":"${pad}"}`)).toBe('absent');
    expect(idOf(`[{"id":1},"${pad}"]`)).toBe('absent');
    expect(idOf(`{"i":1,"idd":2,"params":"${pad}"}`)).toBe('absent');
  });

  it('keeps the last top-level id, as JSON.parse would, and reads escaped string ids', () => {
    expect(idOf(`{"id":1,"params":"${pad}","id":"two"}`)).toBe('two');
    expect(idOf(`{"id":"a\\"b\\u0063","params":"${pad}"}`)).toBe('a"bc');
    expect(idOf(`{"params":"${pad}\\\\","id":8}`)).toBe(8);
  });
});

describe('nesting', () => {
  const deep = (depth: number, inner = '1'): string => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

  it('refuses a frame nested deeper than the bound before parsing it, with its id when it has one', () => {
    const atBound = `{"id":1,"method":"m","params":${deep(MAX_MESSAGE_DEPTH - 1)}}`;
    expect(parseFrame(atBound)).toEqual(JSON.parse(atBound));
    expect(parseFrame(`{"id":"r-2","method":"m","params":${deep(MAX_MESSAGE_DEPTH)}}`)).toEqual({
      kind: 'frame-error',
      code: -32600,
      message: TOO_DEEP_MESSAGE,
      id: 'r-2',
    });
    expect(parseFrame(deep(5000))).toEqual({ kind: 'frame-error', code: -32600, message: TOO_DEEP_MESSAGE });
    expect(decode([`{"params":${deep(200)},"id":3}\n`])).toEqual([
      { kind: 'frame-error', code: -32600, message: TOO_DEEP_MESSAGE, id: 3 },
    ]);
  });

  it('counts brackets outside strings only, escaped quotes included', () => {
    const brackets = '['.repeat(500);
    expect(textNestsDeeper(`{"text":"${brackets}"}`, 3)).toBe(false);
    // a\ then the closing quote; then a\" inside the string.
    expect(textNestsDeeper(String.raw`{"text":"a\\"}` + deep(4), 3)).toBe(true);
    expect(textNestsDeeper(String.raw`{"text":"a\\\"` + `${brackets}"}`, 3)).toBe(false);
    expect(textNestsDeeper(deep(3), 3)).toBe(false);
    expect(textNestsDeeper(`{"a":{"b":[{}]}}`, 3)).toBe(true);
  });

  it('walks objects without recursion: deep, cyclic and shared values', () => {
    const value: unknown = JSON.parse(deep(100_000));
    expect(nestsDeeper(value, MAX_MESSAGE_DEPTH)).toBe(true);
    expect(nestsDeeper(JSON.parse(deep(MAX_MESSAGE_DEPTH - 1)), MAX_MESSAGE_DEPTH)).toBe(false);
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(nestsDeeper(cyclic, MAX_MESSAGE_DEPTH)).toBe(true);
    // 60 levels of two references to the same object: 2^60 paths, 60 objects.
    let shared: object = {};
    for (let i = 0; i < 60; i++) shared = { left: shared, right: shared };
    expect(nestsDeeper(shared, MAX_MESSAGE_DEPTH)).toBe(false);
    expect(nestsDeeper('text', 0)).toBe(false);
  });
});
