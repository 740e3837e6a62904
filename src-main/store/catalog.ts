// The store's side of the index: finding a thread's rollout, keeping the rows of the threads this process
// records current, and the background repairs (queued one after another, cancelled on close). Index
// trouble never fails a recording: it becomes a warning, and the next repair puts the row right.
// A damaged index (any corruption error, wherever it surfaces) is set aside and rebuilt from the rollouts.
import { existsSync, opendirSync, readdirSync, statSync, type Dir } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { codexSources, readCodexHomes } from './codex-homes';
import { StoreError, ThreadNotFoundError } from './errors';
import { checkIndex, isIndexCorruption, openIndex, setIndexAside } from './index-db';
import { summarizeRollout, summarizeSteps, type ThreadOrigin, type ThreadSummary } from './index-scan';
import { archivedDir, indexFile, parseRolloutFileName, sessionsDir } from './paths';
import type { LoadedThread } from './loader';
import type { IndexDelta } from './recorder';
import { forgetSavedOutline, readSavedOutline, writeSavedOutline } from './outline-snapshot';
import { IndexCheck } from './index-check';
import type { RolloutSource } from './index-changes';
import { repairIndex, writeIndexChange, type RepairReport } from './repair';
import { closeRollout, openRollout } from './rollout-source';
import { runSliced } from './slices';
import { SLICE_MS } from '../util/slicer';
import type { ThreadAttributes } from './thread-events';
import { attributesOfRow, type ThreadIndex } from './thread-index';

/** Where a thread's rollout is, as the index (or a search of the folders) says. */
export interface Located {
  id: string;
  path: string;
  origin: ThreadOrigin;
  archived: boolean;
  /** The name and the other attributes, as the index has them (a Codex thread's name from Codex's session index). */
  attributes: ThreadAttributes;
}

function findRollout(dir: string, suffix: string, depth = 0): string | null {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
  for (const e of entries) if (!e.isDirectory() && e.name.endsWith(suffix)) return join(dir, e.name);
  if (depth >= 4) return null;
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const hit = findRollout(join(dir, e.name), suffix, depth + 1);
    if (hit) return hit;
  }
  return null;
}

function emptyOrMissing(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0;
  } catch {
    return true;
  }
}

/** True when no source folder holds anything (each is missing or empty): there is no rollout to check. */
export async function noRollouts(sources: readonly RolloutSource[]): Promise<boolean> {
  for (const source of sources) {
    const entries = await readdir(source.dir).catch(() => []);
    if (entries.length > 0) return false;
  }
  return true;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Longest time one request holds the background repairs back (`inForeground`). */
const FOREGROUND_HOLD_MS = 2_000;

/**
 * Longest a list waiting for a new index's first build waits for the start-up check's worker to start (a
 * thread of its own, loading its modules: tens of ms on a quiet machine).
 */
const WORKER_WARM_UP_MS = 1_000;

/**
 * A home at most this big (rollouts, and their bytes) is small: a list waits for its new index's first
 * build to finish (a few hundred ms on a quiet machine, longer on a busy one) rather than answer with part
 * of it. A bigger home's lists answer with what is indexed so far and say so (see `builtWithin`).
 */
const SMALL_HOME = { rollouts: 250, bytes: 64 * 1024 * 1024 };

/** Longest a list waits for a small home's first build (a worker that never answers must not hold it). */
const SMALL_HOME_BUILD_WAIT_MS = 10_000;

/**
 * Whether the rollouts in `sources` are at most SMALL_HOME. It reads folders entry by entry and stops at
 * the first rollout or byte over, so a big home costs a few dozen entries; a small one a stat of each.
 */
export function isSmallHome(sources: readonly RolloutSource[]): boolean {
  let rollouts = 0;
  let bytes = 0;
  const stack = sources.map((source) => ({ dir: source.dir, depth: 0 }));
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    let dir: Dir;
    try {
      dir = opendirSync(next.dir);
    } catch {
      continue; // missing, or not ours to read: nothing of it is listed either
    }
    try {
      for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
        const path = join(next.dir, entry.name);
        if (entry.isDirectory()) {
          if (next.depth < 4) stack.push({ dir: path, depth: next.depth + 1 });
        } else if (parseRolloutFileName(entry.name) !== null) {
          if (++rollouts > SMALL_HOME.rollouts) return false;
          bytes += statSync(path, { throwIfNoEntry: false })?.size ?? 0;
          if (bytes > SMALL_HOME.bytes) return false;
        }
      }
    } catch {
      return false; // a folder that cannot be read through is not known to be small
    } finally {
      dir.closeSync();
    }
  }
  return true;
}

