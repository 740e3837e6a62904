// `weft/automations/inbox/*`: the finished runs of the automations for review. The diff is the run's
// turn's, as its thread recorded it; seen, kept and discarded are lines of the run's history, so every
// client shows the same. Keep follows a Handoff (`weft/worktree/handoff`), which the client does first;
// Discard removes the run's worktree (only the one its thread was started in) and archives its thread.
// A run on a remote environment has its thread and worktree there: `read` gives no diff (the client reads
// the turn there, `thread/read` with `weftEnvironment`), and the client does there what Keep and Discard
// need (the Handoff; `weft/worktree/remove` and `thread/archive`) before they record the decision here.
import type { Thread, WeftAutomationInboxItem } from '../../../src-preload/protocol';
import { recordDecision, recordSeen } from '../../automations/history';
import { findInboxItem, inboxItems } from '../../automations/inbox';
import { AutomationError } from '../../automations/store';
import type { HandlerTable } from '../dispatcher';
import { invalidParams, invalidRequest } from '../rpc-error';
import type { HandlerContext } from './context';
import { storeCall, storeCallAsync } from './store-call';
import { removeThreadWorktree } from '../worktree-remove';

type InboxHandlers = Pick<
  HandlerTable,
  | 'weft/automations/inbox/list'
  | 'weft/automations/inbox/read'
  | 'weft/automations/inbox/markSeen'
  | 'weft/automations/inbox/keep'
  | 'weft/automations/inbox/discard'
>;

export function automationInboxHandlers(ctx: HandlerContext, now: () => number): InboxHandlers {
  const weftHome = ctx.environment.weftHome;
  const item = (id: string, runId: string): Promise<WeftAutomationInboxItem> =>
    refused(() => findInboxItem(weftHome, id, runId));
  const finished = async (id: string, runId: string): Promise<WeftAutomationInboxItem> => {
    const found = await item(id, runId);
    if (found.run.status === 'running')
      throw invalidRequest(`run ${runId} of "${id}" is under way; it can be reviewed once it ends`);
    return found;
  };
  const threadWithTurns = async (threadId: string): Promise<Thread> =>
    ctx.manager.liveThread(threadId, true) ??
    (await storeCallAsync(() => ctx.store.readAsync(threadId, { includeTurns: true }))).thread;

  return {
    'weft/automations/inbox/list': async (_params, client) => {
      ctx.manager.seen(client);
      const items = await inboxItems(weftHome);
      return { items, unseen: items.filter((i) => !i.run.seen).length };
    },

    'weft/automations/inbox/read': async ({ id, runId }) => {
      const found = await finished(id, runId);
      const { threadId, turnId } = found.run;
      // The diff of a remote run is in its thread there.
      if (threadId === null || found.run.environment !== null)
        return { item: found, turnId: null, diff: null, diffCut: null };
      const turns = (await threadWithTurns(threadId)).turns;
      const turn = (turnId === null ? undefined : turns.find((t) => t.id === turnId)) ?? turns.at(-1);
      const diff = turn?.weftDiff ?? null;
      return {
        item: found,
        turnId: turn?.id ?? null,
        diff: diff === '' ? null : diff,
        diffCut: turn?.weftDiffCut ?? null,
      };
    },

    'weft/automations/inbox/markSeen': async ({ id, runId }) => {
      const found = await finished(id, runId);
      if (found.run.seen) return { item: found };
      await recordSeen(weftHome, id, runId, now());
      return { item: await item(id, runId) };
    },

    'weft/automations/inbox/keep': async ({ id, runId }) => {
      const found = await finished(id, runId);
      if (found.run.decision === 'discarded')
        throw invalidRequest(`run ${runId} of "${id}" was discarded (its worktree removed): there is nothing to keep`);
      await recordDecision(weftHome, id, runId, 'kept', now());
      if (!found.run.seen) await recordSeen(weftHome, id, runId, now());
      return { item: await item(id, runId) };
    },

    'weft/automations/inbox/discard': async ({ id, runId }) => {
      const found = await finished(id, runId);
      const { threadId, worktree } = found.run;
      let worktreeRemoved = false;
      // A remote run's worktree and thread are there: the client removed and archived them first.
      if (threadId !== null && found.run.environment === null) {
        if (ctx.manager.get(threadId)?.session.activeTurnId)
          throw invalidRequest('a turn is running in the run’s thread; interrupt it before discarding the run');
        // A local run's files are the project's own: nothing is removed.
        if (worktree !== null) worktreeRemoved = await removeThreadWorktree(ctx, threadId, worktree);
        await archive(ctx, threadId);
      }
      await recordDecision(weftHome, id, runId, 'discarded', now());
      if (!found.run.seen) await recordSeen(weftHome, id, runId, now());
      return { item: await item(id, runId), worktreeRemoved };
    },
  };
}

/** Archives the thread (moved to archived_sessions, kept); one archived already stays so. */
async function archive(ctx: HandlerContext, threadId: string): Promise<void> {
  await ctx.manager.unload(threadId, 'archived');
  storeCall(() => ctx.store.archive(threadId));
  ctx.manager.broadcast({ method: 'thread/archived', params: { threadId } });
}

/** A refusal of the files (bad id, unknown run) becomes -32602 with its message. */
async function refused<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AutomationError) throw invalidParams(error.message);
    throw error;
  }
}
