// Worktree threads: Handoff between a thread's worktree and the project's local checkout — the preview
// (`weft/worktree/handoff/preview`) and the writing (`weft/worktree/handoff`), which plans again from the
// files as they are then and writes nothing when the plan is no longer the one previewed (its fingerprint)
// or a conflict has no resolution (-32010, as thread/revert refuses a restore over someone else's work) —
// and several compared side by side (`weft/worktree/compare`, for "try N ways").
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  CHECKPOINT_CONFLICT_CODE,
  type Thread,
  type WeftHandoffDirection,
  type WeftWorktree,
} from '../../../src-preload/protocol';
import { DiscardStore } from '../../checkpoints/discards';
import { applyHandoff, HandoffConflictError, HandoffInputError } from '../../git/handoff-apply';
import { handoffFileView, planHandoff, type HandoffPlan } from '../../git/handoff-plan';
import { commitOf, mergeBase, workTreeTop } from '../../git/handoff-scan';
import type { HandlerTable } from '../dispatcher';
import { compareEntry } from '../worktree-compare';
import { RpcError, invalidParams, invalidRequest } from '../rpc-error';
import type { HandlerContext } from './context';
import { storeCall, storeCallAsync } from './store-call';

type WorktreeHandlers = Pick<
  HandlerTable,
  'weft/worktree/handoff/preview' | 'weft/worktree/handoff' | 'weft/worktree/compare'
>;

interface Sides {
  worktree: WeftWorktree;
  localTop: string;
  worktreeTop: string;
  base: string;
}

export function worktreeHandlers(ctx: HandlerContext): WorktreeHandlers {
  const discards = new DiscardStore(ctx.environment.weftHome);

  const threadOf = async (threadId: string): Promise<Thread> =>
    ctx.manager.get(threadId)?.thread ?? (await storeCallAsync(() => ctx.store.readAsync(threadId))).thread;

  /** The commit a worktree thread's worktree was made from, as recorded (else where its branch left its base). */
  const baseCommitOf = async (threadId: string, worktree: WeftWorktree): Promise<string | null> =>
    storeCall(() => ctx.store.worktreeOf(threadId))?.base_commit ??
    (await mergeBase(worktree.path, 'HEAD', worktree.baseRef));

  /** The two checkouts of a worktree thread and the commit the direction's changes are counted from. */
  const sidesOf = async (threadId: string, direction: WeftHandoffDirection): Promise<Sides> => {
    const worktree = (await threadOf(threadId)).weftWorktree;
    if (worktree === undefined)
      throw invalidParams(
        `params.threadId: thread ${threadId} works in the project's own folder, not in a worktree of its own; a handoff moves work between a worktree thread and the local checkout`,
      );
    const worktreeTop = await workTreeTop(worktree.path);
    // git names the top with symlinks resolved; the recorded path may go through one (a linked temp folder).
    if (worktreeTop === null || worktreeTop !== (await realpath(worktree.path).catch(() => null)))
      throw invalidRequest(
        `the thread's worktree ${worktree.path} is gone or no longer a git worktree: there is nothing to hand off`,
      );
    const localTop = await workTreeTop(worktree.projectRoot);
    if (localTop === null)
      throw invalidRequest(`the project folder ${worktree.projectRoot} is gone or no longer in a git repository`);
    const base = direction === 'toWorktree' ? await commitOf(localTop, 'HEAD') : await baseCommitOf(threadId, worktree);
    if (base === null)
      throw invalidRequest(
        direction === 'toWorktree'
          ? `${localTop} has no commit yet: there are no changes to count from`
          : `the commit the worktree ${worktree.path} was made from cannot be found`,
      );
    return { worktree, localTop, worktreeTop, base };
  };

  const plan = async (threadId: string, direction: WeftHandoffDirection): Promise<HandoffPlan & Sides> => {
    const sides = await sidesOf(threadId, direction);
    return { ...sides, ...(await planHandoff({ direction, ...sides })) };
  };

  return {
    'weft/worktree/compare': async (params) => {
      const threads = await Promise.all(
        params.threadIds.map(async (threadId) => {
          const thread =
            ctx.manager.liveThread(threadId, true) ??
            (await storeCallAsync(() => ctx.store.readAsync(threadId, { includeTurns: true }))).thread;
          const worktree = thread.weftWorktree;
          return compareEntry(thread, worktree === undefined ? null : await baseCommitOf(threadId, worktree));
        }),
      );
      return { threads };
    },

    'weft/worktree/handoff/preview': async (params) => {
      const planned = await plan(params.threadId, params.direction);
      return {
        direction: planned.direction,
        local: planned.localTop,
        worktree: planned.worktreeTop,
        branch: planned.worktree.branch,
        base: planned.base,
        files: planned.paths.map((p) => handoffFileView(planned, p)),
        fingerprint: planned.fingerprint,
      };
    },

    'weft/worktree/handoff': async (params) => {
      const checkpoints = ctx.environment.checkpoints;
      if (checkpoints === undefined)
        throw invalidRequest(
          'checkpoints are turned off ([checkpoints] enabled = false), and a handoff writes through them; turn them on to hand work over',
        );
      if (ctx.manager.get(params.threadId)?.session.activeTurnId)
        throw invalidRequest('a turn is running in this thread; wait for it to end (or stop it) before a handoff');
      const planned = await plan(params.threadId, params.direction);
      const busy = busyLocalThread(ctx, planned.localTop);
      if (params.direction === 'toLocal' && busy !== null)
        throw invalidRequest(
          `a turn is running in thread ${busy}, which works in the local checkout; wait for it to end before a handoff`,
        );
      if (params.fingerprint !== undefined && params.fingerprint !== null && params.fingerprint !== planned.fingerprint)
        throw conflictError(
          new HandoffConflictError(
            planned.paths.filter((p) => p.status === 'conflict').map((p) => p.path),
            true,
          ),
        );
      const resolutions = new Map<string, 'local' | 'worktree'>();
      for (const r of params.resolutions ?? []) resolutions.set(r.path, r.take);
      try {
        return await applyHandoff({
          plan: planned,
          resolutions,
          move: params.move === true,
          blobs: checkpoints.service.blobs,
          journalDir: checkpoints.service.journalDir,
          discards,
        });
      } catch (error) {
        if (error instanceof HandoffConflictError) throw conflictError(error);
        if (error instanceof HandoffInputError) throw invalidParams(error.message);
        throw error;
      }
    },
  };
}

function conflictError(error: HandoffConflictError): RpcError {
  return new RpcError(CHECKPOINT_CONFLICT_CODE, error.message, { conflicts: error.conflicts, stale: error.stale });
}

/** A loaded thread working in the local checkout itself (not in a worktree) with a turn running, if any. */
function busyLocalThread(ctx: HandlerContext, localTop: string): string | null {
  for (const id of ctx.manager.loadedIds()) {
    const entry = ctx.manager.get(id);
    if (entry === undefined || entry.thread.weftWorktree !== undefined || !entry.session.activeTurnId) continue;
    const rel = resolve(entry.thread.cwd);
    if (rel === localTop || rel.startsWith(`${localTop}/`)) return id;
  }
  return null;
}