/** Rebuilds after damage allowed in one process: a disk that damages every new index is an error. */
const MAX_RECOVERIES = 3;

export class Catalog {
  private indexing: Promise<RepairReport | null> = Promise.resolve(null);
  private closed = false;
  /** Times the index was found damaged and rebuilt by this process. */
  recoveries = 0;
  /** The rebuild after damage, while it runs: lists wait for it to be complete. */
  rebuilding: Promise<unknown> | null = null;
  /**
   * The index was made empty (a new file) and its first pass over the rollouts has not finished: lists
   * answer with what is indexed so far and say so (see `whenBuilt`).
   */
  building = false;
  private readonly builtListeners = new Set<() => void>();
  /** Requests reading the store now (`inForeground`), and the repairs waiting for them to finish. */
  private foreground = 0;
  private waitingForIdle: (() => void)[] = [];
  /** Callers of `whenIndexed` waiting now. */
  private awaitingIndex = 0;
  /** The start-up check in a worker thread, from its start until its report. */
  private startUpCheck: IndexCheck | null = null;
  /** Whether the home is small (SMALL_HOME), found when the start-up check starts or a list first waits. */
  private small: boolean | undefined;

  constructor(
    readonly home: string,
    readonly index: ThreadIndex,
    private readonly warn: (message: string) => void,
    private readonly sliceMs?: number,
  ) {}

  /** The folders of rollouts: Weft's sessions and archive, and those of every imported Codex home. */
  sources(): RolloutSource[] {
    const warnings: string[] = [];
    const codex = readCodexHomes(this.home, warnings).flatMap(codexSources);
    for (const w of warnings) this.warn(w);
    return [
      { dir: sessionsDir(this.home), archived: false, origin: 'weft' },
      { dir: archivedDir(this.home), archived: true, origin: 'weft' },
      ...codex,
    ];
  }

  /**
   * Runs `work` (a request that reads rollouts, such as a resume) ahead of the background repairs: they
   * pause at their next slice until no such work is left (or it has run FOREGROUND_HOLD_MS), so a repair
   * never stretches a request.
   */
  async inForeground<T>(work: () => Promise<T>): Promise<T> {
    this.foreground++;
    let held = true;
    const release = (): void => {
      if (!held) return;
      held = false;
      this.foreground--;
      if (this.foreground === 0) this.releaseRepairs();
    };
    // A long request (a command run for the client, a sign-in waiting for the browser) holds the repairs
    // back for a moment only.
    const timer = setTimeout(release, FOREGROUND_HOLD_MS);
    timer.unref();
    try {
      return await work();
    } finally {
      clearTimeout(timer);
      release();
    }
  }

  /**
   * What a background repair awaits at each pause. It never waits while someone waits for the index
   * (`whenIndexed`): that may be the very request it would give way to.
   */
  private readonly giveWay = (): Promise<void> =>
    this.foreground === 0 || this.closed || this.awaitingIndex > 0
      ? Promise.resolve()
      : new Promise((resolve) => this.waitingForIdle.push(resolve));

  private releaseRepairs(): void {
    const waiting = this.waitingForIdle;
    this.waitingForIdle = [];
    for (const resume of waiting) resume();
  }

