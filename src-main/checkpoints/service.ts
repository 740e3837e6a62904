/**
 * The checkpoint store of one WEFT_HOME (`checkpoints/`): trackers per workspace, records per thread,
 * restore with conflict checks, retention and garbage collection. Tool runners call `beforeChange`
 * before a call that may change files and `afterToolCall` after it; `revert` puts files back.
 */
import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DiscardStore } from './discards';
import { ForkRecords } from './fork-records';
import { BlobStore } from './blob-store';
import { CheckpointConflictError, CheckpointError } from './errors';
import { RecordLog, recordHashes } from './records';
import { shown } from './path-key';
import {
  applyRestore,
  recoverRestores,
  type ApplyHooks,
  type DesiredState,
  type NotRestored,
  type PendingRevert,
} from './restore-apply';
import { removeJournal, type ThreadRevert } from './restore-journal';
import { WorkspaceTracker } from './tracker';
import {
  DEFAULT_LIMITS,
  DEFAULT_RETENTION,
  sameContent,
  type Change,
  type CheckpointLimits,
  type CheckpointRecord,
  type Entry,
  type RecordSource,
  type RetentionPolicy,
} from './types';
import { indexHashes } from './workspace-index';

export interface CheckpointServiceOptions {
  weftHome: string;
  limits?: Partial<CheckpointLimits>;
  retention?: Partial<RetentionPolicy>;
  /** Use directory watchers where available (default true). */
  watch?: boolean;
  now?: () => Date;
  /**
   * Workspaces whose tracker (file index and inotify watches) is kept at most (default 16); the
   * least recently used beyond it is closed. A closed tracker's index is saved, and the next look at
   * that workspace compares against it, so nothing is lost but the watches.
   */
  maxTrackers?: number;
  /** A tracker not used for this long is closed (default 10 minutes). */
  trackerIdleMs?: number;
}

/** A turn whose files were not (all) checkpointed, and why. */
export interface CheckpointGap {
  turnId: string;
  reason: string;
}

/** What a restore would do to one path. */
export interface RestorePlanItem {
  path: string;
  /** The state the agent left (what the file should be now). */
  expected: Entry | null;
  /** The state on disk now. */
  current: Entry | null;
  /** The state it will be put back to. */
  target: Entry | null;
  conflict: boolean;
  /** Why the path cannot be restored (e.g. its earlier version was not checkpointed: too large). */
  unrestorable?: string;
}

export interface RestoreOutcome {
  /** Paths written, created or removed (and found so once the restore was done). */
  restored: string[];
  /** Paths of the plan left as they were, each with the reason. */
  notRestored: NotRestored[];
  /** Paths that differed from what the agent left and were overwritten (force); their versions are in a `force-save` record. */
  overwritten: string[];
  /** Paths of the plan left as they were because the request kept them. */
  kept: string[];
  notes: string[];
  record: CheckpointRecord | null;
  /**
   * The journal of the restore, kept until the thread's revert is written (`finishRevert`); null when
   * the request named no thread revert or nothing was written.
   */
  pending: string | null;
}

export interface RestoreRequest {
  threadId: string;
  root: string;
  /** The turns whose changes are undone (the chosen turn and every later one). */
  turnIds: readonly string[];
  force?: boolean;
  /** Paths left exactly as they are now (the user keeps their version); every other path is restored. */
  keep?: readonly string[];
  hooks?: ApplyHooks;
  /**
   * The thread revert this restore is part of: after a crash, start-up finishes the files and then
   * drops these turns too (see `recover`).
   */
  thread?: ThreadRevert;
}

