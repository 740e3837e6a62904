/**
 * The checkpoint store of one WEFT_HOME (`checkpoints/`): trackers per workspace, records per thread,
 * restore with conflict checks, retention and garbage collection. Tool runners call `beforeChange`
 * before a call that may change files and `afterToolCall` after it; `revert` puts files back.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
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

/** A plan item about a folder: it goes back to a folder, or a folder goes away (not a file or link). */
export function isFolder(item: Pick<RestorePlanItem, 'expected' | 'current' | 'target'>): boolean {
  if (item.target !== null) return item.target.kind === 'dir';
  return item.current?.kind === 'dir' || item.expected?.kind === 'dir';
}

export interface RestoreOutcome {
  /**
   * Files and links written, created or removed, and found so once the restore was done, through the
   * folders it wrote into (each still at its name); not folders.
   */
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
  private readonly trackers = new Map<string, WorkspaceTracker>();
  private readonly limits: CheckpointLimits;
  private readonly retention: RetentionPolicy;
  private readonly now: () => Date;

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

  /** The tracker of a workspace. */
  tracker(root: string): WorkspaceTracker {
    let tracker = this.trackers.get(root);
    if (tracker === undefined) {
      tracker = new WorkspaceTracker({
        root,
        checkpointsDir: this.dir,
        blobs: this.blobs,
        limits: this.limits,
        watch: this.options.watch,
      });
      this.trackers.set(root, tracker);
    }
    return tracker;
  }

