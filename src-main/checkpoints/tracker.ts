/**
 * Finds what changed in one workspace since the last look. The first look walks the tree (stats
 * compared with the persisted index; only new or changed files are read and hashed). After that, on
 * Linux, a directory watcher names the candidate paths, so a look after a command costs what the
 * command changed, not what the project holds; elsewhere (or if the watcher lost events) it walks.
 * The new content of every changed file goes into the blob store before the change is reported, so
 * the next change to it has its "before" on hand.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  type Stats,
} from 'node:fs';
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
}

const YIELD_EVERY = 512;
const BASELINE_BUDGET = '\u0000baseline';

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
  private sinceYield = 0;
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
  persist(): void {
    if (this.persistTimer !== null) clearTimeout(this.persistTimer);
    this.persistTimer = null;
    if (!this.dirtyIndex) return;
    saveIndex(this.indexFile, this.root, this.index);
    this.dirtyIndex = false;
  }

  /**
   * Writes the index a little later: writing it whole costs time proportional to the project, so
   * it is not done on a command's critical path. A lost write only means stats are compared again.
   */
  persistSoon(delayMs = 15_000): void {
    if (this.persistTimer !== null || !this.dirtyIndex) return;
    this.persistTimer = setTimeout(() => {
      this.persistTimer = null;
      try {
        this.persist();
      } catch {
        /* the next walk rebuilds it */
      }
    }, delayMs);
    this.persistTimer.unref();
  }

  get watchedDirs(): number {
    return this.watcher?.size ?? 0;
  }

  dispose(): void {
    try {
      this.persist();
    } catch {
      /* the next walk rebuilds it */
    }
    this.watcher?.dispose();
  }

  private async syncLocked(budgetKey: string | null): Promise<ScanResult> {
    const notes: string[] = [];
    const stored = { bytes: 0 };
    if (!this.started) {
      const persisted = loadIndex(this.indexFile, this.root);
      this.index = new Map();
      this.children = new Map();
      this.touched = null;
      // The first look has a budget of its own (the per-turn limit), whatever call it serves.
      await this.walk(persisted, notes, stored, BASELINE_BUDGET);
      this.started = true;
      this.dirtyIndex = true;
      // The first look establishes the baseline: nothing is reported as changed by it.
      return { changes: [], notes, storedBytes: stored.bytes, mode: 'walk' };
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
      for (const path of [...taken.paths].sort()) await this.look(path, notes, stored, budgetKey);
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

  /** Re-examines one candidate path (from the watcher). */
  private async look(rel: string, notes: string[], stored: { bytes: number }, budgetKey: string | null): Promise<void> {
    if (rel.split('/').some((part) => skipped(part))) return;
    let st: Stats | undefined;
    try {
      st = lstatSync(fsPath(this.root, rel));
    } catch {
      st = undefined;
    }
    if (st?.isDirectory() === true && this.isMountPoint(rel)) st = undefined;
    const known = this.index.get(rel);
    if (
      st === undefined ||
      (!st.isDirectory() && !st.isFile() && !st.isSymbolicLink()) ||
      this.rules.ignored(rel, st.isDirectory())
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
    this.put(rel, this.examine(rel, st, known, notes, stored, budgetKey));
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
      names = readdirSync(fsPath(this.root, dirRel), { encoding: 'buffer' });
    } catch {
      return;
    }
    for (const bytes of names) {
      const name = keyOfName(bytes);
      if (skipped(name)) continue;
      const rel = childKey(dirRel, name);
      let st: Stats;
      try {
        st = lstatSync(fsPath(this.root, rel));
      } catch (error) {
        if (errorCode(error) === 'ENAMETOOLONG')
          notes.push(`${shown(rel)}: not checkpointed: its path is longer than the system allows`);
        continue;
      }
      if (st.isDirectory()) {
        if (this.rules.ignored(rel, true) || this.isMountPoint(rel)) continue;
        await this.walkDir(rel, st, previous, notes, stored, budgetKey);
      } else if (st.isFile() || st.isSymbolicLink()) {
        if (this.rules.ignored(rel, false)) continue;
        this.put(rel, this.examine(rel, st, previous.get(rel), notes, stored, budgetKey));
      }
      this.sinceYield += 1;
      if (this.sinceYield >= YIELD_EVERY) {
        this.sinceYield = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
  }

  /** A folder the sandbox made to mount a placeholder on, present only while a command runs. */
  private isMountPoint(rel: string): boolean {
    try {
      return isPlaceholderFolder(rel.slice(rel.lastIndexOf('/') + 1), () => readdirSync(fsPath(this.root, rel)));
    } catch {
      return false;
    }
  }

  /** The entry for a file or symlink; reads and stores content only when the stats changed. */
  private examine(
    rel: string,
    st: Stats,
    previous: Entry | undefined,
    notes: string[],
    stored: { bytes: number },
    budgetKey: string | null,
  ): Entry {
    const abs = fsPath(this.root, rel);
    if (st.isSymbolicLink()) {
      let target = '';
      try {
        target = readlinkSync(abs, 'utf8');
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
    const bytes = readRegularFile(abs, st);
    if (bytes === null) return statOnly;
    const put = this.options.blobs.put(bytes);
    stored.bytes += put.written;
    if (key !== null) this.spent.set(key, spent + bytes.length);
    return { ...statOnly, size: bytes.length, hash: put.hash };
  }
}

/**
 * The content of the regular file `abs` that `st` describes; null when it is no longer that file (a
 * symlink, a FIFO or another file was put in its place since it was looked at: never followed or read).
 */
function readRegularFile(abs: string | Buffer, st: Stats): Buffer | null {
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const now = fstatSync(fd);
    if (!now.isFile() || now.ino !== st.ino || now.dev !== st.dev) return null;
    return readFileSync(fd);
  } catch {
    return null;
  } finally {
    closeSync(fd);
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
