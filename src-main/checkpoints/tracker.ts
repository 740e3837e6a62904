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
import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobStore } from './blob-store';
import { isPlaceholderFolder, isPlaceholderLease } from '../safety/sandbox/placeholders';
import { STAGING_PREFIX } from './restore-apply';
import { DirWatcher } from './dir-watcher';
import { IgnoreRules } from './ignore-rules';
import { Mutex } from './mutex';
import { childKey, fsPath, keyOfName, shown } from './path-key';
import { type Change, type CheckpointLimits, type Entry, sameContent, statDiffers } from './types';
import { indexFileFor, loadIndex, saveIndex } from './workspace-index';
import { Slicer } from './yield';

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

/** Entries of a folder stat-ed (and files read) at once. */
const BATCH = 32;
const BASELINE_BUDGET = '\u0000baseline';
/**
 * Turns whose spending is remembered: a turn's budget starts at 0, and the oldest is forgotten once
 * this many newer ones spent (several threads may work in one workspace at once).
 */
const BUDGETS_KEPT = 8;

export class WorkspaceTracker {
  readonly root: string;
  private index = new Map<string, Entry>();
  /**
   * The names of the known entries directly inside each folder ('' = the root), so that a folder's
   * known subtree costs what it holds rather than a pass over the whole index.
   */
  private children = new Map<string, Set<string>>();
  private readonly rules: IgnoreRules;
  private readonly watcher: DirWatcher | null;
  private readonly mutex = new Mutex();
  private readonly indexFile: string;
  private started = false;
  private dirtyIndex = false;
  private persistTimer: NodeJS.Timeout | null = null;
  /** Bytes of new content stored per budget key (a turn id). */
  private readonly spent = new Map<string, number>();
  private readonly slicer = new Slicer();
  private persisting: Promise<void> | null = null;
  /** When a look last started or ended (for idle eviction). */
  lastUsed = Date.now();
  /** During a watch-mode look: each touched path's entry before the look. */
  private touched: Map<string, Entry | null> | null = null;

  constructor(private readonly options: TrackerOptions) {
    this.root = options.root;
    this.rules = new IgnoreRules(options.root);
    this.indexFile = indexFileFor(options.checkpointsDir, options.root);
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
    return new Map(this.index);
  }

  /** Writes the index so the next process starts from it; cheap no-op when nothing changed. */
  async persist(): Promise<void> {
    if (this.persistTimer !== null) clearTimeout(this.persistTimer);
    this.persistTimer = null;
    while (this.persisting !== null) await this.persisting;
    if (!this.dirtyIndex) return;
    this.dirtyIndex = false;
    // A copy: looks may change the index while it is written.
    this.persisting = saveIndex(this.indexFile, this.root, new Map(this.index))
      .catch((error: unknown) => {
        this.dirtyIndex = true;
        throw error;
      })
      .finally(() => {
        this.persisting = null;
      });
    await this.persisting;
  }

  /** Bytes of new content the turn `budgetKey` stored so far (0 for a turn not remembered). */
  spentBy(budgetKey: string): number {
    return this.spent.get(budgetKey) ?? 0;
  }

  /** How many turns' spending is remembered (bounded by `BUDGETS_KEPT`). */
  get budgetsKept(): number {
    return this.spent.size;
  }

  /**
   * Writes the index a little later: writing it whole costs time proportional to the project, so
   * it is not done on a command's critical path. A lost write only means stats are compared again.
   */
  persistSoon(delayMs = 15_000): void {
    if (this.persistTimer !== null || !this.dirtyIndex) return;
    this.persistTimer = setTimeout(() => {
      this.persistTimer = null;
      this.persist().catch(() => {
        /* the next walk rebuilds it */
      });
    }, delayMs);
    this.persistTimer.unref();
  }

  get watchedDirs(): number {
    return this.watcher?.size ?? 0;
  }

  /** A look is under way or waiting. */
  get busy(): boolean {
    return this.mutex.busy;
  }

