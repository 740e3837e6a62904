// What a turn's diff needs of a file the turn created, read a piece at a time instead of whole: its git blob
// id, whether it is binary, its line count, and its first bytes, only as many as the diff can still show.
// A command that writes an 8 MiB data file made the diff, which is made again after every step, read it
// whole twice and hold it until the diff was written; in a host serving eight such threads those buffers
// were most of what its garbage collector had to mark.
import { isAscii } from 'node:buffer';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Hash } from 'node:crypto';
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
export const PIECE = 1024 * 1024;
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
 * A scan made from a file's pieces, given in order. The file is read by the caller (a piece at a time, on this
 * thread or on the scan's worker thread: new-file-scan-worker.ts).
 */
export class ScanBuilder {
  private readonly hash: Hash;
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private ascii = true;
  private binary = false;
  private lines = 0;
  private last = LF;
  private at = 0;

  /** For a file of `size` bytes, keeping what a diff with `room` characters left can show. */
  constructor(
    private readonly size: number,
    private readonly room: number,
  ) {
    this.hash = blobHasher(size);
  }

  /** Bytes given so far. */
  get read(): number {
    return this.at;
  }

  /** The next piece of the file (its bytes are copied where kept: the caller may reuse `chunk`). */
  add(chunk: Buffer): void {
    if (this.at < BINARY_PROBE && looksBinary(chunk.subarray(0, BINARY_PROBE - this.at))) this.binary = true;
    this.hash.update(chunk);
    this.lines += countLines(chunk);
    this.last = chunk[chunk.length - 1] ?? this.last;
    if (this.keptBytes < headLimit(this.room, this.ascii)) {
      // What this piece may add (the most, for bytes that are not all ASCII) decides how much it adds.
      const most = Math.min(chunk.length, headLimit(this.room, false) - this.keptBytes);
      this.ascii &&= isAscii(chunk.subarray(0, most));
      const want = Math.min(most, headLimit(this.room, this.ascii) - this.keptBytes);
      const copy = Buffer.allocUnsafeSlow(want);
      chunk.copy(copy, 0, 0, want);
      this.kept.push(copy);
      this.keptBytes += want;
    }
    this.at += chunk.length;
  }

  /** The scan, once the whole file (`size` bytes) was given. */
  finish(): NewFileScan {
    const head =
      this.kept.length === 1 && this.kept[0] !== undefined ? this.kept[0] : Buffer.concat(this.kept, this.keptBytes);
    const endsOpen = this.size > 0 && this.last !== LF;
    return { oid: this.hash.digest('hex'), binary: this.binary, lines: this.lines + (endsOpen ? 1 : 0), head };
  }
}

/**
 * Reads `path` a piece at a time on this thread, keeping of it only what a diff with `room` characters left
 * can show (nothing when `room` is 0); null when it is not a readable file.
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
    const scan = new ScanBuilder(size, room);
    const piece = Buffer.allocUnsafeSlow(Math.max(1, Math.min(size, PIECE)));
    while (scan.read < size) {
      const { bytesRead } = await handle.read(piece, 0, Math.min(piece.length, size - scan.read), scan.read);
      // Shorter than its stat said: read it again whole, as it is now.
      if (bytesRead === 0) return scanOf(await handle.readFile());
      scan.add(piece.subarray(0, bytesRead));
      if (pacer.due()) await pacer.pause();
    }
    return scan.finish();
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

interface ScanWorker {
  scan(path: string, room: number): Promise<NewFileScan | null>;
  stop(): Promise<void>;
}

/** The scan's worker, started on the first scan; null once it could not start or failed (scans then run here). */
let scanWorker: Promise<ScanWorker | null> | null = null;

/**
 * As `scanNewFile`, on the scan's worker thread (new-file-scan-worker.ts), so that the main thread neither
 * hashes nor counts the file; on this thread when no worker can run here (a build without it) or the worker
 * failed.
 */
export async function scanNewFileOffThread(path: string, room: number, pacer: Pacer): Promise<NewFileScan | null> {
  scanWorker ??= startScanWorker();
  const worker = await scanWorker;
  if (worker === null) return scanNewFile(path, room, pacer);
  try {
    return await worker.scan(path, room);
  } catch {
    return scanNewFile(path, room, pacer);
  }
}

/** Ends the scan's worker (a later scan starts another); for a process's end and the tests' leak check. */
export async function stopScanWorker(): Promise<void> {
  const worker = await scanWorker;
  scanWorker = null;
  await worker?.stop();
}

async function startScanWorker(): Promise<ScanWorker | null> {
  const { startWorker } = await import('../util/worker-thread');
  const { ScanReply } = await import('./new-file-scan-messages');
  const worker = await startWorker('new-file-scan-worker', { workerData: {} }).catch(() => null);
  if (worker === null) return null;
  const pending = new Map<number, { resolve: (scan: NewFileScan | null) => void; reject: (error: Error) => void }>();
  let next = 1;
  let stopping = false;
  // The worker keeps no process alive while it has nothing to do (a one-shot command ends when its work does).
  worker.unref();
  const fail = (error: Error): void => {
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
    // Scans run on the main thread from now on.
    if (!stopping) scanWorker = Promise.resolve(null);
  };
  worker.on('message', (raw: unknown) => {
    const reply = ScanReply.safeParse(raw);
    if (!reply.success) {
      fail(new Error(`the file scan's worker sent what it should not (${reply.error.message})`));
      void worker.terminate();
      return;
    }
    const waiter = pending.get(reply.data.id);
    if (waiter === undefined) return;
    pending.delete(reply.data.id);
    if (pending.size === 0) worker.unref();
    const scan = reply.data.scan;
    waiter.resolve(
      scan === null
        ? null
        : { ...scan, head: Buffer.from(scan.head.buffer, scan.head.byteOffset, scan.head.byteLength) },
    );
  });
  worker.on('error', (error) => fail(error));
  worker.on('exit', () => fail(new Error("the file scan's worker ended")));
  return {
    scan(path, room) {
      const id = next++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        // Waited on: the process stays for the answer.
        worker.ref();
        worker.postMessage({ id, path, room });
      });
    },
    async stop() {
      stopping = true;
      await worker.terminate();
    },
  };
}
