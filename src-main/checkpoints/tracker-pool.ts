/**
 * The open trackers of one checkpoint service, one per workspace, bounded: each holds a file index and an
 * inotify watch per folder, and a host touches many workspaces over its life. The least recently used
 * beyond `max`, and any unused for `idleMs`, is closed; never the one just asked for, one that is looking,
 * or one between a call's `begin` and `end` (a command running there). A tracker is closed after saving
 * its index, and the next tracker of that workspace resumes from it (reporting what changed meanwhile).
 */
import type { WorkspaceTracker } from './tracker';
import type { Disposable } from '../util/disposable';

export interface TrackerPoolOptions {
  /** Makes the tracker of `root`; `resume`: an earlier one saved an exact index on closing. */
  make(root: string, resume: boolean): WorkspaceTracker;
  /** Open trackers kept at most (default 16). */
  max?: number;
  /** A tracker unused this long is closed (default 10 minutes). */
  idleMs?: number;
}

export class TrackerPool implements Disposable {
  /** Open trackers, least recently used first. */
  private readonly open = new Map<string, WorkspaceTracker>();
  /** Trackers being closed (their index being saved): a new one for the root waits for it. */
  private readonly closing = new Map<string, Promise<boolean>>();
  /** Roots whose tracker was closed with its index saved. */
  private readonly resumable = new Set<string>();
  /** Calls between `begin` and `end`, per root. */
  private readonly calls = new Map<string, number>();
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly options: TrackerPoolOptions) {}

  private get max(): number {
    return Math.max(1, this.options.max ?? 16);
  }

  private get idleMs(): number {
    return this.options.idleMs ?? 10 * 60 * 1000;
  }

  /** The tracker of `root` (made, or made again after it was closed, on first use). */
  async get(root: string): Promise<WorkspaceTracker> {
    for (let closing = this.closing.get(root); closing !== undefined; closing = this.closing.get(root)) await closing;
    const tracker = this.open.get(root) ?? this.options.make(root, this.resumable.delete(root));
    // Most recently used last.
    this.open.delete(root);
    this.open.set(root, tracker);
    tracker.lastUsed = Date.now();
    this.evict(root);
    this.sweepLater();
    return tracker;
  }

  /** No tracker of `root` was opened by this pool yet (none open, being closed, or closed with its index saved). */
  untouched(root: string): boolean {
    return !this.open.has(root) && !this.closing.has(root) && !this.resumable.has(root);
  }

  /** A call that may change files in `root` starts: its tracker stays open until `end`. */
  begin(root: string): void {
    this.calls.set(root, (this.calls.get(root) ?? 0) + 1);
  }

  end(root: string): void {
    const calls = (this.calls.get(root) ?? 0) - 1;
    if (calls > 0) this.calls.set(root, calls);
    else this.calls.delete(root);
  }

  /** How many workspaces have an open tracker, and the folders they watch. */
  get stats(): { trackers: number; watchedDirs: number } {
    let watchedDirs = 0;
    for (const tracker of this.open.values()) watchedDirs += tracker.watchedDirs;
    return { trackers: this.open.size, watchedDirs };
  }

  /** Saves every open tracker's index. */
  async persistAll(): Promise<void> {
    for (const tracker of this.open.values()) await tracker.persist();
  }

  /** Closes every tracker (saving its index) and waits for those being closed. */
  async dispose(): Promise<void> {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
    const trackers = [...this.open.values()];
    this.open.clear();
    await Promise.all([...trackers.map((tracker) => tracker.dispose()), ...this.closing.values()]);
  }

  /** While trackers are open, looks for idle ones now and then (the host may sit idle for hours). */
  private sweepLater(): void {
    if (this.sweeper !== null) return;
    this.sweeper = setInterval(
      () => {
        this.evict(null);
        if (this.open.size === 0 && this.sweeper !== null) {
          clearInterval(this.sweeper);
          this.sweeper = null;
        }
      },
      Math.max(1000, Math.min(this.idleMs, 60_000)),
    );
    this.sweeper.unref();
  }

  private evict(keep: string | null): void {
    const now = Date.now();
    let excess = this.open.size - this.max;
    for (const [root, tracker] of this.open) {
      if (root === keep || (this.calls.get(root) ?? 0) > 0 || tracker.busy) continue;
      const idle = now - tracker.lastUsed >= this.idleMs;
      if (excess <= 0 && !idle) continue;
      excess -= 1;
      this.open.delete(root);
      const closed = tracker.close().then(
        (saved) => {
          if (saved) this.resumable.add(root);
          return saved;
        },
        () => false,
      );
      this.closing.set(
        root,
        closed.finally(() => this.closing.delete(root)),
      );
    }
  }
}
