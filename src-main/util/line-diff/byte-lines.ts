// A file's bytes seen as lines without decoding them: where each line starts, a hash of a line computed
// when first asked for, and comparisons of runs of lines as one native memcmp. A line is its bytes up to
// and including its '\n' (the last line may have none), so two lines are equal only when their line ends
// are: the same rule as a line diff of the text, where a final line without '\n' differs from one with.
import { isAscii } from 'node:buffer';
import type { Pacer } from '../slicer';

const LF = 10;

export class ByteLines {
  /** starts[k] is where line k begins; starts[count] is the length of the bytes. */
  private readonly starts: Int32Array;
  /** Hashes of the lines asked for so far (`hashed[k]` = 1): only lines near changes ever are. */
  private readonly hashes: Int32Array;
  private readonly hashed: Uint8Array;
  private readonly encoding: 'latin1' | 'utf8';

  private constructor(
    readonly bytes: Buffer,
    starts: Int32Array,
    readonly count: number,
  ) {
    this.starts = starts;
    this.hashes = new Int32Array(count);
    this.hashed = new Uint8Array(count);
    // ASCII decodes as Latin-1 to the same string, many times faster; a line of UTF-8 ends at a '\n',
    // which never occurs inside a multi-byte character, so lines decode one by one.
    this.encoding = isAscii(bytes) ? 'latin1' : 'utf8';
  }

  /** Indexes the lines of `bytes`, pausing when `pacer` says the slice is used up. */
  static async of(bytes: Buffer, pacer: Pacer): Promise<ByteLines> {
    let starts = new Int32Array(1024);
    let count = 0;
    let from = 0;
    while (from < bytes.length) {
      if (count + 1 >= starts.length) {
        const grown = new Int32Array(starts.length * 2);
        grown.set(starts);
        starts = grown;
      }
      starts[count++] = from;
      const lf = bytes.indexOf(LF, from);
      from = lf < 0 ? bytes.length : lf + 1;
      if ((count & 4095) === 0 && pacer.due()) await pacer.pause();
    }
    starts[count] = bytes.length;
    return new ByteLines(bytes, starts, count);
  }

  /** Byte offset where line `index` begins (`count` → the end of the bytes). */
  start(index: number): number {
    return this.starts[index] ?? this.bytes.length;
  }

  /** Whether the last line ends without a line break. */
  get unterminated(): boolean {
    return this.bytes.length > 0 && this.bytes[this.bytes.length - 1] !== LF;
  }

  /** The text of line `index` without its '\n' (a '\r' before it stays: it is part of the line). */
  text(index: number): string {
    const end = this.start(index + 1);
    const cut = end > this.start(index) && this.bytes[end - 1] === LF ? end - 1 : end;
    return this.bytes.toString(this.encoding, this.start(index), cut);
  }

  /** A hash of line `index` (its bytes and line end); equal lines have equal hashes. */
  hash(index: number): number {
    if (this.hashed[index] === 1) return this.hashes[index] ?? 0;
    let h = 0x811c9dc5 | 0;
    const end = this.start(index + 1);
    for (let at = this.start(index); at < end; at++) h = Math.imul(h ^ (this.bytes[at] ?? 0), 16777619);
    this.hashes[index] = h;
    this.hashed[index] = 1;
    return h;
  }

  /** Whether lines from..from+length-1 here equal lines otherFrom.. of `other`, compared as bytes. */
  sameRun(from: number, other: ByteLines, otherFrom: number, length: number): boolean {
    const a0 = this.start(from);
    const a1 = this.start(from + length);
    const b0 = other.start(otherFrom);
    const b1 = other.start(otherFrom + length);
    return a1 - a0 === b1 - b0 && this.bytes.compare(other.bytes, b0, b1, a0, a1) === 0;
  }

  /**
   * How many lines from `from` here equal the lines from `otherFrom` of `other`, one after another:
   * runs are compared as whole byte ranges, doubling, so a long equal stretch costs a few memcmps.
   */
  commonRun(from: number, other: ByteLines, otherFrom: number): number {
    const most = Math.min(this.count - from, other.count - otherFrom);
    let known = 0;
    let step = 1;
    // Grow while equal, then narrow down to the first line that differs.
    while (known < most) {
      const length = Math.min(step, most - known);
      if (this.sameRun(from + known, other, otherFrom + known, length)) {
        known += length;
        step *= 2;
      } else if (length === 1) {
        break;
      } else {
        step = Math.max(1, length >> 1);
      }
    }
    return known;
  }
}
