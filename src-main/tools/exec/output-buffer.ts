// Output held for a session between tool calls, capped in bytes: once the cap is reached the first half
// is kept as is and the second half keeps the most recent output, so the middle is what gets dropped.
import type { RetainedParts } from './format';
import { utf8ByteLength, utf8Prefix, utf8Suffix } from './format';

export class RetainedOutput {
  private readonly headCap: number;
  private readonly tailCap: number;
  private head: string[] = [];
  private headBytes = 0;
  /** Once set, new text goes to the tail even if the head has a few bytes of room left. */
  private headFull = false;
  private tail: string[] = [];
  /** Index of the first live chunk in `tail` (chunks before it were dropped). */
  private tailStart = 0;
  private tailBytes = 0;
  private omittedBytes = 0;

  constructor(capBytes: number) {
    this.headCap = Math.floor(capBytes / 2);
    this.tailCap = capBytes - this.headCap;
  }

  get isEmpty(): boolean {
    return this.headBytes === 0 && this.tailBytes === 0 && this.omittedBytes === 0;
  }

  push(text: string): void {
    if (text === '') return;
    let rest = text;
    if (!this.headFull) {
      const room = this.headCap - this.headBytes;
      const bytes = utf8ByteLength(rest);
      if (bytes <= room) {
        this.head.push(rest);
        this.headBytes += bytes;
        return;
      }
      const part = utf8Prefix(rest, room);
      if (part !== '') {
        this.head.push(part);
        this.headBytes += utf8ByteLength(part);
      }
      this.headFull = true;
      rest = rest.slice(part.length);
    }
    this.tail.push(rest);
    this.tailBytes += utf8ByteLength(rest);
    this.trimTail();
  }

  /** The retained output, without removing it. */
  peek(): RetainedParts {
    return {
      head: this.head.join(''),
      omittedBytes: this.omittedBytes,
      tail: this.tail.slice(this.tailStart).join(''),
    };
  }

  /** The retained output; the buffer is empty afterwards. */
  drain(): RetainedParts {
    const parts = this.peek();
    this.head = [];
    this.headBytes = 0;
    this.headFull = false;
    this.tail = [];
    this.tailStart = 0;
    this.tailBytes = 0;
    this.omittedBytes = 0;
    return parts;
  }

  private trimTail(): void {
    while (this.tailBytes > this.tailCap) {
      const first = this.tail[this.tailStart];
      if (first === undefined) break;
      const firstBytes = utf8ByteLength(first);
      const excess = this.tailBytes - this.tailCap;
      if (firstBytes <= excess) {
        this.tailStart++;
        this.tailBytes -= firstBytes;
        this.omittedBytes += firstBytes;
        continue;
      }
      const kept = utf8Suffix(first, firstBytes - excess);
      const keptBytes = utf8ByteLength(kept);
      this.tail[this.tailStart] = kept;
      this.tailBytes -= firstBytes - keptBytes;
      this.omittedBytes += firstBytes - keptBytes;
    }
    if (this.tailStart > 64 && this.tailStart * 2 > this.tail.length) {
      this.tail = this.tail.slice(this.tailStart);
      this.tailStart = 0;
    }
  }
}
