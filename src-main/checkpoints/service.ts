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
import { CheckpointError } from './errors';
import { revertHunkUnlocked, type HunkRevertRequest } from './hunk-revert';
import { RecordLog, recordHashes } from './records';
import { fsPath } from './path-key';
import { recoverRestores, type PendingRevert } from './restore-apply';
import { changeSpans, planItem, planUndo } from './restore-plan';
import { removeJournal } from './restore-journal';
import { WorkspaceTracker } from './tracker';
import { TrackerPool } from './tracker-pool';
import type {
  CheckpointGap,
  CheckpointServiceOptions,
  RestoreOutcome,
  RestorePlanItem,
  RestoreRequest,
} from './service-types';
import {
  DEFAULT_LIMITS,
  DEFAULT_RETENTION,
  type Change,
  type CheckpointLimits,
  type CheckpointRecord,
  type Entry,
  type RecordSource,
  type RetentionPolicy,
} from './types';
import { indexHashes } from './workspace-index';

export type {
  CheckpointGap,
  CheckpointServiceOptions,
  RestoreOutcome,
  RestorePlanItem,
  RestoreRequest,
} from './service-types';

export { isFolder } from './restore-run';
import { executeRestore } from './restore-run';
import type { Disposable } from '../util/disposable';

export class CheckpointService implements Disposable {
  readonly dir: string;
  readonly blobs: BlobStore;
  readonly records: RecordLog;
  readonly forks: ForkRecords;
  private readonly trackers: TrackerPool;
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
    this.trackers = new TrackerPool({
      make: (root, resume) =>
        new WorkspaceTracker({
          root,
          checkpointsDir: this.dir,
          blobs: this.blobs,
          limits: this.limits,
          watch: options.watch,
          resume,
        }),
      max: options.maxTrackers,
      idleMs: options.trackerIdleMs,
    });
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
  tracker(root: string): Promise<WorkspaceTracker> {
    return this.trackers.get(root);
  }

  /** How many workspaces have an open tracker, and the folders they watch. */
  get openTrackers(): { trackers: number; watchedDirs: number } {
    return this.trackers.stats;
  }

  /**
   * Starts the first look at a workspace in the background (a walk that stores every file's content:
   * seconds for a big project), so that a turn's first command or patch finds it done or under way
   * instead of starting it; a turn calls this as it starts, while the model thinks. Only for a workspace
   * no tracker of this service has looked at: a tracker closed earlier resumes from its saved index and
   * reports what changed meanwhile, which only a call may record. A failure is left to the call's own
   * look, which meets it again and reports it. The promise (which never rejects) settles when the look
   * is over; callers need not wait for it.
   */
  prepare(root: string): Promise<void> {
    if (!this.trackers.untouched(root)) return Promise.resolve();
    this.trackers.begin(root);
    return (async () => {
      try {
        const tracker = await this.tracker(root);
        await tracker.sync(null);
        tracker.persistSoon();
      } catch {
        /* the first call's look walks again and reports what fails */
      } finally {
        this.trackers.end(root);
      }
    })();
  }

  /**
   * Takes stock before a call that may change files: the current content of every file is in the
   * store afterwards (the first call walks the workspace). Changes found here were made between calls:
   * they are recorded as the turn `owner`'s (the turn whose command was left running in the background
   * meanwhile), or, without an owner, were made by someone else and belong to no turn. The workspace's
   * tracker stays open until the matching `afterToolCall`.
   */
  async beforeChange(root: string, owner?: { threadId: string; turnId: string }): Promise<CheckpointRecord | null> {
    this.trackers.begin(root);
    const tracker = await this.tracker(root);
    const scan = await tracker.sync(owner?.turnId ?? null);
    tracker.persistSoon();
    if (owner === undefined || (scan.changes.length === 0 && scan.notes.length === 0)) return null;
    return this.append(owner.threadId, owner.turnId, null, 'tool', root, scan.changes, scan.notes);
  }

