/**
 * Finds what changed in one workspace since the last look. The first look walks the tree (stats
 * compared with the persisted index; only new or changed files are read and hashed). After that, on
 * Linux, a directory watcher names the candidate paths, so a look after a command costs what the
 * command changed, not what the project holds; elsewhere (or if the watcher lost events) it walks.
 * The new content of every changed file goes into the blob store before the change is reported, so
 * the next change to it has its "before" on hand.
 *
 * Every step is asynchronous (the host serves every thread from one process): stats and reads go
 * through `node:fs/promises` a batch of entries at a time, content is hashed and compressed off the
 * event loop by the blob store, and the bookkeeping between them yields every 10 ms.
 */
import type { Stats } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobStore } from './blob-store';
import { DirWatcher } from './dir-watcher';
import { IgnoreRules } from './ignore-rules';
import { diff } from './changes';
import { EntryIndex } from './entry-index';
import { Mutex } from './mutex';
import { childKey, fsPath, keyOfName } from './path-key';
import { isMountPoint, skipped } from './walk-filters';
import { examineEntry, statAll, TurnBudgets } from './tracker-files';
import type { Change, CheckpointLimits, Entry } from './types';
import { IndexSaver } from './index-saver';
import { indexFileFor, loadIndex } from './workspace-index';
import { Slicer } from '../util/slicer';
import type { Disposable } from '../util/disposable';

export interface ScanResult {
  changes: Change[];
  notes: string[];
  /** Compressed bytes newly written to the blob store. */
  storedBytes: number;
  /** 'watch' when only the watcher's candidates were looked at, 'walk' for a whole-tree walk. */
  mode: 'watch' | 'walk';
}

export interface TrackerOptions {
  root: string;
  checkpointsDir: string;
  blobs: BlobStore;
  limits: CheckpointLimits;
  /** Use the directory watcher where the platform allows (default true). */
  watch?: boolean;
  /**
   * The persisted index is exact as of when an earlier tracker of this workspace was closed: the first
   * look reports what changed since, instead of taking it as the baseline.
   */
  resume?: boolean;
}

/** What one look gathers as it goes. */
interface Look {
  notes: string[];
  /** Compressed bytes newly written to the blob store. */
  stored: { bytes: number };
  /** The turn whose budget pays for new content; null: changes made between calls (per-file limit only). */
  budgetKey: string | null;
}

/** A look stopped because its tracker is being closed. */
export class TrackerClosedError extends Error {
  constructor(root: string) {
    super(`the look at ${root} stopped: its tracker was closed`);
    this.name = 'TrackerClosedError';
  }
}

/** Entries of a folder stat-ed (and files read) at once. */
const BATCH = 32;
const BASELINE_BUDGET = '\u0000baseline';

export class WorkspaceTracker implements Disposable {
  readonly root: string;
  private index = new EntryIndex();
  private readonly rules: IgnoreRules;
  private readonly watcher: DirWatcher | null;
  private readonly mutex = new Mutex();
  private readonly saver: IndexSaver;
  private started = false;
  /** Set by `close` until it holds the lock: a walk under way stops at its next batch. */
  private closing = false;
  /** Bytes of new content stored per budget key (a turn id). */
  private readonly budgets = new TurnBudgets();
  private readonly slicer = new Slicer();
  /** When a look last started or ended (for idle eviction). */
  lastUsed = Date.now();

  constructor(private readonly options: TrackerOptions) {
    this.root = options.root;
    this.rules = new IgnoreRules(options.root);
    this.saver = new IndexSaver(
      indexFileFor(options.checkpointsDir, options.root),
      options.root,
      () => this.index.entries,
    );
    const wantWatch = options.watch !== false && DirWatcher.supported();
    this.watcher = wantWatch
      ? new DirWatcher(
          options.root,
          join(options.checkpointsDir, 'tmp', `barrier-${process.pid}-${Math.random().toString(36).slice(2, 10)}`),
        )
      : null;
  }

  /**
   * Looks at the workspace and returns what changed since the last look. The first call walks the
   * whole tree. `budgetKey` groups calls that share the per-turn byte limit.
   */
  sync(budgetKey: string | null = null): Promise<ScanResult> {
    return this.mutex.run(() => this.syncLocked(budgetKey));
  }

  /** Runs `section` while no look is in progress; `section` may call `syncUnlocked`. */
  exclusive<T>(section: () => Promise<T>): Promise<T> {
    return this.mutex.run(section);
  }

  syncUnlocked(budgetKey: string | null = null): Promise<ScanResult> {
    return this.syncLocked(budgetKey);
  }

  /** The current entry of a path (after the last look). */
  entry(path: string): Entry | null {
    return this.index.get(path) ?? null;
  }

