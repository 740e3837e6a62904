// Output written to xterm in pieces: xterm parses each write whole and only gives the page back between
// writes (after about 12 ms of them), so 60 KB written at once held a frame for 25 to 50 ms.

/** Characters per piece: about a millisecond of xterm's parsing. */
export const PIECE_CHARS = 4096;

/**
 * `data` cut into pieces of at most `size` characters, each ending after a line break where the piece
 * has one (a line longer than `size` is cut inside it, never between the two halves of a surrogate pair).
 */
export function terminalPieces(data: string, size = PIECE_CHARS): string[] {
  if (data.length <= size) return [data];
  const pieces: string[] = [];
  let start = 0;
  while (data.length - start > size) {
    let end = data.lastIndexOf('\n', start + size - 1) + 1;
    if (end <= start) {
      end = start + size;
      const code = data.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    }
    pieces.push(data.slice(start, end));
    start = end;
  }
  pieces.push(data.slice(start));
  return pieces;
}
