// thread/revert (history, and with weftRestoreFiles the files too) and Weft's checkpoint methods:
// preview of a restore, redo of the last restore, the store's size.
//
// A restore of a loaded thread runs between its turns (`Session.exclusive`: a turn asked for meanwhile
// waits) and first stops the commands the model left running after its turns: one of them could
// otherwise change or swap files while they are being put back. The result names what was stopped.
import { confinedPath, readEntry } from '../../util/workspace-file';
import { relative, sep } from 'node:path';
import {
  CHECKPOINT_CONFLICT_CODE,
  displayPath,
  type CheckpointNotUndoable,
  type CheckpointPreviewFile,
  type StoppedCommand,
  type WeftFilesRestored,
} from '../../../src-preload/protocol';
import { CheckpointConflictError, CheckpointError } from '../../checkpoints/errors';
import { fsPath } from '../../checkpoints/path-key';
import { isFolder, type CheckpointGap, type RestoreOutcome, type RestorePlanItem } from '../../checkpoints/service';
import { sameContent } from '../../checkpoints/types';
import { SessionError, type Session } from '../../core/session';
import { findRepoRoot } from '../../tools/turn-diff';
import type { HandlerTable } from '../dispatcher';
import { RpcError, invalidParams, invalidRequest } from '../rpc-error';
import type { HandlerContext } from './context';
import { initialState } from '../../core/session-builder';
import { storeCall, storeCallAsync } from './store-call';

type CheckpointHandlers = Pick<
  HandlerTable,
  | 'thread/revert'
  | 'weft/checkpoints/preview'
  | 'weft/checkpoints/previewFile'
  | 'weft/checkpoints/redo'
  | 'weft/checkpoints/revertHunk'
  | 'weft/checkpoints/size'
>;

/** Preview texts larger than this are not sent (the dialog says so). */
const PREVIEW_MAX_BYTES = 1024 * 1024;
/**
 * Texts of one preview answer stop at about this many bytes, enough for the dialog's first screens; each
 * file after them is listed `deferred`, its texts sent when the dialog asks (`weft/checkpoints/previewFile`,
 * as it scrolls to the file). An answer is one message on the client's one connection: every answer
 * behind it waits while it is written and read (4 MiB of texts held other requests 30-50 ms), and an
 * answer of tens of MB would hold the host, and every thread with it, for a second or more.
 */
const PREVIEW_TOTAL_BYTES = 512 * 1024;
/**
 * Previews kept for `weft/checkpoints/previewFile`, the newest ones: the restore dialog's, and the Changes
 * panel's outside git (the thread's changes since its first turn), of a few threads.
 */
const PREVIEWS_KEPT = 8;

const previewKey = (threadId: string, beforeTurnId: string): string => `${threadId}\0${beforeTurnId}`;

/** A preview: the files it listed, by path, and where they are. */
interface KeptPreview {
  threadId: string;
  cwd: string;
  items: Map<string, RestorePlanItem>;
}

/** Whether the preview shows a text for `entry` (one side of a file): a file small enough, or a symlink. */
const hasText = (entry: RestorePlanItem['current']): boolean =>
  entry !== null && (entry.kind === 'symlink' || (entry.kind === 'file' && entry.size <= PREVIEW_MAX_BYTES));
/** Threads with more turns than this are rare; their oldest turns cannot be reverted to in one step. */
const MAX_TURNS = 100_000;

/** Checkpoint failures as JSON-RPC errors: conflicts are -32010 with the files in `data.conflicts`. */
export function checkpointRpcError(error: unknown): unknown {
  if (error instanceof CheckpointConflictError)
    return new RpcError(CHECKPOINT_CONFLICT_CODE, error.message, { conflicts: error.conflicts });
  if (error instanceof CheckpointError || error instanceof SessionError) return invalidRequest(error.message);
  return error;
}