  /** Every known entry (a copy). */
  snapshot(): Map<string, Entry> {
    return new Map(this.index.entries);
  }

  /** Writes the index so the next process starts from it; cheap no-op when nothing changed. */
  persist(): Promise<void> {
    return this.saver.now();
  }

  /** Bytes of new content the turn `budgetKey` stored so far (0 for a turn not remembered). */
  spentBy(budgetKey: string): number {
    return this.budgets.spentBy(budgetKey);
  }

  /** How many turns' spending is remembered (the most recent 8). */
  get budgetsKept(): number {
    return this.budgets.size;
  }

  /** Writes the index a little later (off a command's critical path). */
  persistSoon(delayMs = 15_000): void {
    this.saver.soon(delayMs);
  }

  get watchedDirs(): number {
    return this.watcher?.size ?? 0;
  }

  /** A look is under way or waiting. */
  get busy(): boolean {
    return this.mutex.busy;
  }

  /**
   * Stops watching at once, then writes the index. A look under way that walks the tree stops at its next
   * batch (the first look of a big project takes seconds: closing the host must not wait for it); the
   * index is then not exact. True when the index on disk is then exact (saved, or nothing had changed).
   */
  async close(): Promise<boolean> {
    this.closing = true;
    const released = this.watcher?.dispose();
    const saved = await this.mutex.run(async () => {
      this.closing = false;
      try {
        await this.persist();
        return this.started;
      } catch {
        return false; // the next walk rebuilds it
      }
    });
    await released?.catch(() => undefined);
    return saved;
  }

  /** `close`, when whether the index was saved does not matter. */
  async dispose(): Promise<void> {
    await this.close();
  }

  private async syncLocked(budgetKey: string | null): Promise<ScanResult> {
    this.lastUsed = Date.now();
    try {
      return await this.scan(budgetKey);
    } finally {
      this.lastUsed = Date.now();
    }
  }

  private async scan(budgetKey: string | null): Promise<ScanResult> {
    const look: Look = { notes: [], stored: { bytes: 0 }, budgetKey };
    if (!this.started) {
      const persisted = await loadIndex(indexFileFor(this.options.checkpointsDir, this.root), this.root);
      this.index = new EntryIndex();
      // The first look has a budget of its own (the per-turn limit), whatever call it serves.
      await this.walk(persisted, { ...look, budgetKey: BASELINE_BUDGET });
      this.started = true;
      this.saver.dirty = true;
      // The first look establishes the baseline: nothing is reported as changed by it, unless it
      // continues a closed tracker's exact picture.
      const changes = this.options.resume === true ? diff(persisted, this.index.entries) : [];
      return { changes, notes: look.notes, storedBytes: look.stored.bytes, mode: 'walk' };
    }
    if (this.watcher !== null) await this.watcher.barrier();
    const taken = this.watcher?.take() ?? { paths: new Set<string>(), lost: true };
    const gitignoreChanged = [...taken.paths].some((p) => p === '.gitignore' || p.endsWith('/.gitignore'));
    let changes: Change[];
    let mode: 'watch' | 'walk';
    if (taken.lost || gitignoreChanged) {
      if (gitignoreChanged) this.rules.reset();
      const before = this.index.entries;
      this.index = new EntryIndex();
      await this.walk(before, look);
      changes = diff(before, this.index.entries);
      mode = 'walk';
    } else {
      const touched = new Map<string, Entry | null>();
      this.index.touched = touched;
      await this.lookAt([...taken.paths].sort(), look);
      this.index.touched = null;
      const before = new Map<string, Entry>();
      const after = new Map<string, Entry>();
      for (const [path, old] of touched) {
        if (old !== null) before.set(path, old);
        const now = this.index.get(path);
        if (now !== undefined) after.set(path, now);
      }
      changes = diff(before, after);
      mode = 'watch';
    }
    if (changes.length > 0) this.saver.dirty = true;
    return { changes, notes: look.notes, storedBytes: look.stored.bytes, mode };
  }

  /**
   * Re-examines the watcher's candidate paths (sorted, so a folder comes before what is below it),
   * stat-ing a batch at once. Files are read and stored side by side; anything else waits for them.
   */
  private async lookAt(paths: readonly string[], look: Look): Promise<void> {
    for (let at = 0; at < paths.length; at += BATCH) {
      const batch = paths.slice(at, at + BATCH).filter((rel) => !rel.split('/').some((part) => skipped(part)));
      const stats = await statAll(this.root, batch, look.notes);
      const files: Promise<void>[] = [];
      for (const [i, rel] of batch.entries()) {
        const st = stats[i];
        const known = this.index.get(rel);
        if (
          st !== undefined &&
          (st.isFile() || st.isSymbolicLink()) &&
          known?.kind !== 'dir' &&
          !(await this.rules.ignored(rel, false))
        ) {
          files.push(this.examine(rel, st, known, look).then((entry) => this.index.put(rel, entry)));
          continue;
        }
        await Promise.all(files.splice(0));
        await this.lookAtOne(rel, st, look);
      }
      await Promise.all(files);
      await this.slicer.pace();
    }
  }