  /**
   * Records what changes were made since the last look as the turn `owner`'s (a command of it kept
   * running after its call): outside any tool call, e.g. before a restore looks at the workspace.
   */
  async recordBetweenCalls(
    root: string,
    owner: { threadId: string; turnId: string },
  ): Promise<CheckpointRecord | null> {
    const tracker = await this.tracker(root);
    const scan = await tracker.sync(owner.turnId);
    if (scan.changes.length === 0 && scan.notes.length === 0) return null;
    tracker.persistSoon();
    return this.append(owner.threadId, owner.turnId, null, 'tool', root, scan.changes, scan.notes);
  }

  /** Records what a tool call changed. Null when it changed nothing. */
  async afterToolCall(input: {
    threadId: string;
    turnId: string;
    callId: string | null;
    root: string;
    background?: readonly { turnId: string; command: string }[];
  }): Promise<CheckpointRecord | null> {
    try {
      const tracker = await this.tracker(input.root);
      const scan = await tracker.sync(input.turnId);
      if (scan.changes.length === 0 && scan.notes.length === 0) return null;
      const background = input.background ?? [];
      const record = await this.append(
        input.threadId,
        input.turnId,
        input.callId,
        'tool',
        input.root,
        scan.changes,
        scan.notes,
        undefined,
        background.length > 0 && scan.changes.length > 0 ? [...background] : undefined,
      );
      tracker.persistSoon();
      return record;
    } finally {
      this.trackers.end(input.root);
    }
  }

  /** Stored content by hash. */
  content(hash: string): Promise<Buffer> {
    return this.blobs.read(hash);
  }

  /** The file system path of a workspace key (names that are not UTF-8 as bytes). */
  absolutePath(root: string, key: string): string | Buffer {
    return fsPath(root, key);
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

  /**
   * Puts back the lines of one hunk of what a turn changed in a file (a `hunk` record of that turn).
   * Throws CheckpointConflictError (nothing written) when those lines are not as the agent left them.
   */
  async revertHunk(request: HunkRevertRequest): Promise<CheckpointRecord> {
    const tracker = await this.tracker(request.root);
    return tracker.exclusive(async () => {
      await tracker.syncUnlocked(null);
      return revertHunkUnlocked(request, {
        records: await this.records.read(request.threadId),
        blobs: this.blobs,
        journalDir: this.journalDir,
        tracker,
        record: (changes) => this.append(request.threadId, request.turnId, null, 'hunk', request.root, changes, []),
      });
    });
  }

  /** Undoes the thread's last restore (files only), with the same conflict rules. */
  async redo(request: { threadId: string; root: string; force?: boolean }): Promise<RestoreOutcome> {
    const last = [...(await this.records.read(request.threadId))]
      .reverse()
      .find(
        (record) =>
          record.source === 'restore' ||
          record.source === 'hunk' ||
          (record.source === 'tool' && record.failure === undefined),
      );
    if (last?.source !== 'restore')
      throw new CheckpointError('There is no restore to redo: the thread changed files after it, or never restored.');
    const tracker = await this.tracker(request.root);
    return tracker.exclusive(async () => {
      await tracker.syncUnlocked(null);
      const plan = last.changes.map((change) =>
        planItem((path) => tracker.entry(path), change.path, change.after, change.before),
      );
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
      const spans = changeSpans(await this.records.read(request.threadId), request.laterTurnIds);
      for (const [path, span] of spans) {
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
    await this.trackers.persistAll();
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
    await this.trackers.dispose();
  }

  private async planUnlocked(
    request: Omit<RestoreRequest, 'force' | 'hooks'>,
    tracker: WorkspaceTracker,
  ): Promise<RestorePlanItem[]> {
    const spans = changeSpans(await this.records.read(request.threadId), request.turnIds);
    return planUndo(spans, (path) => tracker.entry(path));
  }

  private execute(
    request: RestoreRequest,
    plan: RestorePlanItem[],
    tracker: WorkspaceTracker,
  ): Promise<RestoreOutcome> {
    return executeRestore({
      request,
      plan,
      tracker,
      blobs: this.blobs,
      journalDir: this.journalDir,
      append: (source, changes, notes) =>
        this.append(request.threadId, null, null, source, request.root, changes, notes),
    });
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
    background?: CheckpointRecord['background'],
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
      ...(background === undefined ? {} : { background }),
    };
    await this.records.append(record);
    return record;
  }
}