/** The sentence that names the commands stopped before a restore. */
function stoppedNote(stopped: readonly StoppedCommand[]): string {
  return `Stopped ${stopped.length === 1 ? '1 command' : `${stopped.length} commands`} the agent left running, so ${stopped.length === 1 ? 'it' : 'they'} could not change files during the restore: ${stopped.map((c) => c.command).join('; ')}`;
}

/** The turns being undone whose checkpoint failed, said for people. */
function notUndoable(gaps: readonly CheckpointGap[], turnIds: readonly string[]): CheckpointNotUndoable[] {
  return gaps.map((gap) => ({
    ...gap,
    message: `The checkpoint of turn ${turnIds.indexOf(gap.turnId) + 1} of those undone failed (${gap.reason}): what that turn changed cannot all be put back.`,
  }));
}

function filesResult(
  outcome: RestoreOutcome,
  stopped: StoppedCommand[],
  gaps: readonly CheckpointNotUndoable[] = [],
): WeftFilesRestored {
  return {
    restored: outcome.restored,
    overwritten: outcome.overwritten,
    kept: outcome.kept,
    notRestored: outcome.notRestored,
    stoppedCommands: stopped,
    // What cannot be undone comes first.
    notes: [...gaps.map((gap) => gap.message), ...(stopped.length > 0 ? [stoppedNote(stopped)] : []), ...outcome.notes],
  };
}

/**
 * Runs a file restore of a thread: between its turns when it is loaded, after stopping the commands the
 * model left running (they are passed to `work`); as it is when the thread is not loaded here. A restore
 * refused after that (a conflict) still says what was stopped: it stays stopped.
 */
async function restoring<T>(
  session: Session | undefined,
  what: string,
  work: (stopped: StoppedCommand[]) => Promise<T>,
): Promise<T> {
  if (session === undefined) return work([]);
  try {
    return await session.exclusive(what, async () => {
      const stopped = await session.stopBackgroundCommands('its files were being restored');
      try {
        return await work(stopped);
      } catch (error) {
        throw withStopped(checkpointRpcError(error), stopped);
      }
    });
  } catch (error) {
    throw checkpointRpcError(error);
  }
}

function withStopped(error: unknown, stopped: StoppedCommand[]): unknown {
  if (stopped.length === 0 || !(error instanceof RpcError)) return error;
  const data =
    typeof error.data === 'object' && error.data !== null ? { ...error.data, stoppedCommands: stopped } : error.data;
  return new RpcError(error.code, `${error.message} ${stoppedNote(stopped)}.`, data);
}