  /** Re-examines one candidate path whose stats (undefined: gone) were just taken. */
  private async lookAtOne(rel: string, stats: Stats | undefined, look: Look): Promise<void> {
    let st = stats;
    if (st?.isDirectory() === true && (await isMountPoint(this.root, rel))) st = undefined;
    const known = this.index.get(rel);
    if (
      st === undefined ||
      (!st.isDirectory() && !st.isFile() && !st.isSymbolicLink()) ||
      (await this.rules.ignored(rel, st.isDirectory()))
    ) {
      if (known !== undefined) this.forgetTree(rel);
      return;
    }
    if (st.isDirectory()) {
      // A directory that appeared, or was replaced, or changed its mode: its content may predate any
      // watch on it, so walk it (unchanged files keep their hashes: stats are compared first).
      if (known !== undefined && known.kind !== 'dir') this.index.put(rel, null);
      const previous = new Map<string, Entry>();
      // Only a folder known before can have known entries below it.
      if (known?.kind === 'dir') {
        for (const path of this.index.below(rel)) {
          const entry = this.index.get(path);
          if (entry !== undefined) previous.set(path, entry);
        }
        for (const path of previous.keys()) this.index.put(path, null);
        this.watcher?.removeTree(rel);
      }
      await this.walkDir(rel, st, previous, look);
      return;
    }
    if (known?.kind === 'dir') this.forgetTree(rel);
    this.index.put(rel, await this.examine(rel, st, known, look));
  }

  private forgetTree(rel: string): void {
    if (this.index.get(rel)?.kind !== 'dir') {
      this.index.put(rel, null);
      return;
    }
    const below = this.index.below(rel);
    this.index.put(rel, null);
    for (const path of below) this.index.put(path, null);
    this.watcher?.removeTree(rel);
  }

  private async walk(previous: ReadonlyMap<string, Entry>, look: Look): Promise<void> {
    this.watcher?.add('');
    await this.readDir('', previous, look);
  }

  private async walkDir(rel: string, st: Stats, previous: ReadonlyMap<string, Entry>, look: Look): Promise<void> {
    this.index.put(rel, { kind: 'dir', mode: st.mode });
    this.watcher?.add(rel);
    await this.readDir(rel, previous, look);
  }

  private async readDir(dirRel: string, previous: ReadonlyMap<string, Entry>, look: Look): Promise<void> {
    let names: Buffer[];
    try {
      names = await readdir(fsPath(this.root, dirRel), { encoding: 'buffer' });
    } catch {
      return;
    }
    const rels: string[] = [];
    for (const bytes of names) {
      const name = keyOfName(bytes);
      if (!skipped(name)) rels.push(childKey(dirRel, name));
    }
    for (let at = 0; at < rels.length; at += BATCH) {
      this.stopIfClosing();
      const batch = rels.slice(at, at + BATCH);
      const stats = await statAll(this.root, batch, look.notes);
      // Files of the batch are read and stored side by side; folders are walked one after another.
      const files: Promise<void>[] = [];
      const folders: [string, Stats][] = [];
      for (const [i, rel] of batch.entries()) {
        const st = stats[i];
        if (st === undefined) continue;
        if (st.isDirectory()) {
          if ((await this.rules.ignored(rel, true)) || (await isMountPoint(this.root, rel))) continue;
          folders.push([rel, st]);
        } else if (st.isFile() || st.isSymbolicLink()) {
          if (await this.rules.ignored(rel, false)) continue;
          files.push(this.examine(rel, st, previous.get(rel), look).then((entry) => this.index.put(rel, entry)));
        }
      }
      await Promise.all(files);
      for (const [rel, st] of folders) await this.walkDir(rel, st, previous, look);
      await this.slicer.pace();
    }
  }

  /** A walk stops when the tracker is being closed: what it leaves is not an exact picture. */
  private stopIfClosing(): void {
    if (!this.closing) return;
    this.started = false;
    throw new TrackerClosedError(this.root);
  }

  /** The entry for a file or symlink; reads and stores content only when the stats changed. */
  private examine(rel: string, st: Stats, previous: Entry | undefined, look: Look): Promise<Entry> {
    return examineEntry({
      abs: fsPath(this.root, rel),
      rel,
      st,
      previous,
      ...look,
      limits: this.options.limits,
      budgets: this.budgets,
      blobs: this.options.blobs,
    });
  }
}