  /**
   * Stops watching at once, then writes the index (waiting for a look under way to end first). True
   * when the index on disk is then exact (saved, or nothing had changed).
   */
  async dispose(): Promise<boolean> {
    const released = this.watcher?.dispose();
    const saved = await this.mutex.run(async () => {
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

  private async syncLocked(budgetKey: string | null): Promise<ScanResult> {
    this.lastUsed = Date.now();
    try {
      return await this.scan(budgetKey);
    } finally {
      this.lastUsed = Date.now();
    }
  }

  private async scan(budgetKey: string | null): Promise<ScanResult> {
    const notes: string[] = [];
    const stored = { bytes: 0 };
    if (!this.started) {
      const persisted = await loadIndex(this.indexFile, this.root);
      this.index = new Map();
      this.children = new Map();
      this.touched = null;
      // The first look has a budget of its own (the per-turn limit), whatever call it serves.
      await this.walk(persisted, notes, stored, BASELINE_BUDGET);
      this.started = true;
      this.dirtyIndex = true;
      // The first look establishes the baseline: nothing is reported as changed by it, unless it
      // continues a closed tracker's exact picture.
      const changes = this.options.resume === true ? diff(persisted, this.index) : [];
      return { changes, notes, storedBytes: stored.bytes, mode: 'walk' };
    }
    if (this.watcher !== null) await this.watcher.barrier();
    const taken = this.watcher?.take() ?? { paths: new Set<string>(), lost: true };
    const gitignoreChanged = [...taken.paths].some((p) => p === '.gitignore' || p.endsWith('/.gitignore'));
    let changes: Change[];
    let mode: 'watch' | 'walk';
    if (taken.lost || gitignoreChanged) {
      if (gitignoreChanged) this.rules.reset();
      const before = this.index;
      this.index = new Map();
      this.children = new Map();
      this.touched = null;
      await this.walk(before, notes, stored, budgetKey);
      changes = diff(before, this.index);
      mode = 'walk';
    } else {
      const touched = new Map<string, Entry | null>();
      this.touched = touched;
      await this.lookAt([...taken.paths].sort(), notes, stored, budgetKey);
      this.touched = null;
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
    if (changes.length > 0) this.dirtyIndex = true;
    return { changes, notes, storedBytes: stored.bytes, mode };
  }

  /** Sets or removes an entry, remembering its value before this look (watch mode). */
  private put(rel: string, entry: Entry | null): void {
    if (this.touched !== null && !this.touched.has(rel)) this.touched.set(rel, this.index.get(rel) ?? null);
    const slash = rel.lastIndexOf('/');
    const dir = slash < 0 ? '' : rel.slice(0, slash);
    const name = rel.slice(slash + 1);
    if (entry === null) {
      if (!this.index.delete(rel)) return;
      const names = this.children.get(dir);
      names?.delete(name);
      if (names?.size === 0) this.children.delete(dir);
      return;
    }
    if (!this.index.has(rel)) {
      let names = this.children.get(dir);
      if (names === undefined) {
        names = new Set();
        this.children.set(dir, names);
      }
      names.add(name);
    }
    this.index.set(rel, entry);
  }

  /** Every known path below the folder `rel` (not `rel` itself). */
  private below(rel: string): string[] {
    const out: string[] = [];
    const stack = [rel];
    for (let dir = stack.pop(); dir !== undefined; dir = stack.pop()) {
      const names = this.children.get(dir);
      if (names === undefined) continue;
      for (const name of names) {
        const path = `${dir}/${name}`;
        out.push(path);
        stack.push(path);
      }
    }
    return out;
  }

  /**
   * Re-examines the watcher's candidate paths (sorted, so a folder comes before what is below it),
   * stat-ing a batch at once. Files are read and stored side by side; anything else waits for them.
   */
  private async lookAt(
    paths: readonly string[],
    notes: string[],
    stored: { bytes: number },
    budgetKey: string | null,
  ): Promise<void> {
    for (let at = 0; at < paths.length; at += BATCH) {
      const batch = paths.slice(at, at + BATCH).filter((rel) => !rel.split('/').some((part) => skipped(part)));
      const stats = await Promise.all(
        batch.map((rel) =>
          lstat(fsPath(this.root, rel)).then(
            (st) => st,
            () => undefined,
          ),
        ),
      );
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
          files.push(this.examine(rel, st, known, notes, stored, budgetKey).then((entry) => this.put(rel, entry)));
          continue;
        }
        await Promise.all(files.splice(0));
        await this.look(rel, st, notes, stored, budgetKey);
      }
      await Promise.all(files);
      await this.slicer.maybeYield();
    }
  }

  /** Re-examines one candidate path whose stats (undefined: gone) were just taken. */
  private async look(
    rel: string,
    stats: Stats | undefined,
    notes: string[],
    stored: { bytes: number },
    budgetKey: string | null,
  ): Promise<void> {
    let st = stats;
    if (st?.isDirectory() === true && (await this.isMountPoint(rel))) st = undefined;
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
      if (known !== undefined && known.kind !== 'dir') this.put(rel, null);
      const previous = new Map<string, Entry>();
      // Only a folder known before can have known entries below it.
      if (known?.kind === 'dir') {
        for (const path of this.below(rel)) {
          const entry = this.index.get(path);
          if (entry !== undefined) previous.set(path, entry);
        }
        for (const path of previous.keys()) this.put(path, null);
        this.watcher?.removeTree(rel);
      }
      await this.walkDir(rel, st, previous, notes, stored, budgetKey);
      return;
    }
    if (known?.kind === 'dir') this.forgetTree(rel);
    this.put(rel, await this.examine(rel, st, known, notes, stored, budgetKey));
  }

  private forgetTree(rel: string): void {
    if (this.index.get(rel)?.kind !== 'dir') {
      this.put(rel, null);
      return;
    }
    const below = this.below(rel);
    this.put(rel, null);
    for (const path of below) this.put(path, null);
    this.watcher?.removeTree(rel);
  }

  private async walk(
    previous: ReadonlyMap<string, Entry>,
    notes: string[],
    stored: { bytes: number },
    budgetKey: string | null,
  ): Promise<void> {
    this.watcher?.add('');
    await this.readDir('', previous, notes, stored, budgetKey);
  }

  private async walkDir(
    rel: string,
    st: Stats,
    previous: ReadonlyMap<string, Entry>,
    notes: string[],
    stored: { bytes: number },
    budgetKey: string | null,
  ): Promise<void> {
    this.put(rel, { kind: 'dir', mode: st.mode });
    this.watcher?.add(rel);
    await this.readDir(rel, previous, notes, stored, budgetKey);
  }

  private async readDir(
    dirRel: string,
    previous: ReadonlyMap<string, Entry>,
    notes: string[],
    stored: { bytes: number },
    budgetKey: string | null,
  ): Promise<void> {
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
      const batch = rels.slice(at, at + BATCH);
      const stats = await Promise.all(
        batch.map((rel) =>
          lstat(fsPath(this.root, rel)).then(
            (st) => st,
            (error: unknown) => {
              if (errorCode(error) === 'ENAMETOOLONG')
                notes.push(`${shown(rel)}: not checkpointed: its path is longer than the system allows`);
              return null;
            },
          ),
        ),
      );
      // Files of the batch are read and stored side by side; folders are walked one after another.
      const files: Promise<void>[] = [];
      const folders: [string, Stats][] = [];
      for (const [i, rel] of batch.entries()) {
        const st = stats[i];
        if (st === null || st === undefined) continue;
        if (st.isDirectory()) {
          if ((await this.rules.ignored(rel, true)) || (await this.isMountPoint(rel))) continue;
          folders.push([rel, st]);
        } else if (st.isFile() || st.isSymbolicLink()) {
          if (await this.rules.ignored(rel, false)) continue;
          files.push(
            this.examine(rel, st, previous.get(rel), notes, stored, budgetKey).then((entry) => this.put(rel, entry)),
          );
        }
      }
      await Promise.all(files);
      for (const [rel, st] of folders) await this.walkDir(rel, st, previous, notes, stored, budgetKey);
      await this.slicer.maybeYield();
    }
  }

