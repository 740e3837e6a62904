// What a turn's diff needs of a file the turn created, read a piece at a time instead of whole: its git blob
// id, whether it is binary, its line count, and its first bytes, only as many as the diff can still show.
// A command that writes an 8 MiB data file made the diff, which is made again after every step, read it
// whole twice and hold it until the diff was written; in a host serving eight such threads those buffers
// were most of what its garbage collector had to mark.
import { isAscii } from 'node:buffer';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { BINARY_PROBE, blobHasher, blobOid, looksBinary } from '../util/git-blob';
import type { Pacer } from '../util/slicer';

export interface NewFileScan {
  /** Git's blob id of the content. */
  oid: string;
  /** A NUL among the first 8,000 bytes (git's test). */
  binary: boolean;
  /** Lines, the last one counted also without a line break. */
  lines: number;
  /**
   * The content's first bytes: all of it when it is small enough, else at least as many as make more than
   * `room` characters of diff lines (`+` and a line break each), so that rendering the diff within `room`
   * stops before reaching the end of `head` (see `headLimit`).
   */
  head: Buffer;
}

/** Bytes read at a time. */
const PIECE = 1024 * 1024;
const LF = 10;

/**
 * Bytes of head that surely render past `room` characters: a diff line of b bytes of UTF-8 (with its
 * '\n') renders as at least b/3 UTF-16 code units plus its '+', so 3 × (room + 1) bytes do; ASCII renders a
 * unit per byte, so room + 1 bytes do. A line that reaches past the head is then too long to be shown.
 */
function headLimit(room: number, ascii: boolean): number {
  if (room <= 0) return 0;
  return ascii ? room + 1 : 3 * (room + 1);
}

function countLines(chunk: Buffer): number {
  let lines = 0;
  for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, at + 1)) lines++;
  return lines;
}

/** The scan of content already in memory (and of a file that changed size while it was read). */
export function scanOf(content: Buffer): NewFileScan {
  const endsOpen = content.length > 0 && content[content.length - 1] !== LF;
  return {
    oid: blobOid(content),
    binary: looksBinary(content),
    lines: countLines(content) + (endsOpen ? 1 : 0),
    head: content,
  };
}

/**
 * Reads `path` a piece at a time, keeping of it only what a diff with `room` characters left can show
 * (nothing when `room` is 0); null when it is not a readable file.
 */
export async function scanNewFile(path: string, room: number, pacer: Pacer): Promise<NewFileScan | null> {
  let handle;
  try {
    // Not blocking: a FIFO put in the file's place would hold the open until a writer came.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return null;
    const size = st.size;
    const hash = blobHasher(size);
    const piece = Buffer.allocUnsafeSlow(Math.max(1, Math.min(size, PIECE)));
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let ascii = true;
    let binary = false;
    let lines = 0;
    let last = LF;
    let at = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(piece, 0, Math.min(piece.length, size - at), at);
      // Shorter than its stat said: read it again whole, as it is now.
      if (bytesRead === 0) return scanOf(await handle.readFile());
      const chunk = piece.subarray(0, bytesRead);
      if (at < BINARY_PROBE && looksBinary(chunk.subarray(0, BINARY_PROBE - at))) binary = true;
      hash.update(chunk);
      lines += countLines(chunk);
      last = chunk[bytesRead - 1] ?? LF;
      if (keptBytes < headLimit(room, ascii)) {
        // What this piece may add (the most, for bytes that are not all ASCII) decides how much it adds.
        const most = Math.min(bytesRead, headLimit(room, false) - keptBytes);
        ascii &&= isAscii(chunk.subarray(0, most));
        const want = Math.min(most, headLimit(room, ascii) - keptBytes);
        const copy = Buffer.allocUnsafeSlow(want);
        chunk.copy(copy, 0, 0, want);
        kept.push(copy);
        keptBytes += want;
      }
      at += bytesRead;
      if (pacer.due()) await pacer.pause();
    }
    const head = kept.length === 1 && kept[0] !== undefined ? kept[0] : Buffer.concat(kept, keptBytes);
    return { oid: hash.digest('hex'), binary, lines: lines + (size > 0 && last !== LF ? 1 : 0), head };
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}
