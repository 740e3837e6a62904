import { describe, expect, it } from 'vitest';
import { terminalPieces } from '../../../src-renderer/components/terminal-pieces';

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

  it('leaves short output whole', () => {
    expect(terminalPieces('hi\n', 10)).toEqual(['hi\n']);
    expect(terminalPieces('', 10)).toEqual(['']);
  });
});