  /**
   * Takes stock before a call that may change files: the current content of every file is in the
   * store afterwards (the first call walks the workspace). Changes found here were made by someone
   * else and belong to no turn.
   */
  async beforeChange(root: string): Promise<void> {
    const tracker = this.tracker(root);
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
    const tracker = this.tracker(input.root);
    const scan = await tracker.sync(input.turnId);
    if (scan.changes.length === 0 && scan.notes.length === 0) return null;
    const record = this.append(
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
  }

  /** What undoing `turnIds` would do, with conflicts; writes nothing. */
  async plan(request: Omit<RestoreRequest, 'force' | 'hooks'>): Promise<RestorePlanItem[]> {
    const tracker = this.tracker(request.root);
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
    const tracker = this.tracker(request.root);
    return tracker.exclusive(async () => {
      await tracker.syncUnlocked(null);
      const keep = new Set(request.keep ?? []);
      const plan = this.planUnlocked(request, tracker);
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
    const last = [...this.records.read(request.threadId)]
      .reverse()
      .find((record) => record.source === 'restore' || record.source === 'tool');
    if (last?.source !== 'restore')
      throw new CheckpointError('There is no restore to redo: the thread changed files after it, or never restored.');
    const tracker = this.tracker(request.root);
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
    const tracker = this.tracker(request.root);
    return tracker.exclusive(async () => {
      await tracker.syncUnlocked(null);
      const state = tracker.snapshot();
      for (const [path, span] of this.spans(request.threadId, request.laterTurnIds)) {
        if (span.first === null) state.delete(path);
        else state.set(path, span.first);
      }
      return state;
    });
  }

  /** Drops records past retention and blobs nothing refers to. */
  gc(graceMs = 10 * 60 * 1000): {
    droppedRecords: number;
    removedBlobs: number;
    freedBytes: number;
    keptBytes: number;
  } {
    let droppedRecords = 0;
    for (const thread of this.records.threads())
      droppedRecords += this.records.applyRetention(thread, this.retention, this.now().getTime());
    for (const tracker of this.trackers.values()) tracker.persist();
    const keep = new Set<string>();
    for (const thread of this.records.threads())
      for (const record of this.records.read(thread)) for (const hash of recordHashes(record)) keep.add(hash);
    const workspacesDir = join(this.dir, 'workspaces');
    let indexFiles: string[];
    try {
      indexFiles = readdirSync(workspacesDir).filter((name) => name.endsWith('.json.gz'));
    } catch {
      indexFiles = [];
    }
    for (const name of indexFiles) for (const hash of indexHashes(join(workspacesDir, name))) keep.add(hash);
    // Content the Changes panel discarded stays restorable.
    for (const hash of new DiscardStore(this.options.weftHome).hashes()) keep.add(hash);
    // The state each fork started from ("Compare with parent").
    for (const hash of this.forks.hashes()) keep.add(hash);
    // Blob ages are file times: compared with the real clock.
    const collected = this.blobs.collect(keep, graceMs, Date.now());
    return {
      droppedRecords,
      removedBlobs: collected.removed,
      freedBytes: collected.freedBytes,
      keptBytes: collected.keptBytes,
    };
  }

  /** Bytes the store takes (blobs + records). */
  sizeOnDisk(): number {
    return this.blobs.sizeOnDisk() + this.records.sizeOnDisk();
  }

  dispose(): void {
    for (const tracker of this.trackers.values()) tracker.dispose();
    this.trackers.clear();
  }

  /** For each path the thread's tool calls in `turnIds` changed: its state before the first and after the last. */
  private spans(
    threadId: string,
    turnIds: readonly string[],
  ): Map<string, { first: Entry | null; last: Entry | null }> {
    const wanted = new Set(turnIds);
    const spans = new Map<string, { first: Entry | null; last: Entry | null }>();
    for (const record of this.records.read(threadId)) {
      if (record.source !== 'tool' || record.turnId === null || !wanted.has(record.turnId)) continue;
      for (const change of record.changes) {
        const span = spans.get(change.path);
        if (span === undefined) spans.set(change.path, { first: change.before, last: change.after });
        else span.last = change.after;
      }
    }
    return spans;
  }

  private planUnlocked(request: Omit<RestoreRequest, 'force' | 'hooks'>, tracker: WorkspaceTracker): RestorePlanItem[] {
    const items: RestorePlanItem[] = [];
    for (const [path, span] of this.spans(request.threadId, request.turnIds)) {
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
      this.append(request.threadId, null, null, 'force-save', request.root, saved, []);
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
    // The index follows the workspace; what the restore did is what applyRestore found through the
    // folders it wrote into. A look by path cannot tell that: while a process moves folders it reads
    // whatever the names lead to at that moment (outside the workspace, through a swapped-in symlink).
    await tracker.syncUnlocked(null);
    const byPath = new Map(active.map((item) => [item.path, item]));
    const restored = applied.restored;
    const notRestored = [...lost, ...applied.notRestored].sort((a, b) =>
      a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
    );
    const done = new Set(restored);
    // Folders come and go with their files; what a restore says it restored is files and links, as the
    // preview lists them.
    const folders = new Set(active.filter((item) => isFolder(item)).map((item) => item.path));
    const notes = notRestored.map((item) => `${shown(item.path)}: not restored: ${item.reason}`);
    // The record (what Redo takes back) holds the restore's own changes only: what another process
    // changed meanwhile (a folder it moved, files it wrote) is not the restore's to take back.
    const changes: Change[] = restored.flatMap((path) => {
      const item = byPath.get(path);
      return item === undefined ? [] : [{ path, before: item.current, after: item.target }];
    });
    const record =
      changes.length > 0 ? this.append(request.threadId, null, null, 'restore', request.root, changes, notes) : null;
    tracker.persistSoon();
    return {
      restored: restored.filter((path) => !folders.has(path)),
      notRestored,
      overwritten: conflicts.filter((path) => done.has(path)),
      kept: [],
      notes: [],
      record,
      pending: applied.pending,
    };
  }

  private append(
    threadId: string,
    turnId: string | null,
    callId: string | null,
    source: RecordSource,
    root: string,
    changes: Change[],
    notes: string[],
  ): CheckpointRecord {
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
    };
    this.records.append(record);
    return record;
  }
}