  /**
   * Runs a repair after the ones queued before it; `sources` null = all (read when it starts). A failure
   * becomes a warning and null, or is thrown with `rethrow`. An index found damaged on the way is set
   * aside and the repair starts over, in full, on a new one. A `background` repair (the start-up check)
   * gives way to requests in flight (`inForeground`); in a host (`startCheck` was called) it reads in a
   * worker thread (index-check.ts) and only writes here, else (a command that waits for the index, or no
   * worker could run) it runs here, in slices.
   */
  queueRepair(
    full: boolean,
    sources: RolloutSource[] | null,
    rethrow = false,
    background = false,
  ): Promise<RepairReport | null> {
    const run = this.indexing.then(async () => {
      await new Promise((r) => setImmediate(r));
      if (this.closed) return null;
      try {
        let report: RepairReport;
        try {
          const all = sources ?? this.sources();
          // With no rollout anywhere (a new home) the check is done at once here: a worker would only add
          // its start-up (about 100 ms, far more on a busy machine) to the first lists, which wait for it.
          if (background && this.startUpCheck !== null && (await noRollouts(all))) void this.dropStartUpCheck();
          const checked = background && !full && this.startUpCheck !== null ? await this.checkInWorker() : null;
          report =
            checked ??
            (await repairIndex(this.index, all, {
              full,
              outlines: this.outlines,
              ...(this.sliceMs === undefined ? {} : { sliceMs: this.sliceMs }),
              cancelled: () => this.closed,
              ...(background ? { giveWay: this.giveWay } : {}),
            }));
        } catch (error) {
          if (!isIndexCorruption(error) || this.closed) throw error;
          this.setAside(error);
          report = await repairIndex(this.index, this.sources(), {
            full: true,
            outlines: this.outlines,
            cancelled: () => this.closed,
          });
        }
        for (const w of report.warnings) this.warn(w);
        return report;
      } catch (error) {
        if (rethrow) throw error;
        if (!this.closed) this.warn(`the thread index could not be brought up to date: ${message(error)}`);
        return null;
      }
    });
    this.indexing = run.catch(() => null);
    // A pass over every source, however it ends, ends the first build (a failure was warned about).
    if (sources === null) void this.indexing.then(() => this.built());
    return run;
  }

  /**
   * Starts the start-up check's reading in a worker thread now (its start-up then overlaps the host's);
   * its rows are written once the check is queued (`queueRepair` with `background`).
   */
  startCheck(): void {
    if (this.startUpCheck !== null || this.closed) return;
    // A new home (no rollout anywhere) has nothing to check: no thread is started for it (its start-up is
    // a core's worth of work for a tenth of a second). A few entries of at most a few folders are read.
    const sources = this.sources();
    if (sources.every((source) => emptyOrMissing(source.dir))) return;
    // The first build of a small home's new index is waited for by the first lists (`builtWithin`): its
    // worker is not put below the main thread, whose requests wait for it (on a busy machine a lowered
    // worker took seconds to start). Any other check is background work.
    const waitedFor = this.building && (this.small ??= isSmallHome(sources));
    this.startUpCheck = new IndexCheck({
      home: this.home,
      indexPath: indexFile(this.home),
      sources,
      background: !waitedFor,
    });
  }

  /** Stops the start-up check's worker unused: the check runs on this thread. */
  private async dropStartUpCheck(): Promise<void> {
    const check = this.startUpCheck;
    this.startUpCheck = null;
    await check?.stop().catch(() => undefined);
  }

  /** The start-up check started by `startCheck`; null when no worker could run it (see IndexCheck.run). */
  private async checkInWorker(): Promise<RepairReport | null> {
    const check = this.startUpCheck;
    if (check === null) return null;
    try {
      return await check.run({ write: (change) => writeIndexChange(this.index, change), giveWay: this.giveWay });
    } finally {
      if (this.startUpCheck === check) this.startUpCheck = null;
    }
  }

  /**
   * Runs an index operation; when it finds the index damaged, sets the index aside, queues a full
   * rebuild from the rollouts and runs the operation again on the new index (which fills up as the
   * rebuild goes: see `recoveries` to know whether to wait for it).
   */
  guard<T>(operation: () => T): T {
    try {
      return operation();
    } catch (error) {
      if (!isIndexCorruption(error) || this.closed) throw error;
      this.setAside(error);
      this.rebuild();
      return operation();
    }
  }

  /** Queues a full rebuild from the rollouts (after the index was replaced by an empty one). */
  rebuild(): void {
    const run = this.queueRepair(true, null);
    this.rebuilding = run;
    void run.finally(() => {
      if (this.rebuilding === run) this.rebuilding = null;
    });
  }

  /** Calls `listener` once the first pass over the rollouts of an index made empty has finished. */
  whenBuilt(listener: () => void): () => void {
    this.builtListeners.add(listener);
    return () => this.builtListeners.delete(listener);
  }

