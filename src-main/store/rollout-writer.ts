// Appends lines to one rollout file.
//
// Durability contract:
// - Each call to `append` hands its lines to the OS at once, in one `write` (whole lines only), so they
//   survive a crash or `kill -9` of this process; `sync()` fsyncs (turn end, close) so they also survive a
//   power loss.
// - A failed write (disk full, permissions) loses nothing: the unwritten lines stay queued in memory, in
//   order, and go out with the next append or sync; `onError` is told once per failure streak.
// - A torn line (a crash or failure in the middle of a write) is never continued: the next write starts
//   with a newline, so the fragment stays a lone corrupt line that readers skip.
// - The file is created at the first append (by `create`: the session_meta line, or a fork's copied lines),
//   so a thread that never records anything leaves no file. The thread's write lock is held from creation
//   (or from opening an existing file) until `close`.
import { closeSync, fstatSync, fsync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { RolloutWriteError } from './errors';
import type { ThreadLock } from './lock';

export interface RolloutWriterOptions {
  threadId: string;
  path: string;
  /**
   * Makes the file exist with its first lines (atomically: whole or not at all); null when the file
   * already exists (append to it). Called with the lock held, at the first append.
   */
  create: (() => void) | null;
  /** Takes the thread's write lock (called before the file is created or opened). */
  lock: () => ThreadLock;
  /** A write failed; the lines are kept and retried. */
  onError: (error: RolloutWriteError) => void;
  /** The file now exists (called once, after the prelude and the first lines were written). */
  onCreated?: () => void;
}

const NEWLINE = Buffer.from('\n');

export class RolloutWriter {
  private fd: number | null = null;
  private lock: ThreadLock | null = null;
  private pending: Buffer[] = [];
  private tornTail = false;
  private failing = false;
  private closed = false;
  private syncing: Promise<void> = Promise.resolve();
  private bytes = 0;
  private announceCreation = false;

  constructor(private readonly options: RolloutWriterOptions) {}

  get path(): string {
    return this.options.path;
  }

  /** Whether the file exists (it is created lazily). */
  get created(): boolean {
    return this.fd !== null;
  }

  /** Size of the file as written so far. */
  get size(): number {
    return this.bytes;
  }

  /** Lines not yet on disk because writes failed. */
  get pendingLines(): number {
    return this.pending.reduce((n, b) => n + countNewlines(b), 0);
  }

  /** Opens an existing file now (taking the lock); throws `ThreadLockedError` when someone else writes it. */
  openExisting(): void {
    if (this.fd !== null) return;
    this.lock ??= this.options.lock();
    try {
      const fd = openSync(this.options.path, 'a+');
      const size = fstatSync(fd).size;
      if (size > 0) {
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, size - 1);
        this.tornTail = last[0] !== 0x0a;
      }
      this.fd = fd;
      this.bytes = size;
    } catch (error) {
      this.lock.release();
      this.lock = null;
      throw error;
    }
  }

  /** Queues whole lines (JSON text without newline) and writes them out at once. */
  append(lines: readonly string[]): void {
    if (this.closed) throw new Error(`the rollout writer of thread ${this.options.threadId} is closed`);
    if (lines.length === 0) return;
    this.pending.push(Buffer.from(lines.join('\n') + '\n', 'utf8'));
    this.flush();
  }

  /** Creates the file now if it does not exist yet (forks are written at once). */
  create(): void {
    this.flush(true);
  }

  /** Writes what is queued, then fsyncs. Resolves even when the disk refuses (see `onError`). */
  sync(): Promise<void> {
    const run = this.syncing.then(async () => {
      this.flush();
      const fd = this.fd;
      if (fd === null || this.closed) return;
      await new Promise<void>((resolve) => {
        fsync(fd, (error) => {
          if (error) this.report(error);
          resolve();
        });
      });
    });
    this.syncing = run;
    return run;
  }

  /** Closes the file and releases the lock without writing anything more (for a writer never used). */
  abandon(): void {
    this.closed = true;
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.lock?.release();
    this.lock = null;
  }

  /** Flushes, fsyncs, closes the file and releases the lock. Lines the disk still refuses are reported lost. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.sync();
    this.closed = true;
    if (this.pending.length > 0) {
      this.report(new Error('the thread was closed before these lines could be written; they are lost'));
    }
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.lock?.release();
    this.lock = null;
  }

  /** Writes the queue; creates the file first when there is something to write (or `create` says so). */
  private flush(create = false): void {
    if (this.fd === null) {
      if (this.pending.length === 0 && !create) return;
      if (!this.openNew()) return;
    }
    const fd = this.fd;
    if (fd === null) return;
    if (this.pending.length === 0) {
      this.announce();
      return;
    }
    const parts = this.tornTail ? [NEWLINE, ...this.pending] : this.pending;
    const buf = parts.length === 1 && parts[0] ? parts[0] : Buffer.concat(parts);
    let off = 0;
    try {
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
      this.bytes += buf.length;
      this.pending = [];
      this.tornTail = false;
      this.failing = false;
      this.announce();
    } catch (error) {
      const whole = off === 0 ? 0 : buf.lastIndexOf(0x0a, off - 1) + 1;
      this.bytes += off;
      let rest = buf.subarray(whole);
      if (rest[0] === 0x0a) rest = rest.subarray(1);
      this.pending = rest.length > 0 ? [Buffer.from(rest)] : [];
      this.tornTail = off > whole || (this.tornTail && off === 0);
      this.report(error);
    }
  }

  /** Creates (or opens) the file; false (error reported, lines kept) when that fails. */
  private openNew(): boolean {
    try {
      const create = this.options.create;
      if (create === null) {
        this.openExisting();
        return true;
      }
      if (this.lock === null) this.lock = this.options.lock();
      mkdirSync(dirname(this.options.path), { recursive: true });
      create();
      this.fd = openSync(this.options.path, 'a');
      this.bytes = fstatSync(this.fd).size;
      this.announceCreation = true;
      return true;
    } catch (error) {
      this.report(error);
      return false;
    }
  }

  private announce(): void {
    if (!this.announceCreation) return;
    this.announceCreation = false;
    this.options.onCreated?.();
  }

  private report(error: unknown): void {
    if (this.failing && !this.closed) return;
    this.failing = true;
    this.options.onError(new RolloutWriteError(this.options.threadId, this.options.path, this.pendingLines, error));
  }
}

function countNewlines(buf: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(0x0a); i !== -1; i = buf.indexOf(0x0a, i + 1)) n++;
  return n;
}
