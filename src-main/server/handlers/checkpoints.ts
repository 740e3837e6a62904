// thread/revert (history, and with weftRestoreFiles the files too) and Weft's checkpoint methods:
// preview of a restore, redo of the last restore, the store's size.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CHECKPOINT_CONFLICT_CODE,
  type CheckpointPreviewFile,
  type WeftFilesRestored,
} from '../../../src-preload/protocol';
import { CheckpointConflictError, CheckpointError } from '../../checkpoints/errors';
import { UnsafePathError } from '../../checkpoints/restore-apply';
import type { RestoreOutcome, RestorePlanItem } from '../../checkpoints/service';
import type { HandlerTable } from '../dispatcher';
import { RpcError, invalidParams, invalidRequest } from '../rpc-error';
import type { HandlerContext } from './context';
import { initialState } from '../../core/session-builder';
import { storeCall, storeCallAsync } from './store-call';

type CheckpointHandlers = Pick<
  HandlerTable,
  'thread/revert' | 'weft/checkpoints/preview' | 'weft/checkpoints/redo' | 'weft/checkpoints/size'
>;

/** Preview texts larger than this are not sent (the dialog says so). */
const PREVIEW_MAX_BYTES = 1024 * 1024;
/** Threads with more turns than this are rare; their oldest turns cannot be reverted to in one step. */
const MAX_TURNS = 100_000;

/** Checkpoint failures as JSON-RPC errors: conflicts are -32010 with the files in `data.conflicts`. */
export function checkpointRpcError(error: unknown): unknown {
  if (error instanceof CheckpointConflictError)
    return new RpcError(CHECKPOINT_CONFLICT_CODE, error.message, { conflicts: error.conflicts });
  if (error instanceof CheckpointError || error instanceof UnsafePathError) return invalidRequest(error.message);
  return error;
}

function filesResult(outcome: RestoreOutcome): WeftFilesRestored {
  return { restored: outcome.restored, overwritten: outcome.overwritten, kept: outcome.kept, notes: outcome.notes };
}

export function checkpointHandlers(ctx: HandlerContext): CheckpointHandlers {
  const { store, manager, environment } = ctx;
  const service = (): NonNullable<typeof environment.checkpoints>['service'] => {
    const checkpoints = environment.checkpoints;
    if (checkpoints === undefined)
      throw invalidRequest('checkpoints are turned off ([checkpoints] enabled = false): files cannot be restored');
    return checkpoints.service;
  };

  /** The thread's cwd and the ids of `beforeTurnId` and every later turn. */
  const turnsFrom = (threadId: string, beforeTurnId: string): { cwd: string; turnIds: string[] } => {
    const read = storeCall(() => store.read(threadId, { includeTurns: true, turnsLimit: MAX_TURNS }));
    const ids = read.thread.turns.map((turn) => turn.id);
    const index = ids.indexOf(beforeTurnId);
    if (index < 0) throw invalidParams(`params.beforeTurnId: thread ${threadId} has no turn ${beforeTurnId}`);
    return { cwd: manager.get(threadId)?.thread.cwd ?? read.thread.cwd, turnIds: ids.slice(index) };
  };

  return {
    'thread/revert': async (params, client) => {
      manager.seen(client);
      const entry = manager.get(params.threadId);
      if (entry?.thread.ephemeral)
        throw invalidRequest(`thread ${params.threadId} is ephemeral: it has no saved history to go back in`);
      if (entry?.session.activeTurnId)
        throw invalidRequest('a turn is running in this thread; interrupt it before reverting');
      const { cwd, turnIds } = turnsFrom(params.threadId, params.beforeTurnId);
      let weftFiles: WeftFilesRestored | null = null;
      if (params.weftRestoreFiles === true) {
        try {
          weftFiles = filesResult(
            await service().revert({
              threadId: params.threadId,
              root: cwd,
              turnIds,
              force: params.weftForce === true,
              keep: params.weftKeepFiles ?? [],
            }),
          );
        } catch (error) {
          throw checkpointRpcError(error);
        }
      }
      const state = await storeCallAsync(() => store.rollback(params.threadId, turnIds.length, { turnsLimit: 100 }));
      entry?.session.resetState({ ...initialState(state), contextRef: entry.session.contextRef });
      manager.broadcast({
        method: 'thread/reverted',
        params: { threadId: params.threadId, weftBeforeTurnId: params.beforeTurnId, weftTurnIds: turnIds, weftFiles },
      });
      return { thread: manager.liveThread(params.threadId, true) ?? state.thread, weftFiles };
    },

    'weft/checkpoints/preview': async (params, client) => {
      manager.seen(client);
      const { cwd, turnIds } = turnsFrom(params.threadId, params.beforeTurnId);
      const checkpoints = service();
      let plan: RestorePlanItem[];
      try {
        plan = await checkpoints.plan({ threadId: params.threadId, root: cwd, turnIds });
      } catch (error) {
        throw checkpointRpcError(error);
      }
      const files = plan
        .filter((item) => item.target?.kind !== 'dir' && item.current?.kind !== 'dir' && item.expected?.kind !== 'dir')
        .map((item): CheckpointPreviewFile => {
          const current = previewText(() => readFileSync(join(cwd, item.path)), item.current);
          const restored = previewText(
            () =>
              item.target?.kind === 'file' && item.target.hash !== null
                ? checkpoints.blobs.get(item.target.hash)
                : Buffer.alloc(0),
            item.target,
          );
          return {
            path: item.path,
            change: item.target === null ? 'delete' : item.current === null ? 'add' : 'update',
            conflict: item.conflict,
            current: current.text,
            restored: restored.text,
            binary: current.binary || restored.binary,
            unrestorable: item.unrestorable ?? null,
          };
        });
      return { files };
    },

    'weft/checkpoints/redo': async (params, client) => {
      manager.seen(client);
      const entry = manager.get(params.threadId);
      if (entry?.session.activeTurnId)
        throw invalidRequest('a turn is running in this thread; wait for it or interrupt it first');
      const cwd = entry?.thread.cwd ?? storeCall(() => store.read(params.threadId, {})).thread.cwd;
      try {
        return {
          weftFiles: filesResult(
            await service().redo({ threadId: params.threadId, root: cwd, force: params.weftForce === true }),
          ),
        };
      } catch (error) {
        throw checkpointRpcError(error);
      }
    },

    'weft/checkpoints/size': async () => ({ bytes: environment.checkpoints?.service.sizeOnDisk() ?? 0 }),
  };
}

/** A file's text for the preview; null when absent, binary or too large. */
function previewText(read: () => Buffer, entry: RestorePlanItem['current']): { text: string | null; binary: boolean } {
  if (entry === null) return { text: null, binary: false };
  if (entry.kind === 'symlink') return { text: `→ ${entry.target}`, binary: false };
  if (entry.kind !== 'file' || entry.size > PREVIEW_MAX_BYTES) return { text: null, binary: false };
  let bytes: Buffer;
  try {
    bytes = read();
  } catch {
    return { text: null, binary: false };
  }
  if (bytes.includes(0)) return { text: null, binary: true };
  return { text: bytes.toString('utf8'), binary: false };
}