export class CheckpointService {
  readonly dir: string;
  readonly blobs: BlobStore;
  readonly records: RecordLog;
  readonly forks: ForkRecords;
  /** Open trackers, least recently used first. */
  private readonly trackers = new Map<string, WorkspaceTracker>();
  /** Trackers being closed (their index being saved): a new one for the root waits for it. */
  private readonly closing = new Map<string, Promise<boolean>>();
  /** Roots whose tracker was closed with its index saved: the next look reports changes since. */
  private readonly resumable = new Set<string>();
  /** Calls between `beforeChange` and `afterToolCall`, per root: such a tracker is never closed. */
  private readonly open = new Map<string, number>();
  private readonly limits: CheckpointLimits;
  private readonly retention: RetentionPolicy;
  private readonly now: () => Date;
  /** Failed checkpoints by thread and turn (also on disk when the record could be written). */
  private readonly failed = new Map<string, string>();

  constructor(private readonly options: CheckpointServiceOptions) {
    this.dir = join(options.weftHome, 'checkpoints');
    this.blobs = new BlobStore(this.dir);
    this.records = new RecordLog(this.dir);
    this.forks = new ForkRecords(this.dir);
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.retention = { ...DEFAULT_RETENTION, ...options.retention };
    this.now = options.now ?? (() => new Date());
  }

  get journalDir(): string {
    return join(this.dir, 'restores');
  }

  /**
   * Finishes the restores a process that died left half done (hosts call it at start-up, before they
   * answer anyone). Returns the thread reverts whose files are back and whose turns are still to be
   * dropped: the host drops them, then calls `finishRevert`.
   */
  async recover(): Promise<{ pending: PendingRevert[]; warnings: string[] }> {
    return recoverRestores(this.journalDir);
  }

  /** The thread's revert of a restore (its `pending` journal) is written: the journal goes. */
  async finishRevert(journal: string): Promise<void> {
    await removeJournal(this.journalDir, journal);
  }

  /** The tracker of a workspace (made, or made again after it was closed, on first use). */
  async tracker(root: string): Promise<WorkspaceTracker> {
    for (let closing = this.closing.get(root); closing !== undefined; closing = this.closing.get(root)) await closing;
    let tracker = this.trackers.get(root);
    if (tracker === undefined) {
      tracker = new WorkspaceTracker({
        root,
        checkpointsDir: this.dir,
        blobs: this.blobs,
        limits: this.limits,
        watch: this.options.watch,
        resume: this.resumable.delete(root),
      });
    }
    // Most recently used last.
    this.trackers.delete(root);
    this.trackers.set(root, tracker);
    tracker.lastUsed = Date.now();
    this.evict();
    return tracker;
  }

  /** How many workspaces have an open tracker, and the directories they watch. */
  get openTrackers(): { trackers: number; watchedDirs: number } {
    let watchedDirs = 0;
    for (const tracker of this.trackers.values()) watchedDirs += tracker.watchedDirs;
    return { trackers: this.trackers.size, watchedDirs };
  }

