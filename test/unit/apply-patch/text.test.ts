import { describe, expect, it } from 'vitest';
import {
  ASCII_AS_STRING_MAX,
  TextLines,
  applyEdits,
  editedBytes,
  splitTextPaced,
  type LineEdit,
} from '../../../src-main/tools/apply-patch/text';
import { Slicer } from '../../../src-main/util/slicer';

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
    [
      'a\nb\nc\nd\n',
      [
        { start: 0, oldCount: 1, newLines: ['ü'] },
        { start: 1, oldCount: 1, newLines: [] },
        { start: 2, oldCount: 1, newLines: ['x', '€€'] },
        { start: 3, oldCount: 1, newLines: ['y'] },
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

describe('TextLines over the bytes of an ASCII file', () => {
  // Everything read from lines held as bytes must be what the same text held as a string gives.
  const reads = (t: TextLines): unknown => ({
    ...(view(t) as object),
    line: [t.line(-1), t.line(0), t.line(t.count - 1), t.line(t.count)],
    equals: [
      t.lineEquals(0, t.line(0)),
      t.lineEquals(0, `${t.line(0)}x`),
      t.lineEquals(t.count - 1, t.line(t.count - 1)),
    ],
    find: [t.findLine('b', 0), t.findLine('b', 2), t.findLine('', 0), t.findLine('a\rb', 0), t.findLine('zz', 0)],
    raw: [t.raw(0, t.count), t.raw(1, t.count)],
    edited: applyEdits(t, [{ start: 1, oldCount: 1, newLines: ['B'] }]),
  });

  it.each(['', 'a', 'a\nb\nb\n', 'a\r\nb\r\nc\n', 'x\r\nb\nc', 'a\rb\nb\n\n', 'a\n\nb'])(
    'reads %j as the string would',
    async (text) => {
      const bytes = Buffer.from(text, 'latin1');
      expect(reads(new TextLines(null, bytes))).toEqual(reads(new TextLines(text)));
      expect(reads(await splitTextPaced(Buffer.from(bytes), new Slicer()))).toEqual(reads(new TextLines(text)));
    },
  );

  it.each([
    ['a file of a few lines', 1],
    ['a file past the size read through a string', ASCII_AS_STRING_MAX / 16 + 1],
  ])('splits %s and writes the edit from views of its bytes', async (_, repeat) => {
    const text = 'alpha\nbeta\r\ngamma\n'.repeat(repeat);
    // Not from Buffer.from's shared pool, so that a view of these bytes can be told from other buffers.
    const bytes = Buffer.alloc(text.length);
    bytes.write(text, 'latin1');
    const lines = await splitTextPaced(bytes, new Slicer());
    expect(lines.count).toBe(3 * repeat);
    expect([lines.line(1), lines.lineEquals(2, 'gamma'), lines.findLine('gamma', 1)]).toEqual(['beta', true, 2]);
    const edits: LineEdit[] = [{ start: 1, oldCount: 1, newLines: ['BETA'] }];
    const pieces = editedBytes(lines, edits);
    expect(pieces).not.toBeNull();
    expect(Buffer.concat(pieces ?? []).toString('latin1')).toBe(applyEdits(lines, edits));
    // The untouched runs are the file's own bytes, not copies of them.
    expect(pieces?.filter((piece) => piece.buffer === bytes.buffer).length).toBe(2);
  });

  it('never finds text with characters beyond ASCII, whose low bytes would match', () => {
    // "Ł" is U+0141: written as Latin-1 it would be 0x41, an "A".
    const t = new TextLines(null, Buffer.from('x\nA\n'));
    expect([t.findLine('A', 0), t.findLine('Ł', 0), t.lineEquals(1, 'Ł')]).toEqual([1, -1, false]);
  });
});