export function checkpointHandlers(ctx: HandlerContext): CheckpointHandlers {
  const { store, manager, environment } = ctx;
  const service = (): NonNullable<typeof environment.checkpoints>['service'] => {
    const checkpoints = environment.checkpoints;
    if (checkpoints === undefined)
      throw invalidRequest('checkpoints are turned off ([checkpoints] enabled = false): files cannot be restored');
    return checkpoints.service;
  };

  /**
   * The thread with its turns, read from its rollout as `thread/read` reads it: a big thread read in one go
   * held the host (50 ms for a turn that changed 3,000 files), every other thread waiting.
   */
  const readTurns = (threadId: string) =>
    storeCallAsync(() => store.readAsync(threadId, { includeTurns: true, turnsLimit: MAX_TURNS }));

  /** The thread's cwd and the ids of `beforeTurnId` and every later turn. */
  const turnsFrom = async (threadId: string, beforeTurnId: string): Promise<{ cwd: string; turnIds: string[] }> => {
    const read = await readTurns(threadId);
    const ids = read.thread.turns.map((turn) => turn.id);
    const index = ids.indexOf(beforeTurnId);
    if (index < 0) throw invalidParams(`params.beforeTurnId: thread ${threadId} has no turn ${beforeTurnId}`);
    return { cwd: manager.get(threadId)?.thread.cwd ?? read.thread.cwd, turnIds: ids.slice(index) };
  };

  /** The newest previews, by thread and turn (`previewKey`), for `weft/checkpoints/previewFile`. */
  const previews = new Map<string, KeptPreview>();
  const keepPreview = (key: string, kept: KeptPreview): void => {
    previews.delete(key);
    previews.set(key, kept);
    for (const oldest of previews.keys()) {
      if (previews.size <= PREVIEWS_KEPT) break;
      previews.delete(oldest);
    }
  };
  /** Drops the thread's kept previews: after a restore or a redo they no longer say what one would do. */
  const forgetPreviews = (threadId: string): void => {
    for (const [key, kept] of previews) if (kept.threadId === threadId) previews.delete(key);
  };
  /** `item`'s text now (read from the workspace) and after the restore (from the checkpoints). */
  const textsOf = async (
    cwd: string,
    item: RestorePlanItem,
  ): Promise<{ current: string | null; restored: string | null; binary: boolean }> => {
    const target = item.target;
    // Read as the file is now, which may be long after the preview was made: never through a symlink put in
    // its place or in place of a folder on the way (to a file outside the project), never past the
    // preview's size. (For a name of bytes that are not UTF-8, only its last part is guarded.)
    const current = await previewText(async () => {
      const path = item.path.includes('\0') ? fsPath(cwd, item.path) : await confinedPath(cwd, item.path);
      const now = await readEntry(path, PREVIEW_MAX_BYTES);
      if (now.kind !== 'file') throw new Error(`${item.path} is no longer a file the preview can show`);
      return now.bytes;
    }, item.current);
    const restored = await previewText(
      () =>
        target?.kind === 'file' && target.hash !== null
          ? service().blobs.read(target.hash)
          : Promise.resolve(Buffer.alloc(0)),
      target,
    );
    return { current: current.text, restored: restored.text, binary: current.binary || restored.binary };
  };
  /**
   * The turns a redo brings back with the files: those of the undo whose restore it takes back, when the
   * thread's last rollback was that undo. Refused when the conversation went on after that undo (a new
   * turn): the files alone would come back without the turns that made them, out of reach of any Undo.
   */
  const turnsToBringBack = async (threadId: string): Promise<string[]> => {
    const last = [...(await service().records.read(threadId))]
      .reverse()
      .find((record) => record.source === 'restore' || record.source === 'tool' || record.source === 'hunk');
    const rollback = await storeCallAsync(() => store.lastRollback(threadId));
    if (last?.source !== 'restore' || rollback === null || rollback.restoreRecord !== last.id) return [];
    if (rollback.turnIds === null)
      throw invalidRequest(
        'The conversation went on after the undo: its turns cannot come back, so its files are not redone either.',
      );
    return rollback.turnIds;
  };

  return {
    'thread/revert': async (params, client) => {
      manager.seen(client);
      const entry = manager.get(params.threadId);
      if (entry?.thread.ephemeral)
        throw invalidRequest(`thread ${params.threadId} is ephemeral: it has no saved history to go back in`);
      if (entry?.session.activeTurnId)
        throw invalidRequest('a turn is running in this thread; interrupt it before reverting');
      const revert = async (stopped: StoppedCommand[]) => {
        const { cwd, turnIds } = await turnsFrom(params.threadId, params.beforeTurnId);
        let weftFiles: WeftFilesRestored | null = null;
        let pending: string | null = null;
        let restoreRecord: string | null = null;
        if (params.weftRestoreFiles === true) {
          try {
            // What the stopped commands changed last is their turns' (an undo of those turns takes it back).
            await entry?.session.recordBackgroundChanges(cwd);
            const outcome = await service().revert({
              threadId: params.threadId,
              root: cwd,
              turnIds,
              force: params.weftForce === true,
              keep: params.weftKeepFiles ?? [],
              // Journalled with the files: a crash before the rollback below is finished at start-up.
              thread: { threadId: params.threadId, beforeTurnId: params.beforeTurnId, turns: turnIds.length },
            });
            const gaps = await service().gaps(params.threadId, turnIds);
            weftFiles = filesResult(outcome, stopped, notUndoable(gaps, turnIds));
            pending = outcome.pending;
            restoreRecord = outcome.record?.id ?? null;
          } catch (error) {
            throw checkpointRpcError(error);
          }
        }
        // The rollback names the files' restore: Redo brings both back (see weft/checkpoints/redo).
        const state = await storeCallAsync(() =>
          store.rollback(params.threadId, turnIds.length, { turnsLimit: 100, restoreRecord }),
        );
        if (pending !== null) await service().finishRevert(pending);
        entry?.session.resetState({ ...initialState(state), contextRef: entry.session.contextRef });
        return { state, weftFiles, turnIds };
      };
      const { state, weftFiles, turnIds } =
        params.weftRestoreFiles === true
          ? await restoring(entry?.session, 'reverting it with its files', revert)
          : await revert([]);
      // What the previews listed is no longer what a restore would do.
      forgetPreviews(params.threadId);
      manager.broadcast({
        method: 'thread/reverted',
        params: { threadId: params.threadId, weftBeforeTurnId: params.beforeTurnId, weftTurnIds: turnIds, weftFiles },
      });
      return { thread: manager.liveThread(params.threadId, true) ?? state.thread, weftFiles };
    },

    'weft/checkpoints/preview': async (params, client) => {
      manager.seen(client);
      const { cwd, turnIds } = await turnsFrom(params.threadId, params.beforeTurnId);
      const checkpoints = service();
      const entry = manager.get(params.threadId);
      let plan: RestorePlanItem[];
      try {
        // Between turns, what commands left running changed since the last look is their turns'.
        if (entry !== undefined && entry.session.activeTurnId === null)
          await entry.session.recordBackgroundChanges(cwd);
        plan = await checkpoints.plan({ threadId: params.threadId, root: cwd, turnIds });
      } catch (error) {
        throw checkpointRpcError(error);
      }
      keepPreview(previewKey(params.threadId, params.beforeTurnId), {
        threadId: params.threadId,
        cwd,
        items: new Map(plan.map((item) => [item.path, item])),
      });
      const files: CheckpointPreviewFile[] = [];
      let textBytes = 0;
      for (const item of plan) {
        // Folders come and go with their files; a file already as it would be is not changed.
        if (isFolder(item) || (item.unrestorable === undefined && sameContent(item.current, item.target))) continue;
        const shown = hasText(item.current) || hasText(item.target);
        const deferred = shown && textBytes >= PREVIEW_TOTAL_BYTES;
        const texts = deferred ? { current: null, restored: null, binary: false } : await textsOf(cwd, item);
        textBytes += (texts.current?.length ?? 0) + (texts.restored?.length ?? 0);
        files.push({
          path: item.path,
          change: item.target === null ? 'delete' : item.current === null ? 'add' : 'update',
          conflict: item.conflict,
          ...texts,
          ...(deferred ? { deferred } : {}),
          unrestorable:
            item.unrestorable === undefined
              ? null
              : `${displayPath(item.path)} cannot be restored: ${item.unrestorable}.`,
          background:
            item.background === undefined
              ? null
              : `changed while a background command of an earlier turn was running: ${item.background.join('; ')}`,
        });
      }
      const gaps = notUndoable(await checkpoints.gaps(params.threadId, turnIds), turnIds);
      return gaps.length > 0 ? { files, notUndoable: gaps } : { files };
    },

    'weft/checkpoints/previewFile': async (params, client) => {
      manager.seen(client);
      const kept = previews.get(previewKey(params.threadId, params.beforeTurnId));
      if (kept === undefined)
        throw invalidRequest(
          `thread ${params.threadId} has no preview of a restore before turn ${params.beforeTurnId}: ask weft/checkpoints/preview first`,
        );
      const item = kept.items.get(params.path);
      if (item === undefined || isFolder(item))
        throw invalidParams(`params.path: ${params.path} is not a file of that preview`);
      return textsOf(kept.cwd, item);
    },

    'weft/checkpoints/redo': async (params, client) => {
      manager.seen(client);
      const entry = manager.get(params.threadId);
      if (entry?.session.activeTurnId)
        throw invalidRequest('a turn is running in this thread; wait for it or interrupt it first');
      const cwd = entry?.thread.cwd ?? storeCall(() => store.read(params.threadId, {})).thread.cwd;
      // Asked first so that a refused redo stops nothing; asked again between the thread's turns, where
      // no turn can begin before the files and the turns are back.
      await turnsToBringBack(params.threadId);
      const result = await restoring(entry?.session, 'redoing its files', async (stopped) => {
        const turnIds = await turnsToBringBack(params.threadId);
        let weftFiles: WeftFilesRestored;
        try {
          const outcome = await service().redo({
            threadId: params.threadId,
            root: cwd,
            force: params.weftForce === true,
          });
          weftFiles = filesResult(outcome, stopped);
        } catch (error) {
          throw checkpointRpcError(error);
        }
        if (turnIds.length === 0) return { weftFiles, weftTurnIds: [] };
        const state = await storeCallAsync(() => store.undoRollback(params.threadId, { turnsLimit: 100 }));
        entry?.session.resetState({ ...initialState(state), contextRef: entry.session.contextRef });
        return { weftFiles, weftTurnIds: turnIds };
      });
      forgetPreviews(params.threadId);
      if (result.weftTurnIds.length > 0)
        manager.broadcast({
          method: 'weft/thread/turnsRestored',
          params: { threadId: params.threadId, turnIds: result.weftTurnIds },
        });
      return result;
    },

    'weft/checkpoints/revertHunk': async (params, client) => {
      manager.seen(client);
      const entry = manager.get(params.threadId);
      if (entry?.session.activeTurnId)
        throw invalidRequest('a turn is running in this thread; wait for it or interrupt it before undoing a hunk');
      const read = await readTurns(params.threadId);
      if (!read.thread.turns.some((turn) => turn.id === params.turnId))
        throw invalidParams(`params.turnId: thread ${params.threadId} has no turn ${params.turnId}`);
      const cwd = entry?.thread.cwd ?? read.thread.cwd;
      // Between the thread's turns; the commands the agent left running go on (one hunk is one file,
      // written atomically, and a command that changes it meanwhile makes it a conflict, not a loss).
      const undo = async (): Promise<void> => {
        const { threadId, turnId, path, hunk } = params;
        // The turn's diff names paths from the repository root above the workspace.
        const repoPrefix = relative(await findRepoRoot(cwd), cwd)
          .split(sep)
          .join('/');
        await service().revertHunk({ threadId, turnId, root: cwd, path, hunk, repoPrefix });
      };
      try {
        await (entry === undefined ? undo() : entry.session.exclusive('undoing a hunk of its changes', undo));
      } catch (error) {
        throw checkpointRpcError(error);
      }
      return { path: params.path, hunk: params.hunk };
    },

    'weft/checkpoints/size': async () => ({ bytes: (await environment.checkpoints?.service.sizeOnDisk()) ?? 0 }),
  };
}

/** A file's text for the preview; null when absent, binary or too large. */
async function previewText(
  read: () => Promise<Buffer>,
  entry: RestorePlanItem['current'],
): Promise<{ text: string | null; binary: boolean }> {
  if (entry === null) return { text: null, binary: false };
  if (entry.kind === 'symlink') return { text: `→ ${entry.target}`, binary: false };
  if (entry.kind !== 'file' || entry.size > PREVIEW_MAX_BYTES) return { text: null, binary: false };
  let bytes: Buffer;
  try {
    bytes = await read();
  } catch {
    return { text: null, binary: false };
  }
  if (bytes.includes(0)) return { text: null, binary: true };
  return { text: bytes.toString('utf8'), binary: false };
}
