/**
 * Content-addressed blobs: `blobs/<first two hex>/<rest of the sha256>`, deflate-compressed. A blob
 * is written once (temp file + rename) and shared by every checkpoint that holds the same bytes.
 *
 * Nothing here holds the event loop for long (the host serves every thread from one process): hashing
 * and compressing content above `OFF_LOOP_BYTES` run on libuv's thread pool (WebCrypto's digest and
 * zlib's asynchronous deflate each own their handle there), except a file stored a piece at a time
 * (`putFile`), each 1 MiB piece hashed here in about 0.6 ms; files are read and written through
 * `node:fs/promises`, and the listing for gc and sizes yields between folders.
 */
import { createHash, randomBytes, webcrypto } from 'node:crypto';
import {
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  unlink,
  utimes,
  writeFile,
  type FileHandle,
} from 'node:fs/promises';
import { join } from 'node:path';
import {
  constants as zlibConstants,
  createDeflate,
  deflateRawSync,
  deflateSync,
  inflate,
  inflateSync,
  type Deflate,
} from 'node:zlib';
import { Mutex } from './mutex';
import { yieldToLoop } from '../util/slicer';

// node:util through getBuiltinModule: its ES facade reads every export, loading util's diff and parseArgs.
const { promisify } = process.getBuiltinModule('node:util');

const inflateAsync = promisify(inflate);

/**
 * Content this large or larger is hashed and compressed off the event loop; below it the work takes
 * well under a millisecond and a round trip to the thread pool would cost more than it saves.
 */
export const OFF_LOOP_BYTES = 64 * 1024;

/**
 * A blob's content. Content below `OFF_LOOP_BYTES` is inflated here (a round trip to the thread pool
 * costs more; a turn's diff of 3,000 deleted files reads 3,000 of them); a blob that inflates to more,
 * however small it is packed, goes to the thread pool.
 */
async function inflateBlob(packed: Buffer): Promise<Buffer> {
  if (packed.length < OFF_LOOP_BYTES) {
    try {
      return inflateSync(packed, { maxOutputLength: OFF_LOOP_BYTES });
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
    }
  }
  return inflateAsync(packed);
}

/** Largest output chunk of the asynchronous deflate: one thread-pool round trip per MiB written. */
const DEFLATE_CHUNK = 1024 * 1024;
/**
 * One hash or deflate of big content at a time, process-wide (inflating for a restore is not limited):
 * with every pool thread busy compressing (20 files of 8 MiB side by side) the requests' own file reads
 * queue behind them, and on a machine of two cores the event loop waits for a core (measured: answers
 * 190-310 ms late).
 */
const offLoop = new Mutex();

export class BlobDamagedError extends Error {
  constructor(readonly hash: string) {
    super(`checkpoint blob ${hash.slice(0, 12)} is missing or damaged`);
    this.name = 'BlobDamagedError';
  }
}