  /** A folder the sandbox made to mount a placeholder on, present only while a command runs. */
  private async isMountPoint(rel: string): Promise<boolean> {
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    // Only a few dot-names can be placeholders (isPlaceholderFolder asks for the listing only then).
    if (!name.startsWith('.')) return false;
    try {
      const listing = await readdir(fsPath(this.root, rel));
      return isPlaceholderFolder(name, () => listing);
    } catch {
      return false;
    }
  }

  /** The entry for a file or symlink; reads and stores content only when the stats changed. */
  private async examine(
    rel: string,
    st: Stats,
    previous: Entry | undefined,
    notes: string[],
    stored: { bytes: number },
    budgetKey: string | null,
  ): Promise<Entry> {
    const abs = fsPath(this.root, rel);
    if (st.isSymbolicLink()) {
      let target = '';
      try {
        target = await readlink(abs, 'utf8');
      } catch {
        /* vanished: recorded as an empty link, the next look corrects it */
      }
      return { kind: 'symlink', target, mtimeMs: st.mtimeMs, ino: st.ino };
    }
    const statOnly: Entry = {
      kind: 'file',
      mode: st.mode,
      size: st.size,
      mtimeMs: st.mtimeMs,
      ino: st.ino,
      hash: null,
    };
    if (
      previous !== undefined &&
      !statDiffers(previous, statOnly) &&
      previous.kind === 'file' &&
      previous.hash !== null
    )
      return previous;
    const { maxFileBytes, maxTurnBytes } = this.options.limits;
    if (st.size > maxFileBytes) {
      notes.push(
        `${shown(rel)}: not checkpointed: too large (${formatBytes(st.size)} > ${formatBytes(maxFileBytes)} per file)`,
      );
      return statOnly;
    }
    // Without a key (changes someone else made between calls) only the per-file limit applies.
    const key = budgetKey;
    const spent = key === null ? 0 : (this.spent.get(key) ?? 0);
    if (key !== null && spent + st.size > maxTurnBytes) {
      notes.push(
        `${shown(rel)}: not checkpointed: too large (the turn's checkpoints passed ${formatBytes(maxTurnBytes)})`,
      );
      return statOnly;
    }
    // Reserved before reading: files of one batch are read side by side.
    if (key !== null) this.spend(key, st.size);
    const bytes = await readRegularFile(abs, st);
    if (key !== null) this.spend(key, (bytes?.length ?? 0) - st.size);
    if (bytes === null) return statOnly;
    const put = await this.options.blobs.put(bytes);
    stored.bytes += put.written;
    return { ...statOnly, size: bytes.length, hash: put.hash };
  }

