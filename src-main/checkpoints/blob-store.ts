/**
 * Content-addressed blobs: `blobs/<first two hex>/<rest of the sha256>`, deflate-compressed. A blob
 * is written once (temp file + rename) and shared by every checkpoint that holds the same bytes.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflateSync, inflate, inflateSync } from 'node:zlib';

const inflateAsync = promisify(inflate);

export class BlobDamagedError extends Error {
  constructor(readonly hash: string) {
    super(`checkpoint blob ${hash.slice(0, 12)} is missing or damaged`);
    this.name = 'BlobDamagedError';
  }
}

export function hashBytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export class BlobStore {
  readonly dir: string;
  private readonly tmpDir: string;
  /** Hashes known to be on disk (saves a stat per put). */
  private readonly known = new Set<string>();

  constructor(checkpointsDir: string) {
    this.dir = join(checkpointsDir, 'blobs');
    this.tmpDir = join(checkpointsDir, 'tmp');
  }

  pathOf(hash: string): string {
    return join(this.dir, hash.slice(0, 2), hash.slice(2));
  }

  /** Stores the bytes (if new) and returns their hash and how many compressed bytes were written (0 if deduplicated). */
  put(bytes: Uint8Array): { hash: string; written: number } {
    const hash = hashBytes(bytes);
    const path = this.pathOf(hash);
    if (this.known.has(hash)) return { hash, written: 0 };
    if (existsSync(path)) {
      // Refresh the time so a collection running right now treats it as fresh.
      const now = new Date();
      try {
        utimesSync(path, now, now);
      } catch {
        /* a collection removed it meanwhile: written again below */
      }
      if (existsSync(path)) {
        this.known.add(hash);
        return { hash, written: 0 };
      }
    }
    const packed = deflateSync(bytes, { level: 6 });
    mkdirSync(join(this.dir, hash.slice(0, 2)), { recursive: true });
    mkdirSync(this.tmpDir, { recursive: true });
    const tmp = join(this.tmpDir, `${hash.slice(0, 16)}-${randomBytes(6).toString('hex')}`);
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, packed);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    this.known.add(hash);
    return { hash, written: packed.length };
  }

  /** The bytes of a blob, checked against its hash. */
  get(hash: string): Buffer {
    let bytes: Buffer;
    try {
      bytes = inflateSync(readFileSync(this.pathOf(hash)));
    } catch {
      throw new BlobDamagedError(hash);
    }
    if (hashBytes(bytes) !== hash) throw new BlobDamagedError(hash);
    return bytes;
  }

  /** `get` without blocking: the file is read and inflated off the event loop's critical path. */
  async read(hash: string): Promise<Buffer> {
    let bytes: Buffer;
    try {
      bytes = await inflateAsync(await readFile(this.pathOf(hash)));
    } catch {
      throw new BlobDamagedError(hash);
    }
    if (hashBytes(bytes) !== hash) throw new BlobDamagedError(hash);
    return bytes;
  }

  has(hash: string): boolean {
    return this.known.has(hash) || existsSync(this.pathOf(hash));
  }

  /**
   * Removes blobs not in `keep` whose file is older than `graceMs` (a blob written by a checkpoint
   * still being recorded is never removed). Returns the count and bytes freed.
   */
  collect(
    keep: ReadonlySet<string>,
    graceMs: number,
    now = Date.now(),
  ): { removed: number; freedBytes: number; keptBytes: number } {
    let removed = 0;
    let freedBytes = 0;
    let keptBytes = 0;
    for (const prefix of safeReaddir(this.dir)) {
      const sub = join(this.dir, prefix);
      for (const rest of safeReaddir(sub)) {
        const hash = prefix + rest;
        const path = join(sub, rest);
        let size: number;
        let mtimeMs: number;
        try {
          const st = statSync(path);
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
          unlinkSync(path);
          this.known.delete(hash);
          removed += 1;
          freedBytes += size;
        } catch {
          keptBytes += size;
        }
      }
    }
    // Temp files of writers that died.
    for (const name of safeReaddir(this.tmpDir)) {
      const path = join(this.tmpDir, name);
      try {
        if (now - statSync(path).mtimeMs > graceMs) rmSync(path, { recursive: true, force: true });
      } catch {
        /* gone already */
      }
    }
    return { removed, freedBytes, keptBytes };
  }

  /** Total compressed bytes on disk. */
  sizeOnDisk(): number {
    let total = 0;
    for (const prefix of safeReaddir(this.dir)) {
      for (const rest of safeReaddir(join(this.dir, prefix))) {
        try {
          total += statSync(join(this.dir, prefix, rest)).size;
        } catch {
          /* removed meanwhile */
        }
      }
    }
    return total;
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
