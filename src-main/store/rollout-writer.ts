// Appends lines to one rollout file.
//
// Durability contract:
// - Lines are written in batches, off the event loop: `append` queues them, and one asynchronous `write`
//   (libuv's thread pool) takes everything queued at the end of the event-loop turn in which they were
//   recorded; while a write is in flight, lines queue behind it and the next write takes them all. A line
//   may be given as a function that serializes it: those are serialized at the end of the turn too, about
//   8 ms of them per event-loop turn, so a batch of thousands of items never holds the loop. So a crash or
//   `kill -9` of this process loses at most the lines whose write had not finished: those recorded in the
//   last event-loop turns (milliseconds; longer only behind a batch of thousands). `written()` resolves
//   once everything appended before it is handed to the OS. `sync()` writes what is queued and fsyncs (turn end, rename, rollback, close),
//   so lines also survive a power loss from then on. `durable()` is `sync()` that throws when something is
//   still not on disk.
// - A failed write (disk full, permissions) loses nothing: the unwritten lines stay queued in memory, in
//   order, and are retried every `retryIntervalMs` (and with the next sync) until the disk takes
//   them; `onError` is told once per failure streak, `onRecovered` when the queue is written again.
// - Memory is bounded: past `maxPendingBytes` of refused lines, the queue moves to a rescue file outside
//   the thread's folder (`rescueDir`, mode 0600). At `close`, lines still refused go there too. Every such
//   move is reported with the rescue file's path.
// - A torn line (a crash or failure in the middle of a write) is never continued: the next write starts
//   with a newline, so the fragment stays a lone corrupt line that readers skip.
// - The file is created at the first write (by `create`: the session_meta line, or a fork's copied lines),
//   so a thread that never records anything leaves no file. The thread's write lock is held from creation
//   (or from opening an existing file) until `close`.
import {
  appendFileSync,
  chmodSync,
  closeSync,
  existsSync,
  fstatSync,
  fsync,
  mkdirSync,
  openSync,
  readSync,
  write,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { yieldToLoop } from '../util/slicer';
import { RolloutWriteError, type UnsavedLines } from './errors';
import type { ThreadLock } from './lock';

export interface RolloutWriterOptions {
  threadId: string;
  path: string;
  /**
   * Makes a file at `target` with the thread's first lines (atomically: whole or not at all); null when
   * the file already exists (append to it). Called with the lock held, at the first append, with the
   * rollout's path; or with the rescue file's, when lines are rescued before the rollout could be created.
   */
  create: ((target: string) => void) | null;
  /** Takes the thread's write lock (called before the file is created or opened). */
  lock: () => ThreadLock;
  /** A write failed (the lines are kept and retried), or refused lines were moved to a rescue file. */
  onError: (error: RolloutWriteError) => void;
  /** Every line refused since the last `onError` is now written. */
  onRecovered?: () => void;
  /** The file now exists (called once, after the prelude and the first lines were written). */
  onCreated?: () => void;
  /** How often refused lines are retried. Default 2 s: soon after space returns, cheap while it does not. */
  retryIntervalMs?: number;
  /** Refused bytes kept in memory before they move to a rescue file. Default 64 MiB. */
  maxPendingBytes?: number;
  /** Where rescue files go. Default the OS temp folder (usually another disk than WEFT_HOME, or tmpfs). */
  rescueDir?: string;
}

const DEFAULT_RETRY_MS = 2000;
const DEFAULT_MAX_PENDING_BYTES = 64 * 1024 * 1024;

const NEWLINE = Buffer.from('\n');

/**
 * How long lines given as functions are serialized in one event-loop turn before the loop gets a turn: by
 * all writers together. Eight threads whose turns ended at once each serialized their last lines (a
 * turn's diff, its outputs) for a slice of their own in the same turn, and a request waited 60–80 ms.
 */
const ENCODE_BUDGET_MS = 8;

/** Serializing time the writers spent in this event-loop turn (reset once the loop comes round). */
let encodedThisTurn = 0;
let encodeResetQueued = false;

function chargeEncoding(ms: number): void {
  encodedThisTurn += ms;
  if (encodeResetQueued) return;
  encodeResetQueued = true;
  setImmediate(() => {
    encodedThisTurn = 0;
    encodeResetQueued = false;
  });
}

/**
 * A line: its JSON text (no newline), or a function that makes it (called once, soon, in order): the text,
 * or the text in pieces (`jsonPieces`), between which the writer may give the event loop back.
 */
export type RolloutLine = string | (() => string | Iterator<string>);

export class RolloutWriter {
  private fd: number | null = null;
  private lock: ThreadLock | null = null;
  private pending: Buffer[] = [];
  /** Lines not serialized yet (they go to `pending` before anything queued after them). */
  private queued: RolloutLine[] = [];
  /** The first queued line, serialized in pieces so far (the rest come from `rest`). */
  private partial: { rest: Iterator<string>; done: Buffer[] } | null = null;
  private pendingBytes = 0;
  private tornTail = false;
  /** The error of the current failure streak (writes refused or the last fsync failed); null when healthy. */
  private failure: RolloutWriteError | null = null;
  private syncFailed = false;
  /** Lines moved to the rescue file since `durable()` last looked: the rollout misses them. */
  private rescuedSinceCheck = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private syncing: Promise<void> = Promise.resolve();
  private bytes = 0;
  private announceCreation = false;
  /** A batch is being written (the queue waits behind it). */
  private inFlight = false;
  /**
   * A write is scheduled: for the end of this event-loop turn, or (when this turn's serializing time is
   * spent) for a later turn. `unschedule` cancels it by forgetting the token.
   */
  private scheduled: object | null = null;
  /** Waiting for the queue to be written (or refused). */
  private drainWaiters: (() => void)[] = [];

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
    return this.pending.reduce((n, b) => n + countNewlines(b), this.queued.length);
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

  /** Why the thread is not fully on disk now (refused lines or a failed fsync), or null. */
  get unsaved(): RolloutWriteError | null {
    return this.failure;
  }

  /** Queues whole lines (JSON text without newline); they are written at the end of this event-loop turn. */
  append(lines: readonly RolloutLine[]): void {
    if (this.closed) throw new Error(`the rollout writer of thread ${this.options.threadId} is closed`);
    if (lines.length === 0) return;
    if (this.queued.length > 0 || lines.some((l) => typeof l !== 'string')) {
      for (const l of lines) this.queued.push(l);
      this.schedule();
      return;
    }
    const buf = Buffer.from(lines.join('\n') + '\n', 'utf8');
    this.pending.push(buf);
    this.pendingBytes += buf.length;
    if (
      this.failure !== null &&
      !this.inFlight &&
      this.pendingBytes > (this.options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES)
    )
      this.rescue();
    else this.schedule();
  }

  /** Resolves once everything appended so far was handed to the OS (or refused: see `unsaved`). */
  written(): Promise<void> {
    return new Promise((resolve) => {
      this.drainWaiters.push(resolve);
      this.flush();
      if (!this.inFlight) this.drained();
    });
  }

  /** Creates the file now if it does not exist yet (forks are written at once). */
  create(): void {
    this.flush(true);
  }

  /** Writes what is queued, then fsyncs. Resolves even when the disk refuses (see `onError`, `unsaved`). */
  sync(): Promise<void> {
    const run = this.syncing.then(async () => {
      await this.written();
      const fd = this.fd;
      if (fd === null || this.closed || this.pending.length > 0) return;
      await new Promise<void>((resolve) => {
        fsync(fd, (error) => {
          if (error) {
            this.syncFailed = true;
            this.report(error);
            this.scheduleRetry();
          } else if (this.syncFailed) {
            this.syncFailed = false;
            this.recovered();
          }
          resolve();
        });
      });
    });
    this.syncing = run;
    return run;
  }

  /** `sync()`, then throws the `RolloutWriteError` saying why when anything recorded is not on disk. */
  async durable(): Promise<void> {
    await this.sync();
    const rescued = this.rescuedSinceCheck;
    this.rescuedSinceCheck = 0;
    if (this.pending.length > 0 || this.syncFailed || rescued > 0) {
      const cause = this.failure?.cause ?? 'the disk refused the lines';
      throw new RolloutWriteError(this.options.threadId, this.options.path, this.pendingLines + rescued, cause);
    }
  }

  /** Closes the file and releases the lock without writing anything more (for a writer never used). */
  abandon(): void {
    this.closed = true;
    this.stopRetrying();
    this.unschedule();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.lock?.release();
    this.lock = null;
  }

  /** Flushes, fsyncs, closes the file and releases the lock. Lines the disk still refuses go to a rescue file. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.sync();
    this.closed = true;
    this.stopRetrying();
    this.unschedule();
    if (this.pending.length > 0 || this.queued.length > 0) this.rescue();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.lock?.release();
    this.lock = null;
  }

  /** Writes the queue at the end of this event-loop turn (one write for all that is recorded until then). */
  private schedule(): void {
    if (this.scheduled !== null || (this.inFlight && this.queued.length === 0) || this.closed) return;
    const token = {};
    this.scheduled = token;
    const run = (): void => {
      if (this.scheduled !== token) return;
      this.scheduled = null;
      this.flush();
    };
    // Lines left to serialize once the turn's time is spent wait their turn with the loop's other paced
    // work, one per turn (see yieldToLoop), rather than all in the next one.
    if (this.queued.length > 0 && encodedThisTurn >= ENCODE_BUDGET_MS) void yieldToLoop().then(run);
    else setImmediate(run);
  }

  private unschedule(): void {
    this.scheduled = null;
  }

  /**
   * Starts writing the queue (unless a write is in flight: it takes the queue when it ends); creates the
   * file first when there is something to write (or `create` says so).
   */
  private flush(create = false): void {
    this.unschedule();
    const left = ENCODE_BUDGET_MS - encodedThisTurn;
    // Plain lines (most writes) are already text: nothing to serialize, nothing to charge.
    if (left > 0 && this.queued.length > 0) {
      const started = performance.now();
      this.encode(left);
      chargeEncoding(performance.now() - started);
    }
    if (this.queued.length > 0) this.schedule();
    this.startWrite(create);
  }

  /** Starts writing `pending` unless a write is in flight (which then takes it when it ends). */
  private startWrite(create = false): void {
    if (this.inFlight) return;
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
    this.pending = [];
    this.pendingBytes = 0;
    this.inFlight = true;
    writeAll(fd, buf, (error, off) => {
      this.inFlight = false;
      this.bytes += off;
      if (error === null) {
        this.tornTail = false;
        this.announce();
        if (!this.syncFailed) this.recovered();
        if (this.pending.length > 0 && !this.closed) {
          this.startWrite();
          return;
        }
      } else {
        // Whole lines not written go back to the front of the queue; a torn fragment is never continued.
        const whole = off === 0 ? 0 : buf.lastIndexOf(0x0a, off - 1) + 1;
        let rest = buf.subarray(whole);
        if (rest[0] === 0x0a) rest = rest.subarray(1);
        if (rest.length > 0) {
          this.pending.unshift(Buffer.from(rest));
          this.pendingBytes += rest.length;
        }
        this.tornTail = off > whole || (this.tornTail && off === 0);
        this.report(error);
        this.scheduleRetry();
      }
      this.drained();
    });
  }

  /**
   * Serializes queued lines into `pending`, for about `budgetMs` (all of them when Infinity). A line made in
   * pieces may be left half made when the time is up (it goes on from there next time); only whole lines
   * reach `pending`.
   */
  private encode(budgetMs: number): void {
    if (this.queued.length === 0) return;
    const start = performance.now();
    const spent = (): boolean => performance.now() - start > budgetMs;
    const made: Buffer[] = [];
    let texts: string[] = [];
    const takeTexts = (): void => {
      if (texts.length > 0) made.push(Buffer.from(texts.join('\n') + '\n', 'utf8'));
      texts = [];
    };
    let i = 0;
    while (i < this.queued.length) {
      let partial = this.partial;
      if (partial === null) {
        const line = this.queued[i] ?? '';
        const text = typeof line === 'string' ? line : line();
        if (typeof text === 'string') {
          texts.push(text);
          i++;
          if ((i & 15) === 0 && spent()) break;
          continue;
        }
        partial = { rest: text, done: [] };
        this.partial = partial;
      }
      let whole = false;
      for (;;) {
        const piece = partial.rest.next();
        if (piece.done === true) {
          whole = true;
          break;
        }
        partial.done.push(Buffer.from(piece.value, 'utf8'));
        if (spent()) break;
      }
      if (!whole) break;
      takeTexts();
      made.push(...partial.done, NEWLINE);
      this.partial = null;
      i++;
      if (spent()) break;
    }
    takeTexts();
    this.queued = i === this.queued.length ? [] : this.queued.slice(i);
    if (made.length === 0) return;
    const buf = made.length === 1 && made[0] !== undefined ? made[0] : Buffer.concat(made);
    this.pending.push(buf);
    this.pendingBytes += buf.length;
  }

  /** The write in flight ended (or none could start): whoever waits for the queue hears now (once it is all serialized). */
  private drained(): void {
    if (this.inFlight || (this.queued.length > 0 && !this.closed)) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }

  /** Moves the queue to the thread's rescue file (appending, so earlier rescues stay in order). */
  private rescue(): void {
    this.encode(Infinity);
    const lines = this.pendingLines;
    if (lines === 0) return;
    const file = join(this.options.rescueDir ?? tmpdir(), `weft-unsaved-${this.options.threadId}.jsonl`);
    const cause = this.failure?.cause ?? 'the disk refused the lines';
    let fate: UnsavedLines;
    try {
      // A rollout never created: the rescue file starts as the whole thread would have (session_meta first).
      const whole = this.fd === null && this.options.create !== null;
      if (whole && !existsSync(file)) this.options.create?.(file);
      appendFileSync(file, Buffer.concat(this.pending), { mode: 0o600 });
      chmodSync(file, 0o600);
      fate = { type: 'rescued', file, whole };
    } catch {
      fate = { type: 'lost' };
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.rescuedSinceCheck += lines;
    this.options.onError(new RolloutWriteError(this.options.threadId, this.options.path, lines, cause, fate));
  }

  private scheduleRetry(): void {
    if (this.retryTimer !== null || this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.closed || this.failure === null) return;
      void this.sync().then(() => {
        if (this.failure !== null) this.scheduleRetry();
      });
    }, this.options.retryIntervalMs ?? DEFAULT_RETRY_MS);
    // Retrying never keeps a process alive that has nothing else to do.
    this.retryTimer.unref();
  }

  private stopRetrying(): void {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** Everything refused so far is on disk again. */
  private recovered(): void {
    if (this.failure === null) return;
    this.failure = null;
    this.stopRetrying();
    this.options.onRecovered?.();
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
      create(this.options.path);
      this.fd = openSync(this.options.path, 'a');
      this.bytes = fstatSync(this.fd).size;
      this.announceCreation = true;
      return true;
    } catch (error) {
      this.report(error);
      this.scheduleRetry();
      return false;
    }
  }

  private announce(): void {
    if (!this.announceCreation) return;
    this.announceCreation = false;
    this.options.onCreated?.();
  }

  /** Starts a failure streak (reported once); later failures of the same streak are not reported again. */
  private report(error: unknown): void {
    if (this.failure !== null) return;
    this.failure = new RolloutWriteError(this.options.threadId, this.options.path, this.pendingLines, error);
    this.options.onError(this.failure);
  }
}

/** Writes all of `buf` (appending), then calls back with the error, if any, and how many bytes were written. */
function writeAll(fd: number, buf: Buffer, done: (error: Error | null, written: number) => void): void {
  const step = (off: number): void => {
    write(fd, buf, off, buf.length - off, null, (error, n) => {
      if (error) done(error, off);
      else if (off + n < buf.length) step(off + n);
      else done(null, buf.length);
    });
  };
  step(0);
}

function countNewlines(buf: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(0x0a); i !== -1; i = buf.indexOf(0x0a, i + 1)) n++;
  return n;
}
