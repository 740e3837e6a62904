// Output written to xterm in pieces: xterm parses each write whole and only gives the page back between
// writes (after about 12 ms of them), so 60 KB written at once held a frame for 25 to 50 ms. A piece is
// bounded by lines as well as characters: xterm pays for every line that scrolls (its scrollbar is moved
// and shown again for each one), so 4 KB of short lines (`seq 1 3000` prints 800 to the 4 KB) cost as
// much as a whole frame, where 4 KB of 80-column lines cost about a millisecond.

/** Characters per piece: about a millisecond of xterm's parsing. */
export const PIECE_CHARS = 4096;
/** Lines per piece: a few milliseconds of xterm's scrolling on a busy machine. */
export const PIECE_LINES = 64;

/**
 * `data` cut into pieces of at most `size` characters and `lines` line breaks, each ending after a line
 * break where the piece has one (a line longer than `size` is cut inside it, never between the two halves
 * of a surrogate pair).
 */
export function terminalPieces(data: string, size = PIECE_CHARS, lines = PIECE_LINES): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (;;) {
    const byLines = lineBreakAfter(data, start, lines);
    if (data.length - start <= size && byLines === -1) break;
    let end = Math.min(data.length, start + size);
    if (byLines !== -1 && byLines + 1 < end) end = byLines + 1;
    else if (end < data.length) {
      const lastBreak = data.lastIndexOf('\n', end - 1) + 1;
      if (lastBreak > start) end = lastBreak;
      else {
        const code = data.charCodeAt(end - 1);
        if (code >= 0xd800 && code <= 0xdbff) end -= 1;
      }
    }
    if (end >= data.length) break;
    pieces.push(data.slice(start, end));
    start = end;
  }
  pieces.push(data.slice(start));
  return pieces;
}

/** Index of the `count`-th line break from `start`, when another character follows it; else -1. */
function lineBreakAfter(data: string, start: number, count: number): number {
  let at = start - 1;
  for (let seen = 0; seen < count; seen++) {
    at = data.indexOf('\n', at + 1);
    if (at === -1) return -1;
  }
  return at + 1 < data.length ? at : -1;
}
