// JSON text in pieces: joined, the pieces are exactly JSON.stringify's text, for the odd values JSON.stringify
// has rules for; a value holding a lot of text comes in many pieces, none of them long.
import { describe, expect, it } from 'vitest';
import { jsonPieces, PIECE_CHARS } from '../../../src-main/util/json-pieces';

function piecesOf(value: unknown): string[] {
  const iterator = jsonPieces(value);
  const pieces: string[] = [];
  for (let next = iterator.next(); next.done !== true; next = iterator.next()) pieces.push(next.value);
  return pieces;
}

const big = (char: string): string => char.repeat(PIECE_CHARS * 3 + 17);

describe('jsonPieces', () => {
  const cases: [string, unknown][] = [
    ['a small object', { a: 1, b: 'two', c: [true, null, 3.5] }],
    ['numbers JSON cannot say', { nan: Number.NaN, inf: -Infinity, negZero: -0 }],
    ['members JSON leaves out', { gone: undefined, fn: () => 1, kept: 'yes', [Symbol('s')]: 1, text: big('a') }],
    ['array elements JSON writes as null', [undefined, () => 1, Symbol('s'), big('b')]],
    ['toJSON at every level', { when: new Date(0), nested: { toJSON: (key: string) => `key ${key}` }, text: big('c') }],
    ['a top-level toJSON', { toJSON: () => ({ text: big('d') }) }],
    ['escapes in a long string', { diff: `line "one"\n\tline \\two\u0001\u2028`.repeat(PIECE_CHARS / 8) }],
    ['lone surrogates', { text: `\ud800x\udfff`.repeat(PIECE_CHARS / 2) }],
    ['empty containers', { list: [], map: {}, text: big('e'), more: [[], {}] }],
    ['a long string alone', big('f')],
  ];
  for (const [name, value] of cases) {
    it(`says ${name} as JSON.stringify does`, () => {
      expect(piecesOf(value).join('')).toBe(JSON.stringify(value));
    });
  }

  it('never cuts a surrogate pair between two pieces (each half would be escaped)', () => {
    // Pairs placed so that chunk boundaries fall on every offset.
    for (const shift of [0, 1]) {
      const text = 'x'.repeat(PIECE_CHARS - 1 + shift) + '😀'.repeat(PIECE_CHARS);
      expect(piecesOf({ text }).join('')).toBe(JSON.stringify({ text }));
    }
  });

  it('gives a value holding a lot of text in many pieces, each covering at most a chunk', () => {
    const patch = {
      type: 'fileChange',
      changes: [
        { path: 'a.ts', diff: big('+') },
        { path: 'b.ts', diff: big('-') },
      ],
    };
    const pieces = piecesOf(patch);
    expect(pieces.length).toBeGreaterThanOrEqual(8);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(PIECE_CHARS + 2);
    expect(pieces.join('')).toBe(JSON.stringify(patch));
  });

  it('gives a small value in one piece', () => {
    expect(piecesOf({ a: [1, 2, { b: 'c' }] })).toEqual(['{"a":[1,2,{"b":"c"}]}']);
  });
});
