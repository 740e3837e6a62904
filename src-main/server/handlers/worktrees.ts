// Worktree threads: Handoff between a thread's worktree and the project's local checkout — the preview
// (`weft/worktree/handoff/preview`) and the writing (`weft/worktree/handoff`), which plans again from the
// files as they are then and writes nothing when the plan is no longer the one previewed (its fingerprint)
// or a conflict has no resolution (-32010, as thread/revert refuses a restore over someone else's work) —
// and several compared side by side (`weft/worktree/compare`, for "try N ways"); and a thread's worktree
// removed (`weft/worktree/remove`, the review inbox's Discard of a run on a remote environment).
import { realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import {
  CHECKPOINT_CONFLICT_CODE,
  type Thread,
  type WeftHandoffDirection,
  type WeftWorktree,
  type WeftWorktreeHandoffResult,
} from '../../../src-preload/protocol';
import { DiscardStore } from '../../checkpoints/discards';
import { applyHandoff, HandoffConflictError, HandoffInputError } from '../../git/handoff-apply';
import { handoffFileView, planHandoff, type HandoffPlan } from '../../git/handoff-plan';
import { commitOf, mergeBase, workTreeTop } from '../../git/handoff-scan';
import { attributeFields } from '../../store/thread-events';
import type { HandlerTable } from '../dispatcher';
import { compareEntry } from '../worktree-compare';
import { removeThreadWorktree } from '../worktree-remove';
import { RpcError, invalidParams, invalidRequest } from '../rpc-error';
import type { HandlerContext } from './context';
import { storeCall, storeCallAsync } from './store-call';

type WorktreeHandlers = Pick<
  HandlerTable,
  'weft/worktree/handoff/preview' | 'weft/worktree/handoff' | 'weft/worktree/compare' | 'weft/worktree/remove'
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

    'weft/worktree/remove': async (params) => ({
      removed: await removeThreadWorktree(ctx, params.threadId, params.path),
    }),

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
      const move = params.move === true ? await threadMove(ctx, params.threadId, planned) : null;
      let applied: Omit<WeftWorktreeHandoffResult, 'threadCwd'>;
      try {
        applied = await applyHandoff({
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
      const threadCwd = move === null ? null : await moveThread(ctx, params.threadId, move);
      return { ...applied, threadCwd };
    },
  };
}

interface ThreadMove {
  /** The folder the thread works in from now on. */
  cwd: string;
  /** Whether that is not where it works now (nothing to record otherwise). */
  changes: boolean;
  lastContextTurnId: string | null;
}

/**
 * Where a handoff with `move` takes the thread: the folder of the destination that matches the one it works
 * in (the destination's top when that one is outside the source). Checked before anything is written: a
 * thread another window writes cannot be moved, so its handoff is refused whole.
 */
async function threadMove(ctx: HandlerContext, threadId: string, planned: HandoffPlan & Sides): Promise<ThreadMove> {
  const entry = ctx.manager.get(threadId);
  // The rollout as it is now (no turn runs): a later turn's context must differ from its last one.
  const saved = await storeCallAsync(() => ctx.store.workingFolder(threadId));
  const current = resolve(entry?.session.currentSettings.cwd ?? saved.cwd);
  const [from, to] =
    planned.direction === 'toLocal' ? [planned.worktreeTop, planned.localTop] : [planned.localTop, planned.worktreeTop];
  const real = await realpath(current).catch(() => current);
  const rel = relative(from, real);
  const inSource = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  const cwd = rel === '' ? to : inSource ? join(to, rel) : real === to || real.startsWith(`${to}/`) ? current : to;
  const changes = cwd !== current;
  if (changes && entry === undefined) {
    try {
      ctx.store.checkWritable(threadId);
    } catch (error) {
      throw invalidRequest(
        `${error instanceof Error ? error.message : String(error)}, and a handoff that moves the work moves the thread too: close it there first, or hand off without moving; nothing was written`,
      );
    }
  }
  return { cwd, changes, lastContextTurnId: saved.lastContextTurnId };
}

/**
 * Moves the thread with the work it handed over: recorded in its rollout, so a restart, a read and the
 * lists find it there; a loaded thread's session runs its next turn there.
 */
async function moveThread(ctx: HandlerContext, threadId: string, move: ThreadMove): Promise<string> {
  if (!move.changes) return move.cwd;
  const attributes = await storeCallAsync(() =>
    ctx.store.recordAttribute(threadId, {
      type: 'weft_thread_moved',
      cwd: move.cwd,
      after_turn_id: move.lastContextTurnId,
    }),
  );
  ctx.manager.get(threadId)?.session.moveTo(move.cwd);
  ctx.manager.updateThread(threadId, { ...attributeFields(attributes), cwd: move.cwd });
  return move.cwd;
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
