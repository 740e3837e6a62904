import { describe, expect, it } from 'vitest';
import { TextLines, applyEdits, editedBytes, type LineEdit } from '../../../src-main/tools/apply-patch/text';

const view = (t: TextLines): unknown => ({
  lines: t.lines(),
  count: t.count,
  finalNewline: t.finalNewline,
  bom: t.bom,
  eol: t.eol,
});

describe('TextLines', () => {
  it.each([
    ['', { lines: [], count: 0, finalNewline: true, bom: false, eol: '\n' }],
    ['a', { lines: ['a'], count: 1, finalNewline: false, bom: false, eol: '\n' }],
    ['a\n\nb\n', { lines: ['a', '', 'b'], count: 3, finalNewline: true, bom: false, eol: '\n' }],
    ['a\r\nb\r\nc\n', { lines: ['a', 'b', 'c'], count: 3, finalNewline: true, bom: false, eol: '\r\n' }],
    ['a\r\nb\nc\n', { lines: ['a', 'b', 'c'], count: 3, finalNewline: true, bom: false, eol: '\n' }],
    ['\uFEFFx\r\ny', { lines: ['x', 'y'], count: 2, finalNewline: false, bom: true, eol: '\r\n' }],
    ['\n', { lines: [''], count: 1, finalNewline: true, bom: false, eol: '\n' }],
    ['a\rb\n', { lines: ['a\rb'], count: 1, finalNewline: true, bom: false, eol: '\n' }],
  ])('splits %j', (text, expected) => {
    expect(view(new TextLines(text))).toEqual(expected);
  });

  it('compares lines in place, ignoring the line end', () => {
    const t = new TextLines('abc\r\nab\nabc');
    expect([
      t.lineEquals(0, 'abc'),
      t.lineEquals(0, 'abc\r'),
      t.lineEquals(1, 'abc'),
      t.lineEquals(2, 'abc'),
      t.lineEquals(3, ''),
    ]).toEqual([true, false, false, true, false]);
  });

  it('applyEdits keeps untouched bytes and uses the dominant line end for new lines', () => {
    const t = new TextLines('\uFEFFa\r\nb\nc\r\nd');
    expect(applyEdits(t, [{ start: 1, oldCount: 1, newLines: ['B', 'B2'] }])).toBe('\uFEFFa\r\nB\r\nB2\r\nc\r\nd');
    expect(applyEdits(t, [{ start: 3, oldCount: 1, newLines: ['D'] }])).toBe('\uFEFFa\r\nb\nc\r\nD\r\n');
    expect(applyEdits(t, [{ start: 4, oldCount: 0, newLines: ['e'] }])).toBe('\uFEFFa\r\nb\nc\r\nd\r\ne\r\n');
    expect(applyEdits(t, [{ start: 0, oldCount: 4, newLines: [] }])).toBe('\uFEFF');
    expect(applyEdits(t, [])).toBe('\uFEFFa\r\nb\nc\r\nd');
  });

  it.each([
    ['a\r\nb\nc\r\nd', [{ start: 1, oldCount: 1, newLines: ['B', 'B2'] }]],
    ['a\r\nb\nc\r\nd', [{ start: 4, oldCount: 0, newLines: ['e'] }]],
    [
      'a\nb\nc\n',
      [
        { start: 0, oldCount: 1, newLines: [] },
        { start: 2, oldCount: 1, newLines: ['C', 'é'] },
      ],
    ],
    ['a\nb', [{ start: 2, oldCount: 0, newLines: ['x'] }]],
    ['a\nb\n', [{ start: 0, oldCount: 2, newLines: [] }]],
    ['a\nb\n', []],
  ] satisfies [string, LineEdit[]][])('editedBytes of %j are the bytes of applyEdits', (text, edits) => {
    const t = new TextLines(text, Buffer.from(text, 'latin1'));
    const pieces = editedBytes(t, edits);
    expect(pieces).not.toBeNull();
    expect(Buffer.concat(pieces ?? []).toString('utf8')).toBe(applyEdits(t, edits));
  });

  it('editedBytes needs the bytes the text was read from', () => {
    expect(editedBytes(new TextLines('a\n'), [])).toBeNull();
    expect(() => new TextLines('é\n', Buffer.from('é\n', 'utf8'))).toThrow(/differ in length/);
  });
});
