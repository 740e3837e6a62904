import { describe, expect, it } from 'vitest';
import { PIECE_LINES, terminalPieces } from '../../../src-renderer/components/terminal-pieces';

describe('terminal output in pieces', () => {
  it('cuts after line breaks, each piece at most the size, and joins back to the output', () => {
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i} ${'x'.repeat(i % 37)}\n`).join('');
    const pieces = terminalPieces(lines, 256);
    expect(pieces.join('')).toBe(lines);
    expect(pieces.length).toBeGreaterThan(10);
    expect(pieces.filter((piece) => piece.length > 256)).toEqual([]);
    expect(pieces.slice(0, -1).filter((piece) => !piece.endsWith('\n'))).toEqual([]);
  });

  it('cuts a line longer than the size inside it, never between the halves of a surrogate pair', () => {
    const long = `${'a'.repeat(9)}😀${'b'.repeat(20)}`;
    const pieces = terminalPieces(long, 10);
    expect(pieces.join('')).toBe(long);
    expect(pieces[0]).toBe('a'.repeat(9));
    expect(pieces[1]?.startsWith('😀')).toBe(true);
  });

  it('puts at most the line count in a piece: many short lines are cut as often as few long ones', () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join('');
    const pieces = terminalPieces(lines, 4096, 64);
    expect(pieces.join('')).toBe(lines);
    expect(pieces).toHaveLength(Math.ceil(3000 / 64));
    expect(pieces.map((piece) => piece.split('\n').length - 1).filter((count) => count > 64)).toEqual([]);
    expect(pieces.slice(0, -1).filter((piece) => !piece.endsWith('\n'))).toEqual([]);
  });

  it('cuts seq-like output by default into pieces of at most PIECE_LINES lines', () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join('');
    const counts = terminalPieces(lines).map((piece) => piece.split('\n').length - 1);
    expect(Math.max(...counts)).toBeLessThanOrEqual(PIECE_LINES);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(3000);
  });

  it('leaves short output whole', () => {
    expect(terminalPieces('hi\n', 10)).toEqual(['hi\n']);
    expect(terminalPieces('', 10)).toEqual(['']);
  });
});
