// The thread store: rollouts under WEFT_HOME (the source of truth) and the index that makes them quick to
// list and search. One store per process; it keeps the index rows of the threads it records up to date.
import { existsSync, mkdirSync, renameSync, statSync, utimesSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { RolloutWeftWorktree, Thread } from '../../src-preload/protocol';
import { uuidv7 } from '../util/ids';
import { VERSION } from '../version';
import { Catalog, type Located } from './catalog';
import { codexSources, rememberCodexHome } from './codex-homes';
import { StoreError, StoreInputError, ThreadLockedError, ThreadNotFoundError, type RolloutWriteError } from './errors';
import { indexAndLoadFork, writeForkOfAsync } from './fork-async';
import { newSessionMeta, planCopy, writeForkOf, writeNewRollout, type CopyTarget } from './fork-file';
import { openIndex } from './index-db';
import { listThreads, type ListParamsInput } from './list-query';
import { loadFile, loadFileAsync, type LoadedThread, type LoadOptions } from './loader';
import { acquireThreadLock, type ThreadLock } from './lock';
import { outlineFileAsync } from './outline';
import { archivedDir, indexFile, rolloutPath, sessionsDir, unarchivedPath } from './paths';
import { RolloutRecorder, type IndexDelta, type RecorderSink } from './recorder';
import type { RepairReport } from './repair';
import { nextOrdinalOf, nextOrdinalOfAsync } from './rollout-source';
import { RolloutWriter } from './rollout-writer';
import { SESSION_INDEX_FILE } from './session-index';
import { DEFAULT_ATTRIBUTES, movedCwd, type AttributeEventInput, type ThreadAttributes } from './thread-events';
import { linkThreadFiles, moveThreadFiles, threadFilesDir } from './thread-files';
import { ThreadIndex, rowWorktree, threadFromRow } from './thread-index';
import { readFromIndex, readLoadOptions, readResult, type ReadOptions } from './thread-read';
import type {
  ForkEntry,
  ForkedThread,
  NewThreadMeta,
  OpenedThread,
  ReadThreadResult,
  RecordingOptions,
  ThreadRecorder,
  ThreadStoreOptions,
  WorktreeThread,
} from './store-types';
import type { Disposable } from '../util/disposable';

export type {
  ForkEntry,
  ForkedThread,
  NewThreadMeta,
  OpenedThread,
  ReadThreadResult,
  RecordingOptions,
  ThreadRecorder,
  ThreadStoreOptions,
  WorktreeThread,
};

/** How a fork is made: after which turn (default all), its first page of turns, its own cwd. */
type ForkOptions = RecordingOptions & {
  afterTurnId?: string | null;
  turnsLimit?: number | null;
  cwd?: string | null;
  /** With `cwd`: the git worktree that folder is (null or absent: none). */
  weftWorktree?: RolloutWeftWorktree | null;
};

/** How long a list waits for a new index's first build before answering with what it holds (see `listComplete`). */
const LIST_WAITS_FOR_BUILD_MS = 100;

export class ThreadStore implements Disposable {
  private readonly catalog: Catalog;
  private readonly recorders = new Map<string, RolloutRecorder>();
  /** A list was answered while a new index was first built (it held only part of the threads). */
  private listedPartial = false;
  /** Threads whose rollout is being read to continue them (`openForAppendAsync`). */
  private readonly opening = new Set<string>();
  /** The model of threads whose file is not created yet (for their first index row). */
  private readonly pendingModel = new Map<string, string | null>();
  private readonly now: () => Date;
  private readonly warn: (message: string) => void;
  private readonly threadWarning: (threadId: string, message: string) => void;
  private readonly writerTuning: NonNullable<ThreadStoreOptions['writer']>;
  private closed = false;
  /** Renames go here too, where Codex looks for names. */
  private readonly sessionIndex: string;

  private constructor(
    readonly home: string,
    index: ThreadIndex,
    options: ThreadStoreOptions,
  ) {
    this.catalog = new Catalog(home, index, (m) => this.warn(m), options.repairSliceMs);
    this.sessionIndex = join(home, SESSION_INDEX_FILE);
    this.now = options.now ?? (() => new Date());
    this.warn = options.onWarning ?? ((m) => process.stderr.write(`weft: warning: ${m}\n`));
    this.threadWarning = options.onThreadWarning ?? ((_, m) => this.warn(m));
    this.writerTuning = options.writer ?? {};
  }

  /** Opens (or creates) the store at `weftHome`; the index is repaired in the background (`whenIndexed`). */
  static open(weftHome: string, options: ThreadStoreOptions = {}): ThreadStore {
    const home = resolve(weftHome);
    mkdirSync(sessionsDir(home), { recursive: true });
    const opened = openIndex(indexFile(home));
    const store = new ThreadStore(home, new ThreadIndex(opened.db), options);
    for (const w of opened.warnings) store.warn(w);
    if (opened.setAside !== null) {
      // A damaged index was replaced by an empty one: rebuild it whatever `repair` says.
      store.catalog.recoveries++;
      store.catalog.rebuild();
    } else {
      // A new index (deleted, or never made) fills up as its first repair goes: lists say so meanwhile.
      store.catalog.building = opened.fresh;
      if (options.repair !== false) void store.catalog.queueRepair(false, null, false, true);
    }
    return store;
  }

  /**
   * Starts bringing the index up to date in the background, for a store opened with `repair: false` by a
   * host that has start-up work of its own first (its writes would otherwise sit between the steps of that
   * work). The check reads in a worker thread (started here unless `startIndexCheck` started it), so the
   * host's requests never wait for it; a store opened with `repair` (a command that waits for the index
   * anyway) checks on its own thread, without a worker's start-up.
   */
  repairInBackground(): void {
    this.catalog.startCheck();
    void this.catalog.queueRepair(false, null, false, true);
  }

  /**
   * Starts the reading of the start-up check (in a worker thread) now, for a host that calls
   * `repairInBackground` once it is assembled: the worker's own start-up overlaps the host's, and nothing
   * is written to the index before `repairInBackground`.
   */
  startIndexCheck(): void {
    this.catalog.startCheck();
  }

  /** Runs `work` (a client's request) ahead of the background repairs, which pause until it is done. */
  inForeground<T>(work: () => Promise<T>): Promise<T> {
    return this.catalog.inForeground(work);
  }

  /** Whether the index is being built from nothing (a new file) and does not list every thread yet. */
  get indexing(): boolean {
    return this.catalog.building;
  }

  /** Calls `listener` once a new index lists every thread, when a list said it did not (returns the unsubscribe). */
  onIndexed(listener: () => void): () => void {
    return this.catalog.whenBuilt(() => {
      if (this.listedPartial) listener();
    });
  }

  /** Resolves when the background repair (or the latest reindex / import) has finished. */
  whenIndexed(): Promise<void> {
    return this.catalog.whenIndexed();
  }

  // ---- recording -------------------------------------------------------------------------------------

  /** A new thread. Its file is created (and its lock taken) at the first recorded line. */
  createThread(meta: NewThreadMeta, options: RecordingOptions = {}): { path: string; recorder: ThreadRecorder } {
    if (!/^[0-9A-Za-z][0-9A-Za-z-]*$/.test(meta.id))
      throw new StoreInputError(`"${meta.id}" is not a thread id (expected a uuid)`);
    if (this.recorders.has(meta.id)) throw new ThreadLockedError(meta.id);
    const created = this.now();
    const path = rolloutPath(this.home, created, meta.id);
    const payload = newSessionMeta(meta, created, VERSION);
    const recorder = this.recorder(meta.id, path, {
      create: (target) => writeNewRollout(target, payload, created),
      hasPreview: false,
      attributes: DEFAULT_ATTRIBUTES,
      model: meta.model,
      nextOrdinal: 1,
      onError: options.onError,
    });
    return { path, recorder };
  }

  /**
   * Opens a saved thread to continue it: its state (history, turns — `turnsLimit` newest, when given) and a
   * recorder appending to the same file. Throws ThreadLockedError when another window writes it. A Codex
   * thread is continued in a new Weft thread forked from it (`state.thread` is that thread, created at the
   * first recorded line); the Codex file is never written.
   */
  openForAppend(threadId: string, options: RecordingOptions & { turnsLimit?: number | null } = {}): OpenedThread {
    const loc = this.catalog.locate(threadId);
    if (loc.origin === 'codex') return this.continueCodex(loc, options);
    const writer = this.appendWriter(threadId, loc.path, options);
    let state: LoadedThread;
    try {
      state = loadFile(loc.path, { turnsLimit: options.turnsLimit });
    } catch (error) {
      writer.abandon();
      throw error;
    }
    return this.appending(threadId, loc.path, writer, state);
  }

  /** `openForAppend` that gives the event loop back while it reads the rollout (the desktop app's resume). */
  async openForAppendAsync(
    threadId: string,
    options: RecordingOptions & { turnsLimit?: number | null } = {},
  ): Promise<OpenedThread> {
    const loc = this.catalog.locate(threadId);
    if (loc.origin === 'codex') return this.continueCodex(loc, options);
    const writer = this.appendWriter(threadId, loc.path, options);
    let state: LoadedThread;
    let nextOrdinal: number;
    this.opening.add(threadId);
    try {
      state = await loadFileAsync(loc.path, {
        turnsLimit: options.turnsLimit,
        history: 'later',
        savedOutline: () => this.catalog.savedOutline(threadId),
      });
      this.catalog.saveOutlineLater(threadId, state);
      nextOrdinal = await nextOrdinalOfAsync(loc.path, state.lineCount ?? undefined);
    } catch (error) {
      writer.abandon();
      throw error;
    } finally {
      this.opening.delete(threadId);
    }
    if (this.closed) {
      writer.abandon();
      throw new StoreError('the thread store closed while the thread was being opened');
    }
    return this.appending(threadId, loc.path, writer, state, nextOrdinal);
  }

  /** The writer of a saved thread's file, opened (its lock taken) before the file is read. */
  private appendWriter(threadId: string, path: string, options: RecordingOptions): RolloutWriter {
    if (this.recorders.has(threadId) || this.opening.has(threadId)) throw new ThreadLockedError(threadId);
    const writer = this.writer(threadId, path, null, options.onError);
    writer.openExisting();
    return writer;
  }

  private appending(
    threadId: string,
    path: string,
    writer: RolloutWriter,
    state: LoadedThread,
    nextOrdinal = nextOrdinalOf(path),
  ): OpenedThread {
    const recorder = new RolloutRecorder(writer, {
      threadId,
      now: this.now,
      sink: this.sink(threadId, path, null),
      hasPreview: state.thread.preview !== '',
      attributes: state.attributes,
      nextOrdinal,
      sessionIndex: this.sessionIndex,
    });
    this.recorders.set(threadId, recorder);
    return { state, recorder };
  }

  /**
   * A Codex thread continued in Weft keeps its id: its first recorded line copies it (whole, in the
   * paginated form) into WEFT_HOME under the same id and file name, and that copy is the thread from then
   * on. The Codex file is never written.
   */
  private continueCodex(loc: Located, options: RecordingOptions & { turnsLimit?: number | null }): OpenedThread {
    if (this.recorders.has(loc.id)) throw new ThreadLockedError(loc.id);
    const path = this.copyPath(loc);
    const source = loadFile(loc.path, { turnsLimit: options.turnsLimit });
    const copy = planCopy(loc, null, { id: loc.id, path, created: this.now(), cliVersion: VERSION });
    const recorder = this.recorder(loc.id, path, {
      create: (target) => copy.write(target),
      hasPreview: source.thread.preview !== '',
      attributes: loc.attributes,
      model: source.lastTurnContext?.model ?? null,
      nextOrdinal: copy.lines,
      onError: options.onError,
    });
    const thread: Thread = {
      ...source.thread,
      path,
      name: loc.attributes.name ?? source.thread.name,
      status: { type: 'notLoaded' },
    };
    return { state: { ...source, thread }, recorder };
  }

  /** Where the Weft copy of a Codex thread goes: its file name, in WEFT_HOME's dated folders. */
  private copyPath(loc: Located): string {
    const name = basename(loc.path);
    return unarchivedPath(this.home, name) ?? rolloutPath(this.home, this.now(), loc.id);
  }

  /** Copies a Codex thread into WEFT_HOME now (to change it there) and returns where the copy is. */
  private adopt(loc: Located): Located {
    const path = this.copyPath(loc);
    const lock = acquireThreadLock(this.home, loc.id);
    try {
      planCopy(loc, null, { id: loc.id, path, created: this.now(), cliVersion: VERSION }).write();
    } finally {
      lock.release();
    }
    this.catalog.indexFile(loc.id, path, null);
    return { id: loc.id, path, origin: 'weft', archived: false, attributes: loc.attributes };
  }

  // ---- reading ---------------------------------------------------------------------------------------

  /** Loads a thread by id or rollout path (any rollout, Codex's too). Content problems become warnings. */
  load(target: string | { path: string }, options: LoadOptions = {}): LoadedThread {
    if (typeof target !== 'string') return loadFile(target.path, options);
    const loc = this.catalog.locate(target);
    const state = this.loadKept(loc, options);
    if (loc.origin === 'codex' && loc.attributes.name !== null) state.thread.name = loc.attributes.name;
    return state;
  }

  /** Loads a located thread from its saved outline when it has one, and keeps the outline when worth it. */
  private loadKept(loc: Located, options: LoadOptions): LoadedThread {
    const state = loadFile(loc.path, { ...options, savedOutline: () => this.catalog.savedOutline(loc.id) });
    this.catalog.saveOutlineLater(loc.id, state);
    return state;
  }

  /** A page of threads from the index (never reads rollouts). */
  list(params: ListParamsInput = {}): { data: readonly Thread[]; nextCursor: string | null } {
    return this.catalog.guard(() => listThreads(this.catalog.index, params));
  }

  /**
   * `list`, complete even when the index was just found damaged: then the page is taken again once the
   * rebuild from the rollouts has finished. While a new index is first built (`indexing`), a list waits
   * for it to be built when the home is small (Catalog.builtWithin), else LIST_WAITS_FOR_BUILD_MS at
   * most, then holds what is indexed so far and says so: with thousands of threads the build takes
   * seconds, which no list should wait for.
   */
  async listComplete(
    params: ListParamsInput = {},
  ): Promise<{ data: readonly Thread[]; nextCursor: string | null; indexing: boolean }> {
    if (this.catalog.rebuilding !== null) await this.whenIndexed();
    else await this.catalog.builtWithin(LIST_WAITS_FOR_BUILD_MS);
    const recoveries = this.catalog.recoveries;
    const page = this.list(params);
    if (this.catalog.recoveries !== recoveries) {
      await this.whenIndexed();
      return { ...this.list(params), indexing: false };
    }
    this.listedPartial ||= this.catalog.building;
    return { ...page, indexing: this.catalog.building };
  }

  /** A thread, with its turns when asked: all of them, or `turnsLimit` at a time from the newest. */
  read(threadId: string, options: ReadOptions = {}): ReadThreadResult {
    const loc = this.catalog.locate(threadId);
    return (
      readFromIndex(this.catalog, threadId, options) ??
      readResult(loc, options, this.loadKept(loc, readLoadOptions(options)))
    );
  }

  /** `read` that gives the event loop back while it reads the rollout and its turns (the app host's `thread/read`). */
  async readAsync(threadId: string, options: ReadOptions = {}): Promise<ReadThreadResult> {
    const loc = this.catalog.locate(threadId);
    const indexed = readFromIndex(this.catalog, threadId, options);
    if (indexed !== null) return indexed;
    const state = await loadFileAsync(loc.path, {
      ...readLoadOptions(options),
      savedOutline: () => this.catalog.savedOutline(loc.id),
    });
    this.catalog.saveOutlineLater(loc.id, state);
    return readResult(loc, options, state);
  }

  /** Every thread that works in a git worktree of its own, with whether it is archived, oldest first. */
  worktreeThreads(): WorktreeThread[] {
    return this.catalog
      .guard(() => this.catalog.index.worktreeRows())
      .flatMap((row) => {
        const worktree = rowWorktree(row);
        return worktree === null ? [] : [{ thread: threadFromRow(row), archived: row.archived === 1, worktree }];
      });
  }

  /** The rollouts of Weft's threads that used tokens since `ms` (unix ms), for the per-day totals. */
  rolloutsUsedSince(ms: number): string[] {
    return this.catalog.guard(() => this.catalog.index.pathsUsedSince(ms));
  }

  /** The worktree a saved thread works in, as its session_meta recorded it (null: none, or not indexed yet). */
  worktreeOf(threadId: string): RolloutWeftWorktree | null {
    const row = this.catalog.guard(() => this.catalog.index.get(threadId));
    return row === null ? null : rowWorktree(row);
  }

  /** Threads forked from `threadId` (for the thread tree), oldest first. */
  forksOf(threadId: string): ForkEntry[] {
    return this.catalog
      .guard(() => this.catalog.index.forksOf(threadId))
      .map((row) => ({ thread: threadFromRow(row), forkedAtTurnId: row.forked_at_turn_id }));
  }

  // ---- changing --------------------------------------------------------------------------------------

  /** Renames a thread (null or "" clears the name). */
  async setName(threadId: string, name: string | null): Promise<void> {
    const value = name === null || name.trim() === '' ? null : name;
    await this.recordAttribute(threadId, { type: 'thread_name_updated', thread_id: threadId, thread_name: value });
  }

  /**
   * Records an attribute event of a thread (its name, …: see thread-events.ts) in its rollout, unless it
   * changes nothing, and tells the index; returns the thread's attributes as they are now.
   */
  async recordAttribute(threadId: string, event: AttributeEventInput): Promise<ThreadAttributes> {
    // A thread open here is written through its recorder, saved or not yet (a new thread's file is made
    // at its first line: this one, for a thread started with an attribute).
    const open = this.recorders.get(threadId);
    if (open) {
      open.recordAttribute(event);
      await open.sync();
      return open.attributes;
    }
    const loc = this.writable(threadId, 'change');
    let attributes = loc.attributes;
    await this.withRecorder(loc, (r) => {
      r.recordAttribute(event);
      attributes = r.attributes;
    });
    return attributes;
  }

  /** Drops the last `numTurns` turns (a marker line; nothing is deleted) and returns the thread as it is now. */
  async rollback(
    threadId: string,
    numTurns: number,
    options: { turnsLimit?: number | null; restoreRecord?: string | null } = {},
  ): Promise<LoadedThread> {
    if (!Number.isInteger(numTurns) || numTurns < 1)
      throw new StoreInputError(`numTurns must be a whole number of at least 1, got ${numTurns}`);
    const loc = this.writable(threadId, 'roll back');
    const total = (await outlineFileAsync(loc.path)).turns.length;
    if (numTurns > total)
      throw new StoreInputError(`thread ${threadId} has ${total} turn(s); it cannot roll back ${numTurns}`);
    const record = options.restoreRecord ?? null;
    const open = this.recorders.get(threadId);
    if (open) await open.recordRollback(numTurns, record);
    else await this.withRecorder(loc, (r) => r.recordRollback(numTurns, record));
    await this.catalog.reindexFile(loc);
    return loadFileAsync(loc.path, { turnsLimit: options.turnsLimit });
  }

  /** Throws ThreadLockedError when another window or process writes the thread now (nothing is held after). */
  checkWritable(threadId: string): void {
    if (this.recorders.has(threadId)) return;
    acquireThreadLock(this.home, this.catalog.locate(threadId).id).release();
  }

  /**
   * Where the thread works now as its rollout tells (where a Handoff moved it, else its last turn's cwd, else
   * its first), and the turn of its last turn context (a move records it: a later turn's cwd wins over it).
   */
  async workingFolder(threadId: string): Promise<{ cwd: string; lastContextTurnId: string | null }> {
    const outline = await outlineFileAsync(this.catalog.locate(threadId).path);
    const last = outline.lastTurnContext;
    return {
      cwd: movedCwd(outline.attributes, last) ?? last?.cwd ?? outline.meta?.cwd ?? '',
      lastContextTurnId: last?.turnId ?? null,
    };
  }

  /**
   * The thread's last rollback: the checkpoint record of the files restored with it, and the ids of the
   * turns it dropped while they can come back (no turn began since); null when it never rolled back.
   */
  async lastRollback(threadId: string): Promise<{ restoreRecord: string | null; turnIds: string[] | null } | null> {
    const last = (await outlineFileAsync(this.catalog.locate(threadId).path)).lastRollback;
    if (last === null) return null;
    return { restoreRecord: last.restoreRecord, turnIds: last.dropped?.turns.map((turn) => turn.id) ?? null };
  }

  /**
   * Brings back the turns the last rollback dropped (Redo of an undo), refused once a turn began after
   * it; returns the thread as it is now.
   */
  async undoRollback(threadId: string, options: { turnsLimit?: number | null } = {}): Promise<LoadedThread> {
    const loc = this.writable(threadId, 'bring back turns of');
    const dropped = (await outlineFileAsync(loc.path)).lastRollback?.dropped;
    if (!dropped)
      throw new StoreInputError(`thread ${threadId} has no dropped turns to bring back (a turn began after the undo)`);
    const count = dropped.turns.length;
    const open = this.recorders.get(threadId);
    if (open) await open.recordRollbackUndone(count);
    else await this.withRecorder(loc, (r) => r.recordRollbackUndone(count));
    await this.catalog.reindexFile(loc);
    return loadFileAsync(loc.path, { turnsLimit: options.turnsLimit });
  }

  /** Moves the rollout to `archived_sessions/` (kept, never deleted). */
  archive(threadId: string): void {
    const loc = this.writable(threadId, 'archive');
    if (loc.archived) return;
    this.moveRollout(loc, join(archivedDir(this.home), basename(loc.path)), true);
  }

  /** Moves an archived rollout back into its dated sessions folder. */
  unarchive(threadId: string): Thread {
    const loc = this.writable(threadId, 'unarchive');
    if (loc.archived) {
      const name = basename(loc.path);
      this.moveRollout(loc, unarchivedPath(this.home, name) ?? join(sessionsDir(this.home), name), false);
    }
    const row = this.catalog.guard(() => this.catalog.index.get(threadId));
    if (!row) throw new ThreadNotFoundError(threadId, this.home);
    return threadFromRow(row);
  }

  /**
   * A new thread holding a copy of `threadId` up to the end of turn `afterTurnId` (or all of it), with
   * `forked_from_id`; its file is written at once and its recorder is ready to continue it. `cwd`: the
   * fork's working directory when it differs from the source's (a fork with its own files).
   */
  fork(threadId: string, options: ForkOptions = {}): ForkedThread {
    const loc = this.catalog.locate(threadId);
    const { target, lock } = this.forkTarget(options);
    const { id, path } = target;
    let writer: RolloutWriter;
    try {
      writeForkOf(loc, options.afterTurnId ?? null, target);
      writer = this.writer(id, path, null, options.onError, () => lock);
      writer.openExisting();
    } catch (error) {
      lock.release();
      throw error;
    }
    this.catalog.indexFile(id, path, null);
    const state = loadFile(path, { turnsLimit: options.turnsLimit });
    return { threadId: id, path, ...this.appending(id, path, writer, state) };
  }

  /**
   * `fork` that gives the event loop back while it copies, indexes and reads the fork (the app host's
   * `thread/fork`, see fork-async.ts). The fork's model history is only located: its first turn reads it.
   */
  async forkAsync(threadId: string, options: ForkOptions = {}): Promise<ForkedThread> {
    const loc = this.catalog.locate(threadId);
    const { target, lock } = this.forkTarget(options);
    const { id, path } = target;
    let writer: RolloutWriter | null = null;
    try {
      await writeForkOfAsync(loc, options.afterTurnId ?? null, target, () => this.catalog.savedOutline(loc.id));
      await linkThreadFiles(loc.path, path);
      writer = this.writer(id, path, null, options.onError, () => lock);
      writer.openExisting();
      const state = await indexAndLoadFork(this.catalog, id, path, options.turnsLimit);
      const nextOrdinal = await nextOrdinalOfAsync(path, state.lineCount ?? undefined);
      if (this.closed) throw new StoreError('the thread store closed while the thread was being forked');
      return { threadId: id, path, ...this.appending(id, path, writer, state, nextOrdinal) };
    } catch (error) {
      if (writer === null) lock.release();
      else writer.abandon();
      throw error;
    }
  }

  /** The id, file and lock of a new fork. */
  /** A new fork's id, file and session_meta fields, with the lock on it held. */
  private forkTarget(options: ForkOptions): { target: CopyTarget; lock: ThreadLock } {
    const created = this.now();
    const id = uuidv7(created.getTime());
    const path = rolloutPath(this.home, created, id);
    const target: CopyTarget = {
      id,
      path,
      created,
      cliVersion: VERSION,
      cwd: options.cwd ?? null,
      weftWorktree: options.weftWorktree ?? null,
    };
    return { target, lock: acquireThreadLock(this.home, id) };
  }

  // ---- the index -------------------------------------------------------------------------------------

  /** Indexes the threads of a Codex home (default `~/.codex`) and keeps listing them from now on. */
  async importCodex(codexHome?: string): Promise<{ imported: number; warnings: string[] }> {
    const abs = resolve(codexHome ?? join(homedir(), '.codex'));
    if (!existsSync(join(abs, 'sessions')) && !existsSync(join(abs, 'archived_sessions'))) {
      return {
        imported: 0,
        warnings: [`no Codex threads in ${abs} (it has no sessions/ folder); pass the folder that holds them`],
      };
    }
    rememberCodexHome(this.home, abs);
    const report = await this.catalog.queueRepair(true, codexSources(abs));
    return { imported: report?.indexed ?? 0, warnings: report?.warnings ?? [] };
  }

  /**
   * Rescans every rollout into the index (the index is derived; nothing is lost). The index is checked
   * first (SQLite quick_check): a damaged one is set aside and built anew. Throws unless the result is
   * a sound index holding every readable rollout.
   */
  async reindex(): Promise<RepairReport & { setAside: string | null }> {
    await this.whenIndexed();
    const problems = this.catalog.check();
    const setAside = problems.length > 0 ? this.catalog.setAside(problems.slice(0, 3).join('; ')) : null;
    const report = await this.catalog.queueRepair(true, this.catalog.sources(), true);
    if (report === null || report.cancelled)
      throw new StoreError(
        'the thread index was not rebuilt: the store closed while rebuilding it; run `weft threads reindex` again',
      );
    const after = this.catalog.check();
    if (after.length > 0) {
      throw new StoreError(
        `the thread index ${indexFile(this.home)} is still damaged after rebuilding it (${after[0] ?? ''}); the disk may be failing`,
      );
    }
    return { ...report, setAside };
  }

  /** `close`. */
  dispose(): Promise<void> {
    return this.close();
  }

  /** Closes the recorders still open (flushing them), then the index. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.recorders.values()].map((r) => r.close()));
    await this.catalog.close();
  }

  // ---- internals -------------------------------------------------------------------------------------

  /** Locates a thread to change; a Codex thread is first copied into WEFT_HOME (Codex's files are never changed). */
  private writable(threadId: string, what: string): Located {
    const loc = this.catalog.locate(threadId);
    if (loc.origin !== 'codex') return loc;
    if (this.recorders.has(threadId))
      throw new StoreError(`thread ${threadId} is open in this window; ${what} it there`);
    return this.adopt(loc);
  }

  private moveRollout(loc: Located, target: string, archived: boolean): void {
    if (this.recorders.has(loc.id)) throw new StoreError(`thread ${loc.id} is open in this window; close it first`);
    const lock = acquireThreadLock(this.home, loc.id);
    try {
      for (const taken of [target, threadFilesDir(target)])
        if (existsSync(taken))
          throw new StoreError(`cannot move thread ${loc.id}: ${taken} already exists; move it away first`);
      mkdirSync(resolve(target, '..'), { recursive: true });
      renameSync(loc.path, target);
      moveThreadFiles(loc.path, target);
      if (!archived) {
        const now = this.now();
        utimesSync(target, now, now);
      }
      const mtime = Math.floor(statSync(target).mtimeMs);
      this.catalog.guard(() =>
        this.catalog.index.transaction(() => this.catalog.index.moved(loc.id, target, archived, mtime)),
      );
    } finally {
      lock.release();
    }
  }

  private writer(
    threadId: string,
    path: string,
    create: ((target: string) => void) | null,
    onError: ((e: RolloutWriteError) => void) | undefined,
    lock = () => acquireThreadLock(this.home, threadId),
  ): RolloutWriter {
    return new RolloutWriter({
      ...this.writerTuning,
      threadId,
      path,
      create,
      lock,
      onError: onError ?? ((e) => this.threadWarning(threadId, e.message)),
      onRecovered: () =>
        this.threadWarning(
          threadId,
          `thread ${threadId} is being saved again: every line it recorded is now in ${path}`,
        ),
      onCreated: () => {
        this.catalog.indexFile(threadId, path, this.pendingModel.get(threadId) ?? null);
        this.pendingModel.delete(threadId);
      },
    });
  }

  private recorder(
    threadId: string,
    path: string,
    o: {
      create: (target: string) => void;
      hasPreview: boolean;
      attributes: ThreadAttributes;
      model: string | null;
      nextOrdinal: number;
      onError?: (e: RolloutWriteError) => void;
    },
  ): RolloutRecorder {
    this.pendingModel.set(threadId, o.model);
    const writer = this.writer(threadId, path, o.create, o.onError);
    const recorder = new RolloutRecorder(writer, {
      threadId,
      now: this.now,
      sink: this.sink(threadId, path, o.model),
      hasPreview: o.hasPreview,
      attributes: o.attributes,
      nextOrdinal: o.nextOrdinal,
      sessionIndex: this.sessionIndex,
    });
    this.recorders.set(threadId, recorder);
    return recorder;
  }

  private sink(threadId: string, path: string, model: string | null): RecorderSink {
    return {
      update: (delta: IndexDelta) => this.catalog.applyDelta(threadId, path, delta, model),
      closed: () => {
        this.recorders.delete(threadId);
        this.pendingModel.delete(threadId);
      },
    };
  }

  /** Appends through a short-lived recorder (taking and releasing the thread's lock). */
  private async withRecorder(loc: Located, fn: (r: RolloutRecorder) => void | Promise<void>): Promise<void> {
    const writer = this.writer(loc.id, loc.path, null, undefined);
    writer.openExisting();
    const recorder = new RolloutRecorder(writer, {
      threadId: loc.id,
      now: this.now,
      sink: { update: (d) => this.catalog.applyDelta(loc.id, loc.path, d, null), closed: () => undefined },
      hasPreview: true,
      attributes: loc.attributes,
      nextOrdinal: nextOrdinalOf(loc.path),
      sessionIndex: this.sessionIndex,
    });
    try {
      await fn(recorder);
    } finally {
      await recorder.close();
    }
  }
}