  /** Closes trackers beyond the bound (least recently used first) and those idle too long. */
  private evict(): void {
    const max = Math.max(1, this.options.maxTrackers ?? 16);
    const idleMs = this.options.trackerIdleMs ?? 10 * 60 * 1000;
    const now = Date.now();
    let excess = this.trackers.size - max;
    for (const [root, tracker] of this.trackers) {
      if ((this.open.get(root) ?? 0) > 0 || tracker.busy) continue;
      const idle = now - tracker.lastUsed >= idleMs;
      if (excess <= 0 && !idle) continue;
      excess -= 1;
      this.trackers.delete(root);
      const closed = tracker.dispose().then(
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

  /**
   * Takes stock before a call that may change files: the current content of every file is in the
   * store afterwards (the first call walks the workspace). Changes found here were made by someone
   * else and belong to no turn. The workspace's tracker stays open until the matching `afterToolCall`.
   */
  async beforeChange(root: string): Promise<void> {
    this.open.set(root, (this.open.get(root) ?? 0) + 1);
    const tracker = await this.tracker(root);
    await tracker.sync(null);
    tracker.persistSoon();
  }

  /** Records what a tool call changed. Null when it changed nothing. */
  async afterToolCall(input: {
    threadId: string;
    turnId: string;
    callId: string | null;
    root: string;
  }): Promise<CheckpointRecord | null> {
    try {
      const tracker = await this.tracker(input.root);
      const scan = await tracker.sync(input.turnId);
      if (scan.changes.length === 0 && scan.notes.length === 0) return null;
      const record = await this.append(
        input.threadId,
        input.turnId,
        input.callId,
        'tool',
        input.root,
        scan.changes,
        scan.notes,
      );
      tracker.persistSoon();
      return record;
    } finally {
      const open = (this.open.get(input.root) ?? 0) - 1;
      if (open > 0) this.open.set(input.root, open);
      else this.open.delete(input.root);
    }
  }

  /**
   * Notes that a checkpoint of the turn failed: what its calls changed may not be restorable, so its
   * undo says so (`gaps`) before anything is written. Kept on disk with the thread's records and in
   * memory (should the disk be why it failed).
   */
  async checkpointFailed(input: { threadId: string; turnId: string; root: string; reason: string }): Promise<void> {
    this.failed.set(`${input.threadId}\u0000${input.turnId}`, input.reason);
    await this.append(input.threadId, input.turnId, null, 'tool', input.root, [], [], input.reason);
  }

  /** The turns among `turnIds` whose checkpoint failed, with the reason (in the order of `turnIds`). */
  async gaps(threadId: string, turnIds: readonly string[]): Promise<CheckpointGap[]> {
    const reasons = new Map<string, string>();
    for (const record of await this.records.read(threadId))
      if (record.failure !== undefined && record.turnId !== null && !reasons.has(record.turnId))
        reasons.set(record.turnId, record.failure);
    const gaps: CheckpointGap[] = [];
    for (const turnId of turnIds) {
      const reason = reasons.get(turnId) ?? this.failed.get(`${threadId}\u0000${turnId}`);
      if (reason !== undefined) gaps.push({ turnId, reason });
    }
    return gaps;
  }

  /** What undoing `turnIds` would do, with conflicts; writes nothing. */
  async plan(request: Omit<RestoreRequest, 'force' | 'hooks'>): Promise<RestorePlanItem[]> {
    const tracker = await this.tracker(request.root);
    return tracker.exclusive(async () => {
      await tracker.syncUnlocked(null);
      return this.planUnlocked(request, tracker);
    });
  }

  /**
   * Undoes the file changes of `turnIds`. Throws CheckpointConflictError (nothing written) when a
   * file differs from what the agent left, unless `force`.
   */
  async revert(request: RestoreRequest): Promise<RestoreOutcome> {
    const tracker = await this.tracker(request.root);
    return tracker.exclusive(async () => {
      await tracker.syncUnlocked(null);
      const keep = new Set(request.keep ?? []);
      const plan = await this.planUnlocked(request, tracker);
      const kept = plan.filter((item) => keep.has(item.path)).map((item) => item.path);
      const outcome = await this.execute(
        request,
        plan.filter((item) => !keep.has(item.path)),
        tracker,
      );
      return { ...outcome, kept };
    });
  }

  /** Undoes the thread's last restore (files only), with the same conflict rules. */
  async redo(request: { threadId: string; root: string; force?: boolean }): Promise<RestoreOutcome> {
    const last = [...(await this.records.read(request.threadId))]
      .reverse()
      .find((record) => record.source === 'restore' || (record.source === 'tool' && record.failure === undefined));
    if (last?.source !== 'restore')
      throw new CheckpointError('There is no restore to redo: the thread changed files after it, or never restored.');
    const tracker = await this.tracker(request.root);
    return tracker.exclusive(async () => {
      await tracker.syncUnlocked(null);
      const plan = last.changes.map((change) => this.planItem(tracker, change.path, change.after, change.before));
      return this.execute({ ...request, turnIds: [] }, plan, tracker);
    });
  }

  /**
   * The workspace as it was after the last of `keptTurnIds`' changes, i.e. now with the changes of
   * `laterTurnIds` taken back. Used to fork a thread with its files.
   */
  async stateWithout(request: {
    threadId: string;
    root: string;
    laterTurnIds: readonly string[];
  }): Promise<Map<string, Entry>> {
    const tracker = await this.tracker(request.root);
    return tracker.exclusive(async () => {
      await tracker.syncUnlocked(null);
      const state = tracker.snapshot();
      for (const [path, span] of await this.spans(request.threadId, request.laterTurnIds)) {
        if (span.first === null) state.delete(path);
        else state.set(path, span.first);
      }
      return state;
    });
  }

  /** Drops records past retention and blobs nothing refers to. */
  async gc(graceMs = 10 * 60 * 1000): Promise<{
    droppedRecords: number;
    removedBlobs: number;
    freedBytes: number;
    keptBytes: number;
  }> {
    let droppedRecords = 0;
    for (const thread of await this.records.threads())
      droppedRecords += await this.records.applyRetention(thread, this.retention, this.now().getTime());
    for (const tracker of this.trackers.values()) await tracker.persist();
    const keep = new Set<string>();
    for (const thread of await this.records.threads())
      for (const record of await this.records.read(thread)) for (const hash of recordHashes(record)) keep.add(hash);
    const workspacesDir = join(this.dir, 'workspaces');
    let indexFiles: string[];
    try {
      indexFiles = (await readdir(workspacesDir)).filter((name) => name.endsWith('.json.gz'));
    } catch {
      indexFiles = [];
    }
    for (const name of indexFiles) for (const hash of await indexHashes(join(workspacesDir, name))) keep.add(hash);
    // Content the Changes panel discarded stays restorable.
    for (const hash of await new DiscardStore(this.options.weftHome).hashes()) keep.add(hash);
    // The state each fork started from ("Compare with parent").
    for (const hash of await this.forks.hashes()) keep.add(hash);
    // Blob ages are file times: compared with the real clock.
    const collected = await this.blobs.collect(keep, graceMs, Date.now());
    return {
      droppedRecords,
      removedBlobs: collected.removed,
      freedBytes: collected.freedBytes,
      keptBytes: collected.keptBytes,
    };
  }

  /** Bytes the store takes (blobs + records). */
  async sizeOnDisk(): Promise<number> {
    return (await this.blobs.sizeOnDisk()) + (await this.records.sizeOnDisk());
  }

  /** Closes every tracker (saving its index) and waits for trackers being closed. */
  async dispose(): Promise<void> {
    const trackers = [...this.trackers.values()];
    this.trackers.clear();
    await Promise.all([...trackers.map((tracker) => tracker.dispose()), ...this.closing.values()]);
  }

  /** For each path the thread's tool calls in `turnIds` changed: its state before the first and after the last. */
  private async spans(
    threadId: string,
    turnIds: readonly string[],
  ): Promise<Map<string, { first: Entry | null; last: Entry | null }>> {
    const wanted = new Set(turnIds);
    const spans = new Map<string, { first: Entry | null; last: Entry | null }>();
    for (const record of await this.records.read(threadId)) {
      if (record.source !== 'tool' || record.turnId === null || !wanted.has(record.turnId)) continue;
      for (const change of record.changes) {
        const span = spans.get(change.path);
        if (span === undefined) spans.set(change.path, { first: change.before, last: change.after });
        else span.last = change.after;
      }
    }
    return spans;
  }

  private async planUnlocked(
    request: Omit<RestoreRequest, 'force' | 'hooks'>,
    tracker: WorkspaceTracker,
  ): Promise<RestorePlanItem[]> {
    const items: RestorePlanItem[] = [];
    for (const [path, span] of await this.spans(request.threadId, request.turnIds)) {
      if (sameContent(span.first, span.last)) continue;
      items.push(this.planItem(tracker, path, span.last, span.first));
    }
    return items.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  private planItem(
    tracker: WorkspaceTracker,
    path: string,
    expected: Entry | null,
    target: Entry | null,
  ): RestorePlanItem {
    const current = tracker.entry(path);
    const item: RestorePlanItem = { path, expected, current, target, conflict: !sameContent(current, expected) };
    if (target?.kind === 'file' && target.hash === null)
      item.unrestorable = 'its earlier version was not checkpointed (too large)';
    // A folder is compared by existence only: its files are items of their own.
    if (expected?.kind === 'dir' && current?.kind === 'dir') item.conflict = false;
    return item;
  }

  private async execute(
    request: RestoreRequest,
    plan: RestorePlanItem[],
    tracker: WorkspaceTracker,
  ): Promise<RestoreOutcome> {
    const lost: NotRestored[] = plan.flatMap((item) =>
      item.unrestorable !== undefined ? [{ path: item.path, reason: item.unrestorable }] : [],
    );
    const active = plan.filter((item) => item.unrestorable === undefined && !sameContent(item.current, item.target));
    const conflicts = active.filter((item) => item.conflict).map((item) => item.path);
    if (conflicts.length > 0 && request.force !== true) throw new CheckpointConflictError(conflicts);
    if (conflicts.length > 0) {
      // The user's versions go into the store first, so the forced restore can itself be undone.
      const saved: Change[] = active
        .filter((item) => item.conflict)
        .map((item) => ({ path: item.path, before: item.expected, after: item.current }));
      await this.append(request.threadId, null, null, 'force-save', request.root, saved, []);
    }
    if (active.length === 0)
      return { restored: [], notRestored: lost, overwritten: [], kept: [], notes: [], record: null, pending: null };
    const desired: DesiredState[] = active.map((item) => ({
      path: item.path,
      state: item.target,
      current: item.current,
    }));
    const applied = await applyRestore({
      root: request.root,
      journalDir: this.journalDir,
      blobs: this.blobs,
      desired,
      hooks: request.hooks,
      thread: request.thread ?? null,
    });
    const scan = await tracker.syncUnlocked(null);
    // What the restore calls restored is what the look after it found: a path something else changed
    // meanwhile (a process still writing in the project) is reported, not claimed.
    const targets = new Map(active.map((item) => [item.path, item.target]));
    const restored: string[] = [];
    const notRestored = [...lost, ...applied.notRestored];
    for (const path of applied.restored) {
      const target = targets.get(path) ?? null;
      const now = tracker.entry(path);
      const same = target?.kind === 'dir' ? now?.kind === 'dir' : sameContent(now, target);
      if (same) restored.push(path);
      else
        notRestored.push({
          path,
          reason: 'it changed while it was being restored (is a command still writing there?)',
        });
    }
    notRestored.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const done = new Set(restored);
    const notes = notRestored.map((item) => `${shown(item.path)}: not restored: ${item.reason}`);
    const record =
      scan.changes.length > 0
        ? await this.append(request.threadId, null, null, 'restore', request.root, scan.changes, notes)
        : null;
    tracker.persistSoon();
    return {
      restored,
      notRestored,
      overwritten: conflicts.filter((path) => done.has(path)),
      kept: [],
      notes: [],
      record,
      pending: applied.pending,
    };
  }

  private async append(
    threadId: string,
    turnId: string | null,
    callId: string | null,
    source: RecordSource,
    root: string,
    changes: Change[],
    notes: string[],
    failure?: string,
  ): Promise<CheckpointRecord> {
    const record: CheckpointRecord = {
      v: 1,
      id: randomUUID(),
      at: this.now().toISOString(),
      threadId,
      turnId,
      callId,
      source,
      root,
      changes,
      notes,
      ...(failure === undefined ? {} : { failure }),
    };
    await this.records.append(record);
    return record;
  }
}