  /** Adds to a turn's spending; that turn becomes the newest remembered, the oldest beyond the bound is forgotten. */
  private spend(key: string, bytes: number): void {
    const total = (this.spent.get(key) ?? 0) + bytes;
    this.spent.delete(key);
    this.spent.set(key, total);
    for (const old of this.spent.keys()) {
      if (this.spent.size <= BUDGETS_KEPT) break;
      this.spent.delete(old);
    }
  }
}

/**
 * The content of the regular file `abs` that `st` describes; null when it is no longer that file (a
 * symlink, a FIFO or another file was put in its place since it was looked at: never followed or read).
 */
async function readRegularFile(abs: string | Buffer, st: Stats): Promise<Buffer | null> {
  let handle;
  try {
    handle = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const now = await handle.stat();
    if (!now.isFile() || now.ino !== st.ino || now.dev !== st.dev) return null;
    return await handle.readFile();
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** The changes between two states, renames paired by content. */
export function diff(before: ReadonlyMap<string, Entry>, after: ReadonlyMap<string, Entry>): Change[] {
  const changes: Change[] = [];
  for (const [path, entry] of after) {
    const old = before.get(path) ?? null;
    if (old === null || !sameContent(old, entry)) changes.push({ path, before: old, after: entry });
  }
  for (const [path, entry] of before) if (!after.has(path)) changes.push({ path, before: entry, after: null });
  const removedByHash = new Map<string, string>();
  for (const change of changes) {
    if (change.after === null && change.before?.kind === 'file' && change.before.hash !== null)
      removedByHash.set(change.before.hash, change.path);
  }
  for (const change of changes) {
    if (change.before === null && change.after?.kind === 'file' && change.after.hash !== null) {
      const from = removedByHash.get(change.after.hash);
      if (from !== undefined) {
        change.renamedFrom = from;
        removedByHash.delete(change.after.hash);
      }
    }
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 * 1024) return `${(n / (1024 * 1024 * 1024)).toFixed(1)} GiB`;
  if (n >= 1024 * 1024) return `${Math.round(n / (1024 * 1024))} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} B`;
}

/**
 * Names never recorded: `.git`, a restore's staging folder, and the sandbox's placeholder leases (Weft's
 * own bookkeeping while a command runs, gone when it ends).
 */
function skipped(name: string): boolean {
  return name === '.git' || name.startsWith(STAGING_PREFIX) || isPlaceholderLease(name);
}
