// A one-shot command's standard input and output without Node's streams: `process.stdin` and `process.stdout`
// load them (about 7 ms of `weft apply-patch`'s 44 ms start), which the command can spare. Input is read
// from fd 0 and output written to fd 1 and 2 with plain system calls. Whenever those cannot do the job (a
// terminal, a non-blocking pipe that has nothing in it yet or is full), the rest goes through Node's stream
// after all, and nothing read or written before is lost.

import { fstatSync, readSync, writeSync } from 'node:fs';
import { exitAfterFlush } from './start';

/** What a command reads: chunks in order, and whether it is a terminal (then a command reads nothing). */
export type CliInput = AsyncIterable<string | Buffer> & { readonly isTTY?: boolean };

/** Where a command writes: `done` runs once the text is written (or failed). */
export interface CliOutput {
  write(text: string, done: (error?: Error | null) => void): unknown;
}

/** Whether a stream of this process had to be made because the plain calls could not do the job. */
let streamsMade = false;

/** Whether `fd` is a terminal or another character device (or cannot be looked at): then a stream reads it. */
function forStream(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return true;
  }
}

/**
 * Standard input (`fd`), read only when the command iterates it: to its end, or what could be read and
 * then `stream()` for the rest. The stream reads a terminal (it knows one when it sees one) and a
 * non-blocking pipe that has nothing in it yet while its writer is still writing (EAGAIN).
 */
export function plainStdin(
  fd = 0,
  stream: () => AsyncIterable<string | Buffer> & { readonly isTTY?: boolean } = () => process.stdin,
): CliInput {
  let device: boolean | null = null;
  const isDevice = (): boolean => (device ??= forStream(fd));
  return {
    get isTTY() {
      return isDevice() && stream().isTTY === true;
    },
    async *[Symbol.asyncIterator]() {
      const read: Buffer[] = [];
      let rest = isDevice();
      if (!rest) {
        const chunk = Buffer.allocUnsafe(64 * 1024);
        try {
          for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk))
            read.push(Buffer.from(chunk.subarray(0, n)));
        } catch {
          rest = true;
        }
      }
      yield* read;
      if (!rest) return;
      streamsMade = true;
      yield* stream();
    },
  };
}

/**
 * Standard output or error (`fd`) written with plain system calls; what a non-blocking pipe cannot take now
 * (it is full: EAGAIN) goes through `stream()`, which waits until it drains.
 */
export function plainOutput(
  fd: number,
  stream: () => Pick<NodeJS.WritableStream, 'write'> = () => (fd === 2 ? process.stderr : process.stdout),
): CliOutput {
  return {
    write(text, done) {
      const bytes = Buffer.from(text, 'utf8');
      let at = 0;
      try {
        while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
      } catch (error) {
        if ((error as { code?: unknown } | null)?.code !== 'EAGAIN') {
          done(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        streamsMade = true;
        stream().write(bytes.subarray(at), (failure?: Error | null) => done(failure));
        return;
      }
      done();
    },
  };
}

/** Exits once what was written is out: at once, unless a stream had to be made (then once it is flushed). */
export function exitWhenWritten(code: number): void {
  if (streamsMade) exitAfterFlush(code);
  else process.exit(code);
}