/** The sha256 of small content, on the calling thread. */
export function hashBytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The sha256 of any content; from `OFF_LOOP_BYTES` on, computed on the thread pool. */
export async function hashContent(bytes: Uint8Array): Promise<string> {
  if (bytes.length < OFF_LOOP_BYTES) return hashBytes(bytes);
  return offLoop.run(async () => Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex'));
}

/** A big file is read a piece of this size at a time (`BlobStore.putFile`), through one buffer per file. */
const READ_CHUNK = 1024 * 1024;

const { Z_DEFAULT_STRATEGY, Z_HUFFMAN_ONLY } = zlibConstants;
/** Bytes of a big content's start that `strategyFor` compresses to judge it; below a few KB it does not. */
const SAMPLE_BYTES = 32 * 1024;
const SAMPLE_MIN_BYTES = 4096;

/**
 * Deflate's strategy for big content that starts with `sample`: Huffman coding alone when deflate's string
 * matching gains almost nothing on the sample (random or encoded data, what is compressed already), which
 * then packs the same size in about a fifth of the time (an 8 MiB base64 file: 25 against 122 ms of a
 * core); deflate's usual matching otherwise. Judged by compressing its first 32 KiB both ways at level 1
 * (about 0.5 ms). Inflating does not depend on it: a blob is one zlib stream either way.
 */
export function strategyFor(sample: Uint8Array): number {
  if (sample.length < SAMPLE_MIN_BYTES) return Z_DEFAULT_STRATEGY;
  const head = sample.subarray(0, SAMPLE_BYTES);
  const matched = deflateRawSync(head, { level: 1 }).length;
  const huffman = deflateRawSync(head, { level: 1, strategy: Z_HUFFMAN_ONLY }).length;
  return huffman <= matched * 1.02 ? Z_HUFFMAN_ONLY : Z_DEFAULT_STRATEGY;
}

/**
 * Deflates (level 6, the blob format, with `strategy`) what `feed` writes to the deflater, which ends it,
 * into `out`: each output chunk is written as the thread pool makes it. Returns the bytes written.
 */
async function deflateInto(
  out: FileHandle,
  inputBytes: number,
  strategy: number,
  feed: (deflater: Deflate) => Promise<void>,
): Promise<number> {
  // Output chunks no bigger than the input (and its few bytes of framing) needs: each chunk is a new Buffer.
  const chunkSize = Math.min(DEFLATE_CHUNK, Math.max(16 * 1024, inputBytes + 1024));
  const deflater = createDeflate({ level: 6, strategy, chunkSize });
  const drained = (async () => {
    let written = 0;
    for await (const chunk of deflater as AsyncIterable<Buffer>) {
      await out.write(chunk);
      written += chunk.length;
    }
    return written;
  })();
  try {
    await feed(deflater);
  } catch (error) {
    deflater.destroy();
    await drained.catch(() => undefined);
    throw error;
  }
  return drained;
}

/**
 * Writes `bytes` deflated (level 6, the blob format) to the new file `file` and returns the bytes written.
 * Small content is compressed on the calling thread; from `OFF_LOOP_BYTES` on, on the thread pool with the
 * strategy its start calls for (`strategyFor`), each output chunk written as it comes: gathered and joined
 * first, the compressed copy of an 8 MiB file was two more buffers of its size, held long enough to count
 * against the heap's next full collection.
 */
export async function writePacked(file: string, bytes: Uint8Array): Promise<number> {
  if (bytes.length < OFF_LOOP_BYTES) {
    const packed = deflateSync(bytes, { level: 6 });
    await writeFile(file, packed, { mode: 0o600 });
    return packed.length;
  }
  return offLoop.run(async () => {
    const out = await open(file, 'w', 0o600);
    try {
      return await deflateInto(out, bytes.length, strategyFor(bytes), (deflater) => {
        deflater.end(bytes);
        return Promise.resolve();
      });
    } finally {
      await out.close();
    }
  });
}

/** A file's content as `BlobStore.putFile` stored it. */
export interface StoredFile {
  hash: string;
  /** Compressed bytes written (0: the blob was there already). */
  written: number;
  /** Bytes read: the file's size, unless it shrank while it was read. */
  size: number;
}

export class BlobStore {
  readonly dir: string;
  private readonly tmpDir: string;
  /** Hashes known to be on disk (saves a stat per put). */
  private readonly known = new Set<string>();
  /** Puts under way, by hash: a second put of the same content waits for the first. */
  private readonly writing = new Map<string, Promise<number>>();
  /** Folders known to exist. */
  private readonly made = new Set<string>();

  constructor(checkpointsDir: string) {
    this.dir = join(checkpointsDir, 'blobs');
    this.tmpDir = join(checkpointsDir, 'tmp');
  }

  pathOf(hash: string): string {
    return join(this.dir, hash.slice(0, 2), hash.slice(2));
  }

  /** Stores the bytes (if new) and returns their hash and how many compressed bytes were written (0 if deduplicated). */
  async put(bytes: Uint8Array): Promise<{ hash: string; written: number }> {
    const hash = await hashContent(bytes);
    if (this.known.has(hash)) return { hash, written: 0 };
    const under = this.writing.get(hash);
    if (under !== undefined) {
      await under;
      return { hash, written: 0 };
    }
    const work = this.write(hash, bytes);
    this.writing.set(hash, work);
    try {
      return { hash, written: await work };
    } finally {
      this.writing.delete(hash);
    }
  }

  /**
   * Stores the content of the regular file open as `handle`, `size` bytes from its start at most (its
   * stat-ed size), in one pass through a buffer of 1 MiB at most: each piece hashed on this thread (about
   * 0.6 ms a MiB), compressed on the thread pool (one piece at a time process-wide, so that files stored side
   * by side take turns) and written to a temporary file that becomes the blob, so the file is never held
   * whole. An 8 MiB file read whole and compressed whole was three buffers of its size, promoted
   * to the old generation before they could go: the main cause of the host's full collections with busy
   * agents. Null when the file could not be read (it changed under the caller: recorded without content);
   * a failure to write the blob throws.
   */
  async putFile(handle: FileHandle, size: number): Promise<StoredFile | null> {
    await this.ensureDir(this.tmpDir);
    const tmp = join(this.tmpDir, `file-${randomBytes(8).toString('hex')}`);
    const hasher = createHash('sha256');
    const buffer = Buffer.allocUnsafeSlow(Math.min(READ_CHUNK, Math.max(1, size)));
    let read = 0;
    let unreadable = false;
    /** The next piece (empty at the end, or when the file cannot be read: `unreadable` then). */
    const nextPiece = async (): Promise<Buffer> => {
      if (read >= size) return buffer.subarray(0, 0);
      try {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(READ_CHUNK, size - read), read);
        // What is done with a piece here (judged, hashed) waits for a turn of the event loop of its own:
        // the first pieces of 20 files read side by side arrive together, and judged and hashed one after
        // the other they held the loop 30 ms.
        await yieldToLoop();
        return buffer.subarray(0, bytesRead);
      } catch {
        unreadable = true;
        return buffer.subarray(0, 0);
      }
    };
    // The first piece is read before the deflater is made: its strategy is judged on it.
    let piece = await nextPiece();
    const out = await open(tmp, 'w', 0o600);
    let written: number;
    try {
      written = await deflateInto(out, size, strategyFor(piece), async (deflater) => {
        while (piece.length > 0) {
          hasher.update(piece);
          const current = piece;
          // The piece is the deflater's until its write is done; only then is the buffer read into again.
          // One piece compressed at a time, process-wide: files stored side by side take turns.
          await offLoop.run(
            () =>
              new Promise<void>((resolve, reject) =>
                deflater.write(current, (error) => (error ? reject(error) : resolve())),
              ),
          );
          read += current.length;
          piece = await nextPiece();
        }
        deflater.end();
      });
    } catch (error) {
      await out.close();
      await rm(tmp, { force: true }).catch(() => undefined);
      throw error;
    }
    await out.close();
    if (unreadable) {
      await rm(tmp, { force: true });
      return null;
    }
    const hash = hasher.digest('hex');
    if (await this.adopt(hash, tmp, written)) return { hash, written, size: read };
    return { hash, written: 0, size: read };
  }

  /**
   * Whether the blob `hash` is there; its time is refreshed then, so that a collection running right now
   * treats it as fresh.
   */
  private async refreshed(hash: string): Promise<boolean> {
    const now = new Date();
    try {
      await utimes(this.pathOf(hash), now, now);
    } catch {
      return false; // absent (or a collection removed it meanwhile)
    }
    this.known.add(hash);
    return true;
  }

  /** Makes `tmp`, once `pack` has written the blob's content to it, the blob `hash`; `tmp` goes on failure. */
  private async install(hash: string, tmp: string, pack: () => Promise<number>): Promise<number> {
    let written: number;
    try {
      written = await pack();
      await this.ensureDir(join(this.dir, hash.slice(0, 2)));
      await rename(tmp, this.pathOf(hash));
    } catch (error) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw error;
    }
    this.known.add(hash);
    return written;
  }

  /** Makes the packed temporary file `tmp` the blob `hash`; false (and `tmp` removed) when it is there already. */
  private async adopt(hash: string, tmp: string, written: number): Promise<boolean> {
    if (this.known.has(hash) || (await this.refreshed(hash))) {
      await rm(tmp, { force: true });
      return false;
    }
    await this.install(hash, tmp, () => Promise.resolve(written));
    return true;
  }

  private async write(hash: string, bytes: Uint8Array): Promise<number> {
    if (await this.refreshed(hash)) return 0;
    await this.ensureDir(this.tmpDir);
    const tmp = join(this.tmpDir, `${hash.slice(0, 16)}-${randomBytes(6).toString('hex')}`);
    return this.install(hash, tmp, () => writePacked(tmp, bytes));
  }

  private async ensureDir(dir: string): Promise<void> {
    if (this.made.has(dir)) return;
    await mkdir(dir, { recursive: true });
    this.made.add(dir);
  }

  /** The bytes of a blob, checked against its hash (read, inflated and hashed off the event loop). */
  async read(hash: string): Promise<Buffer> {
    let bytes: Buffer;
    try {
      bytes = await inflateBlob(await readFile(this.pathOf(hash)));
    } catch {
      throw new BlobDamagedError(hash);
    }
    if ((await hashContent(bytes)) !== hash) throw new BlobDamagedError(hash);
    return bytes;
  }

  async has(hash: string): Promise<boolean> {
    if (this.known.has(hash)) return true;
    try {
      await stat(this.pathOf(hash));
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Removes blobs not in `keep` whose file is older than `graceMs` (a blob written by a checkpoint
   * still being recorded is never removed). Returns the count and bytes freed.
   */
  async collect(
    keep: ReadonlySet<string>,
    graceMs: number,
    now = Date.now(),
  ): Promise<{ removed: number; freedBytes: number; keptBytes: number }> {
    let removed = 0;
    let freedBytes = 0;
    let keptBytes = 0;
    for (const prefix of await safeReaddir(this.dir)) {
      const sub = join(this.dir, prefix);
      for (const rest of await safeReaddir(sub)) {
        const hash = prefix + rest;
        const path = join(sub, rest);
        let size: number;
        let mtimeMs: number;
        try {
          const st = await stat(path);
          size = st.size;
          mtimeMs = st.mtimeMs;
        } catch {
          continue;
        }
        if (keep.has(hash) || now - mtimeMs < graceMs) {
          keptBytes += size;
          continue;
        }
        try {
          await unlink(path);
          this.known.delete(hash);
          removed += 1;
          freedBytes += size;
        } catch {
          keptBytes += size;
        }
      }
      await yieldToLoop();
    }
    // Temp files of writers that died.
    for (const name of await safeReaddir(this.tmpDir)) {
      const path = join(this.tmpDir, name);
      try {
        if (now - (await stat(path)).mtimeMs > graceMs) await rm(path, { recursive: true, force: true });
      } catch {
        /* gone already */
      }
    }
    return { removed, freedBytes, keptBytes };
  }

  /** Total compressed bytes on disk. */
  async sizeOnDisk(): Promise<number> {
    let total = 0;
    for (const prefix of await safeReaddir(this.dir)) {
      const sizes = await Promise.all(
        (await safeReaddir(join(this.dir, prefix))).map((rest) =>
          stat(join(this.dir, prefix, rest)).then(
            (st) => st.size,
            () => 0, // removed meanwhile
          ),
        ),
      );
      for (const size of sizes) total += size;
    }
    return total;
  }
}

async function safeReaddir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}
