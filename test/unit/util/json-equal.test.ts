import { describe, expect, it } from 'vitest';
import { jsonEqual } from '../../../src-main/util/json-equal';

// Each pair is compared both ways, and the answer must be JSON.stringify's.
const pairs: [unknown, unknown][] = [
  [undefined, undefined],
  [null, undefined],
  [1, 1],
  [1, '1'],
  [Number.NaN, null],
  [Number.POSITIVE_INFINITY, Number.NaN],
  [0, -0],
  ['a'.repeat(1000), 'a'.repeat(1000)],
  ['a', 'b'],
  [true, false],
  [[], {}],
  [
    [1, undefined],
    [1, null],
  ],
  [
    [1, 2],
    [1, 2, 3],
  ],
  [{ a: 1, b: undefined }, { a: 1 }],
  [{ a: 1 }, { a: 1, b: 2 }],
  [{ a: undefined }, { b: undefined }],
  [{ a: { b: [1, { c: 'x' }] } }, { a: { b: [1, { c: 'x' }] } }],
  [{ a: { b: [1, { c: 'x' }] } }, { a: { b: [1, { c: 'y' }] } }],
  [{ a: null }, { a: undefined }],
  [{ a: [] }, { a: [undefined] }],
  [{ changes: [{ path: 'a', diff: '@@\n-x\n+y\n' }] }, { changes: [{ path: 'a', diff: '@@\n-x\n+y\n' }] }],
];

describe('jsonEqual', () => {
  it.each(pairs)('answers as JSON.stringify does for %j and %j', (a, b) => {
    const expected = JSON.stringify(a) === JSON.stringify(b);
    expect(jsonEqual(a, b)).toBe(expected);
    expect(jsonEqual(b, a)).toBe(expected);
  });
});
