// Hand-written on purpose over node:fs.watch: the tracker needs raw-byte names, the barrier proof that the
// one inotify queue has delivered everything, and `lost` when a watch fails; watcher packages debounce and hide these.
/**
 * Collects the paths that may have changed under a workspace, so a scan after a command looks at
 * those only. One inotify watch per directory (Linux). All of a process's watches share one kernel
 * queue, delivered in order, so an event on a private "barrier" directory written after a command
 * ended proves that every event the command caused has arrived. Anything that makes the picture
 * unreliable (a watch that cannot be added, an event without a name, a flood of events) sets `lost`, and the tracker
 * falls back to a full walk.
 */
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { childKey, fsPath, keyOfName } from './path-key';
import type { Disposable } from '../util/disposable';

const BARRIER_TIMEOUT_MS = 5000;
/**
 * A flood: this many events within FLOOD_WINDOW_MS. A process renaming or writing in a loop makes
 * hundreds of thousands of events a second, each read on the host's thread; past this rate the watches
 * are closed and the next look walks the tree (which puts them back), as after a lost event.
 */
const FLOOD_EVENTS = 10_000;
const FLOOD_WINDOW_MS = 1000;
/** More candidates than this and a walk is cheaper than looking at each: the set is dropped for one. */
const MAX_CANDIDATES = 50_000;

export class DirWatcher implements Disposable {
  private readonly watchers = new Map<string, FSWatcher>();
  private dirty = new Set<string>();
  private barrierWatcher: FSWatcher | null = null;
  private readonly barrierWaiters = new Map<string, () => void>();
  private barrierCount = 0;
  /** True when events may have been missed since the last `take()`. */
  lost = false;
  /** Events read since the watcher was made (for tests and diagnostics). */
  eventsRead = 0;
  /** Floods met, each of which closed every watch. */
  floods = 0;
  private windowStart = performance.now();
  private windowEvents = 0;

  constructor(
    private readonly root: string,
    private readonly barrierDir: string,
  ) {}

  static supported(): boolean {
    return process.platform === 'linux';
  }

  /** Starts watching one directory (relative path, '' = root). False if the OS refused (limits). */
  add(dirRel: string): boolean {
    if (this.watchers.has(dirRel)) return true;
    try {
      const watcher = watch(fsPath(this.root, dirRel), { persistent: false, encoding: 'buffer' }, (_event, name) => {
        if (this.counted()) return;
        if (name === null || name.length === 0 || this.dirty.size >= MAX_CANDIDATES) {
          this.lost = true;
          this.dirty.clear();
          return;
        }
        this.dirty.add(childKey(dirRel, keyOfName(name)));
      });
      watcher.on('error', () => {
        // The directory went away (its parent's event reports that) or the watch broke.
        this.watchers.delete(dirRel);
        watcher.close();
      });
      this.watchers.set(dirRel, watcher);
      return true;
    } catch {
      this.lost = true;
      return false;
    }
  }

  /**
   * Counts an event; true when it ended a flood (every watch closed, the next look walks). The clock is
   * read once per FLOOD_EVENTS events, so counting costs nothing in the common case.
   */
  private counted(): boolean {
    this.eventsRead += 1;
    this.windowEvents += 1;
    if (this.windowEvents < FLOOD_EVENTS) return false;
    const now = performance.now();
    const flooded = now - this.windowStart <= FLOOD_WINDOW_MS;
    this.windowStart = now;
    this.windowEvents = 0;
    if (!flooded) return false;
    this.floods += 1;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.dirty.clear();
    this.lost = true;
    return true;
  }

  /** Stops watching a directory and everything below it. */
  removeTree(dirRel: string): void {
    for (const [rel, watcher] of this.watchers) {
      if (rel === dirRel || rel.startsWith(`${dirRel}/`)) {
        watcher.close();
        this.watchers.delete(rel);
      }
    }
  }

  /** Resolves once every event queued before the call has been delivered. */
  async barrier(): Promise<void> {
    if (this.barrierWatcher === null) {
      await mkdir(this.barrierDir, { recursive: true });
      this.barrierWatcher = watch(this.barrierDir, { persistent: false }, (_event, name) => {
        if (name === null) return;
        const resolve = this.barrierWaiters.get(name.toString());
        if (resolve !== undefined) {
          this.barrierWaiters.delete(name.toString());
          resolve();
        }
      });
    }
    this.barrierCount += 1;
    const name = `b${this.barrierCount}`;
    const file = join(this.barrierDir, name);
    await new Promise<void>((resolve) => {
      // The timer keeps the process alive while waiting and, should the event never come, makes
      // the next look a full walk instead of trusting an incomplete picture.
      const timer = setTimeout(() => {
        this.barrierWaiters.delete(name);
        this.lost = true;
        resolve();
      }, BARRIER_TIMEOUT_MS);
      this.barrierWaiters.set(name, () => {
        clearTimeout(timer);
        resolve();
      });
      writeFile(file, '').catch(() => {
        // No event will come: the timer above makes the next look a walk.
      });
    });
    await unlink(file).catch(() => undefined);
  }

  /** The paths seen since the last call (and whether any were missed). */
  take(): { paths: Set<string>; lost: boolean } {
    const taken = { paths: this.dirty, lost: this.lost };
    this.dirty = new Set();
    this.lost = false;
    return taken;
  }

  get size(): number {
    return this.watchers.size;
  }

  /** Closes every watch at once; the barrier folder is removed by the returned promise. */
  dispose(): Promise<void> {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.barrierWatcher?.close();
    this.barrierWatcher = null;
    for (const resolve of this.barrierWaiters.values()) resolve();
    this.barrierWaiters.clear();
    return rm(this.barrierDir, { recursive: true, force: true });
  }
}