  /**
   * Resolves once the first build is over, or after `ms` of it, whichever comes first; meanwhile the build
   * does not give way to requests (the one waiting may be among them). The `ms` count from when the
   * start-up check's worker sent its first rows (its start-up is not the build's time), or from
   * WORKER_WARM_UP_MS at most. A small home (SMALL_HOME) is waited for until it is built, however busy the
   * machine: its build is short, and a list of part of a few threads would look like threads lost.
   */
  async builtWithin(ms: number): Promise<void> {
    if (!this.building) return;
    this.awaitingIndex++;
    this.releaseRepairs();
    try {
      this.small ??= isSmallHome(this.sources());
      if (this.small) {
        await this.untilBuilt(SMALL_HOME_BUILD_WAIT_MS);
        return;
      }
      const warmedUp = this.startUpCheck?.warmedUp;
      if (warmedUp !== undefined) await Promise.race([warmedUp, this.untilBuilt(WORKER_WARM_UP_MS)]);
      await this.untilBuilt(ms);
    } finally {
      this.awaitingIndex--;
    }
  }

  /** Resolves once the first build is over, or after `ms`. */
  private untilBuilt(ms: number): Promise<void> {
    if (!this.building) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        off();
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      const off = this.whenBuilt(done);
    });
  }

  private built(): void {
    if (!this.building) return;
    this.building = false;
    for (const listener of [...this.builtListeners]) listener();
  }

  /** SQLite's quick_check of the index: the problems found, [] when sound. */
  check(): string[] {
    try {
      return checkIndex(this.index.db);
    } catch (error) {
      if (isIndexCorruption(error)) return [message(error)];
      throw error;
    }
  }

  /** Moves the damaged index aside and continues on a new, empty one; returns the damaged file's new path. */
  setAside(reason: unknown): string | null {
    this.recoveries++;
    const path = indexFile(this.home);
    if (this.recoveries > MAX_RECOVERIES) {
      throw new StoreError(
        `the thread index ${path} was damaged again after ${MAX_RECOVERIES} rebuilds (${message(reason)}); the disk may be failing. Check it, then run \`weft threads reindex\``,
        { cause: reason },
      );
    }
    this.index.db.close();
    const aside = setIndexAside(path);
    const opened = openIndex(path);
    this.index.replaceDatabase(opened.db);
    this.warn(
      `the thread index was damaged (${message(reason)}); it was set aside${aside ? ` as ${basename(aside)}` : ''} and is being rebuilt from the rollouts`,
    );
    return aside;
  }

  /** Resolves when every queued repair has finished. */
  async whenIndexed(): Promise<void> {
    this.awaitingIndex++;
    this.releaseRepairs();
    try {
      let current: Promise<RepairReport | null>;
      do {
        current = this.indexing;
        await current;
      } while (current !== this.indexing);
    } finally {
      this.awaitingIndex--;
    }
  }

  /** Where a thread's rollout is: from the index, else found in the folders (and indexed). */
  locate(threadId: string): Located {
    return this.guard(() => this.locateIn(threadId));
  }

  private locateIn(threadId: string): Located {
    const row = this.index.get(threadId);
    if (row && existsSync(row.path)) {
      const attributes = attributesOfRow(row);
      return { id: row.id, path: row.path, origin: row.origin, archived: row.archived !== 0, attributes };
    }
    const suffix = `-${threadId}.jsonl`;
    for (const source of this.sources()) {
      const path = findRollout(source.dir, suffix);
      if (!path) continue;
      const summary = summarizeRollout(path, { archived: source.archived, origin: source.origin });
      const name = source.names?.get(threadId);
      if (name !== undefined) summary.attributes = { ...summary.attributes, name };
      this.index.transaction(() => this.index.upsert(summary));
      return { id: threadId, path, origin: source.origin, archived: source.archived, attributes: summary.attributes };
    }
    if (row) {
      this.index.transaction(() => this.index.remove(threadId));
      this.forgetOutline(threadId);
    }
    throw new ThreadNotFoundError(threadId, `${sessionsDir(this.home)} or ${archivedDir(this.home)}`);
  }

  /** Indexes a rollout this process just created; `model` fills in when no turn recorded one yet. */
  indexFile(threadId: string, path: string, model: string | null): void {
    if (this.closed) return;
    try {
      const summary = summarizeRollout(path, { archived: false, origin: 'weft' });
      summary.model ??= model;
      this.indexSummary(threadId, summary);
    } catch (error) {
      this.notIndexed(threadId, error);
    }
  }

  /**
   * Indexes a thread's rollout again from the whole file, giving the event loop back as it reads: after a
   * rollback (or its undoing) the index holds the text of the live turns only, as a rebuild would.
   */
  async reindexFile(loc: Located): Promise<void> {
    if (this.closed) return;
    try {
      const { fd } = openRollout(loc.path);
      try {
        const options = { archived: loc.archived, origin: loc.origin };
        const { summary } = await runSliced(summarizeSteps(fd, loc.path, options), SLICE_MS);
        this.indexSummary(loc.id, summary);
      } finally {
        closeRollout(fd);
      }
    } catch (error) {
      this.notIndexed(loc.id, error);
    }
  }

  /** Indexes what was read of a rollout this process just created (`indexFile` once it is summarized). */
  indexSummary(threadId: string, summary: ThreadSummary): void {
    if (this.closed) return;
    try {
      this.guard(() => this.index.transaction(() => this.index.upsert(summary)));
    } catch (error) {
      this.notIndexed(threadId, error);
    }
  }

  private notIndexed(threadId: string, error: unknown): void {
    this.warn(
      `thread ${threadId} could not be indexed (it is saved; \`weft threads reindex\` retries): ${message(error)}`,
    );
  }

  /** Applies what a recorder learned; a thread without a row yet is indexed from its file. */
  applyDelta(threadId: string, path: string, delta: IndexDelta, model: string | null): void {
    if (this.closed) return;
    try {
      const stat = statSync(path);
      const usage = delta.tokenUsage?.total;
      const applied = this.guard(() =>
        this.index.transaction(() =>
          this.index.update(threadId, {
            updatedAtMs: delta.updatedAt.getTime(),
            fileSize: stat.size,
            fileMtimeMs: Math.floor(stat.mtimeMs),
            preview: delta.preview,
            attributes: delta.attributes,
            model: delta.model,
            tokens: usage
              ? { total: usage.totalTokens, input: usage.inputTokens, output: usage.outputTokens }
              : undefined,
            lastTurnStatus: delta.lastTurnStatus,
            text: delta.text.join('\n'),
          }),
        ),
      );
      if (!applied) this.indexFile(threadId, path, model);
    } catch (error) {
      this.warn(`the index entry of thread ${threadId} could not be updated (the thread is saved): ${message(error)}`);
    }
  }

  /** The thread's saved outline; null when there is none (then the file is read). */
  savedOutline(threadId: string): Buffer | null {
    return readSavedOutline(this.home, threadId);
  }

  /**
   * Keeps what a load read for the next one (`LoadedThread.outlineToSave`), once the current task is done:
   * encoding and writing it are not part of the answer. A failure is only a warning: the next load reads
   * the file again.
   */
  saveOutlineLater(threadId: string, loaded: LoadedThread): void {
    const encode = loaded.outlineToSave;
    if (!encode) return;
    setImmediate(() => {
      if (this.closed) return;
      const data = encode();
      if (data !== null) this.keepOutline(threadId, data);
    });
  }

  private readonly keepOutline = (threadId: string, data: Buffer): void => {
    try {
      writeSavedOutline(this.home, threadId, data);
    } catch (error) {
      this.warn(`the outline of thread ${threadId} could not be kept for its next read: ${message(error)}`);
    }
  };

  private readonly forgetOutline = (threadId: string): void => {
    try {
      forgetSavedOutline(this.home, threadId);
    } catch {
      // A saved outline left behind is never used for another file (see outline-snapshot.ts).
    }
  };

  /** Where repairs keep the outlines they make and drop those of threads that are gone. */
  private readonly outlines = { keep: this.keepOutline, forget: this.forgetOutline };

  /** Stops the repairs (at their next pause) and closes the index. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.releaseRepairs();
    await this.startUpCheck?.stop();
    await this.indexing.catch(() => null);
    this.index.db.close();
  }
}
