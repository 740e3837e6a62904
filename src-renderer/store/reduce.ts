// The notification reducer: (state, notification) → state, pure, returning the very same object when a
// notification changes nothing. Replaying a notification stream is harmless: a completed item ignores a
// replayed `item/started` and late deltas, snapshots (`item/completed`, `turn/completed`, plans, diffs,
// statuses) that equal what is there keep the old objects, and a repeated notice is not added twice.
import type { ServerNotification, Thread, ThreadItem } from '../../src-preload/protocol';
import { sameJson } from './same-json';
import { withHookRun } from './hook-runs';
import {
  conversationFromThread,
  entryFor,
  openEntry,
  ownTurn,
  putEntry,
  sameEntry,
  turnViewFrom,
} from './conversation';
import { appendOutput, EMPTY_OUTPUT } from './output-tail';
import { assertNever, diffFileCount } from '../../src-preload/protocol';
import { newDraft, own } from './draft';
import type { Draft } from './draft';
import {
  markArchived,
  markUnarchived,
  patchThread,
  previewOfMessage,
  setLastTurnStatus,
  setReadState,
  upsertThread,
} from './thread-list';
import { MAX_ENDED_RUNS, MAX_WARNINGS } from './state';
import type { AppData, Conversation, ItemEntry, Notice } from './state';

/** Applies one notification. */
export function reduceNotification(state: AppData, notification: ServerNotification): AppData {
  return applyNotification(newDraft(), state, notification);
}

/** Applies notifications in order, copying each container at most once for the whole batch. */
export function reduceNotifications(state: AppData, notifications: readonly ServerNotification[]): AppData {
  const draft = newDraft();
  let next = state;
  for (const notification of notifications) next = applyNotification(draft, next, notification);
  return next;
}

function editOpenItem(
  draft: Draft,
  state: AppData,
  where: { threadId: string; turnId: string; itemId: string },
  edit: (item: ThreadItem, entry: ItemEntry) => ItemEntry | null,
): AppData {
  const entry = openEntry(state, where.threadId, where.turnId, where.itemId);
  if (entry === null) return state;
  const next = edit(entry.item, entry);
  if (next === null) return state;
  return putEntry(draft, state, where.threadId, where.turnId, where.itemId, next);
}

/** A text part of a reasoning item with `delta` appended at `index` (missing parts become ""). */
function appendPart(parts: string[], index: number, delta: string): string[] {
  const next = [...parts];
  while (next.length <= index) next.push('');
  next[index] = (next[index] ?? '') + delta;
  return next;
}

function addNotice(draft: Draft, state: AppData, threadId: string, turnId: string, notice: Notice): AppData {
  const turn = state.conversations[threadId]?.turns[turnId];
  if (turn === undefined) return state;
  const last = turn.notices[turn.notices.length - 1];
  if (
    last !== undefined &&
    last.kind === notice.kind &&
    last.message === notice.message &&
    last.details === notice.details
  )
    return state;
  const path = ownTurn(draft, state, threadId, turnId, false);
  if (path === null) return state;
  // A retry notice stands for "retrying now": a newer one replaces it.
  path.turn.notices = [...path.turn.notices.filter((n) => n.kind !== 'retry'), notice];
  return path.state;
}

function threadStarted(draft: Draft, state: AppData, thread: Thread): AppData {
  let next = upsertThread(draft, state, thread);
  if (next.conversations[thread.id] === undefined) {
    next = own(draft, next);
    next.conversations = own(draft, next.conversations);
    next.conversations[thread.id] = conversationFromThread(thread);
  }
  return next;
}

/** A new thread is listed before its first message exists; that message becomes its preview. */
function withPreview(draft: Draft, state: AppData, threadId: string, item: ThreadItem): AppData {
  if (item.type !== 'userMessage') return state;
  const listedThread = [state.live, state.archived, ...Object.values(state.elsewhere)]
    .map((list) => list.find((t) => t.id === threadId))
    .find((t) => t !== undefined);
  if (listedThread === undefined || listedThread.preview !== '') return state;
  const text = previewOfMessage(item);
  return text === '' ? state : patchThread(draft, state, threadId, { preview: text });
}

function applyNotification(draft: Draft, state: AppData, notification: ServerNotification): AppData {
  switch (notification.method) {
    case 'thread/started':
      return threadStarted(draft, state, notification.params.thread);
    case 'thread/status/changed': {
      const { threadId, status } = notification.params;
      if (sameJson(state.statuses[threadId], status)) return state;
      const next = own(draft, state);
      next.statuses = own(draft, next.statuses);
      next.statuses[threadId] = status;
      return patchThread(draft, next, threadId, { status });
    }
    case 'thread/archived':
      return markArchived(draft, state, notification.params.threadId);
    case 'thread/unarchived':
      return markUnarchived(draft, state, notification.params.threadId);
    case 'thread/closed': {
      const { threadId } = notification.params;
      if (state.statuses[threadId]?.type === 'notLoaded') return state;
      const next = own(draft, state);
      next.statuses = own(draft, next.statuses);
      next.statuses[threadId] = { type: 'notLoaded' };
      return next;
    }
    case 'thread/reverted': {
      const { threadId, weftTurnIds: turnIds } = notification.params;
      const conversation = state.conversations[threadId];
      // Without the list of dropped turns (a server that does not send it), the next thread/read corrects the view.
      if (
        conversation === undefined ||
        turnIds === undefined ||
        !turnIds.some((id) => conversation.turns[id] !== undefined)
      )
        return state;
      const dropped = new Set(turnIds);
      const turns: Conversation['turns'] = {};
      for (const id of conversation.turnIds) {
        const turn = conversation.turns[id];
        if (!dropped.has(id) && turn !== undefined) turns[id] = turn;
      }
      const next = own(draft, state);
      next.conversations = {
        ...state.conversations,
        [threadId]: {
          ...conversation,
          shape: conversation.shape + 1,
          turnIds: conversation.turnIds.filter((id) => !dropped.has(id)),
          turns,
        },
      };
      return next;
    }
    case 'thread/readState/changed':
      return setReadState(draft, state, notification.params.threadId, notification.params.readState);
    case 'thread/name/updated':
      return patchThread(draft, state, notification.params.threadId, { name: notification.params.name });
    case 'thread/tokenUsage/updated': {
      const { threadId, tokenUsage, weftCost } = notification.params;
      const conversation = state.conversations[threadId];
      const newUsage = conversation !== undefined && !sameJson(conversation.tokenUsage, tokenUsage);
      // A cost is kept whether or not the conversation is loaded (the one after a resume may come first).
      const newCost = weftCost !== undefined && !sameJson(state.costs[threadId], weftCost);
      if (!newUsage && !newCost) return state;
      const next = own(draft, state);
      if (newUsage) {
        next.conversations = own(draft, next.conversations);
        next.conversations[threadId] = { ...conversation, tokenUsage };
      }
      if (newCost) {
        next.costs = own(draft, next.costs);
        next.costs[threadId] = weftCost;
      }
      return next;
    }
    case 'turn/started': {
      const { threadId, turn } = notification.params;
      let next = setLastTurnStatus(draft, state, threadId, turn.status);
      if (turn.startedAt !== null) next = patchThread(draft, next, threadId, { updatedAt: turn.startedAt }, true);
      if (next.conversations[threadId]?.turns[turn.id] !== undefined) return next;
      const path = ownTurn(draft, next, threadId, turn.id, true);
      if (path === null) return next;
      Object.assign(path.turn, { status: turn.status, error: turn.error, startedAt: turn.startedAt });
      return path.state;
    }
    case 'turn/completed': {
      const { threadId, turn } = notification.params;
      const next = setLastTurnStatus(draft, state, threadId, turn.status);
      const before = next.conversations[threadId]?.turns[turn.id];
      if (next.conversations[threadId] === undefined) return next;
      const built = turnViewFrom(turn, before);
      if (before !== undefined && sameTurn(before, built)) return next;
      const path = ownTurn(draft, next, threadId, turn.id, true);
      if (path === null) return next;
      const reshaped =
        before === undefined ||
        before.itemIds.length !== built.itemIds.length ||
        before.itemIds.some((id, i) => built.itemIds[i] !== id);
      Object.assign(path.turn, built);
      if (reshaped) path.conversation.shape += 1;
      return path.state;
    }
    case 'turn/diff/updated': {
      const { threadId, turnId, diff } = notification.params;
      const diffCut = notification.params.weftDiffCut ?? null;
      const turn = state.conversations[threadId]?.turns[turnId];
      if (turn === undefined || (!turn.diffStale && turn.diff === diff && sameJson(turn.diffCut, diffCut)))
        return state;
      const path = ownTurn(draft, state, threadId, turnId, false);
      if (path === null) return state;
      path.turn.diff = diff;
      path.turn.diffCut = diffCut;
      path.turn.diffFiles = diffCut?.files ?? diffFileCount(diff);
      path.turn.diffStale = false;
      return path.state;
    }
    case 'weft/turn/diffChanged': {
      const { threadId, turnId, files } = notification.params;
      const diffCut = notification.params.weftDiffCut ?? null;
      const turn = state.conversations[threadId]?.turns[turnId];
      if (turn === undefined || (turn.diffStale && turn.diffFiles === files && sameJson(turn.diffCut, diffCut)))
        return state;
      const path = ownTurn(draft, state, threadId, turnId, false);
      if (path === null) return state;
      path.turn.diffCut = diffCut;
      path.turn.diffFiles = files;
      path.turn.diffStale = true;
      return path.state;
    }
    case 'turn/plan/updated': {
      const { threadId, turnId, explanation, plan } = notification.params;
      const turn = state.conversations[threadId]?.turns[turnId];
      const view = { explanation: explanation ?? null, steps: plan };
      if (turn === undefined || sameJson(turn.plan, view)) return state;
      const path = ownTurn(draft, state, threadId, turnId, false);
      if (path === null) return state;
      path.turn.plan = view;
      return path.state;
    }
    case 'item/started': {
      const { threadId, turnId, item } = notification.params;
      const next = withPreview(draft, state, threadId, item);
      if (next.conversations[threadId]?.turns[turnId]?.items[item.id] !== undefined) return next;
      return putEntry(draft, next, threadId, turnId, item.id, entryFor(item, false));
    }
    case 'item/completed': {
      const { threadId, turnId, item } = notification.params;
      const before = state.conversations[threadId]?.turns[turnId]?.items[item.id];
      const entry = entryFor(item, true, before?.output ?? null);
      if (before !== undefined && sameEntry(before, entry)) return state;
      return putEntry(draft, state, threadId, turnId, item.id, entry);
    }
    case 'item/agentMessage/delta': {
      const { delta } = notification.params;
      return editOpenItem(draft, state, notification.params, (item, entry) => {
        if (item.type !== 'agentMessage' || delta === '') return null;
        const next = own(draft, entry);
        const text = own(draft, item);
        text.text = item.text + delta;
        next.item = text;
        return next;
      });
    }
    case 'item/reasoning/summaryTextDelta': {
      const { delta, summaryIndex } = notification.params;
      return editOpenItem(draft, state, notification.params, (item, entry) => {
        if (item.type !== 'reasoning' || delta === '') return null;
        return { ...entry, item: { ...item, summary: appendPart(item.summary, summaryIndex, delta) } };
      });
    }
    case 'item/reasoning/summaryPartAdded': {
      const { summaryIndex } = notification.params;
      return editOpenItem(draft, state, notification.params, (item, entry) => {
        if (item.type !== 'reasoning' || item.summary.length > summaryIndex) return null;
        return { ...entry, item: { ...item, summary: appendPart(item.summary, summaryIndex, '') } };
      });
    }
    case 'item/reasoning/textDelta': {
      const { delta, contentIndex } = notification.params;
      return editOpenItem(draft, state, notification.params, (item, entry) => {
        if (item.type !== 'reasoning' || delta === '') return null;
        return { ...entry, item: { ...item, content: appendPart(item.content, contentIndex, delta) } };
      });
    }
    case 'item/commandExecution/outputDelta': {
      const { delta } = notification.params;
      return editOpenItem(draft, state, notification.params, (item, entry) => {
        if (item.type !== 'commandExecution' || delta === '') return null;
        const next = own(draft, entry);
        next.output = appendOutput(draft, entry.output ?? EMPTY_OUTPUT, delta);
        return next;
      });
    }
    case 'item/fileChange/outputDelta':
      // The patch tool's text output is not shown: the fileChange item itself carries the diff.
      return state;
    case 'item/mcpToolCall/progress': {
      const { message, weftProgress, weftTotal } = notification.params;
      return editOpenItem(draft, state, notification.params, (item, entry) => {
        if (item.type !== 'mcpToolCall') return null;
        const next = own(draft, entry);
        next.progress = { message, progress: weftProgress ?? null, total: weftTotal ?? null };
        return next;
      });
    }
    case 'mcpServer/startupStatus/updated': {
      const { name, status, error } = notification.params;
      const failed = status === 'failed' ? (error ?? 'failed') : null;
      if ((state.mcpFailures[name] ?? null) === failed) return state;
      const next = own(draft, state);
      const others = Object.fromEntries(Object.entries(state.mcpFailures).filter(([server]) => server !== name));
      next.mcpFailures = failed === null ? others : { ...others, [name]: failed };
      return next;
    }
    case 'weft/git/progress':
      // Push progress belongs to the Changes panel, which listens for it itself.
      return state;
    case 'weft/environment/install/progress':
      // An install's progress belongs to the Install button that started it, which listens for it itself.
      return state;
    case 'weft/threads/indexed':
      // The controller lists the threads again (the lists are replaced from that answer).
      return state;
    case 'weft/automations/runEnded': {
      const runId = notification.params.automationRun.run.runId;
      if (state.endedRuns.some((r) => r.automationRun.run.runId === runId)) return state;
      const next = own(draft, state);
      next.endedRuns = [...state.endedRuns, notification.params].slice(-MAX_ENDED_RUNS);
      return next;
    }
    case 'weft/environment/status': {
      const link = notification.params;
      const was = state.link;
      if (was !== null && was.state === link.state && was.attempt === link.attempt && was.message === link.message)
        return state;
      const next = own(draft, state);
      next.link = link;
      return next;
    }
    case 'weft/thread/turnsRestored':
      // The controller reads the thread again (the turns come back with all their items).
      return state;
    case 'mcpServer/oauthLogin/completed':
      // A sign-in's outcome belongs to Settings' MCP section, which listens for it itself.
      return state;
    case 'serverRequest/resolved': {
      const { requestId } = notification.params;
      if (!state.approvals.some((request) => request.id === requestId)) return state;
      const next = own(draft, state);
      next.approvals = state.approvals.filter((request) => request.id !== requestId);
      return next;
    }
    case 'error': {
      const { threadId, turnId, error, willRetry } = notification.params;
      return addNotice(draft, state, threadId, turnId, {
        kind: willRetry ? 'retry' : 'error',
        message: error.message,
        details: error.additionalDetails ?? null,
      });
    }
    case 'hook/started':
    case 'hook/completed': {
      const { threadId, turnId, run } = notification.params;
      // A run outside a turn (SessionEnd) has no turn to be shown in.
      if (turnId === null || turnId === undefined) return state;
      const turn = state.conversations[threadId]?.turns[turnId];
      if (turn === undefined) return state;
      // Placed after the item that started last: where the hook ran in its turn.
      const told = withHookRun(turn.hooks, run, turn.itemIds.at(-1) ?? null);
      if (told === null) return state;
      const path = ownTurn(draft, state, threadId, turnId, false);
      if (path === null) return state;
      path.turn.hooks = told.hooks;
      // A new run is a new row of the conversation.
      if (told.added) path.conversation.shape += 1;
      return path.state;
    }
    case 'command/exec/outputDelta':
      // Terminal output goes to the terminal panel, not to the conversation.
      return state;
    case 'weft/browser/live/frame':
    case 'weft/browser/live/closed':
      // The live page goes to the browser panel, not to the conversation.
      return state;
    case 'warning': {
      const { message, threadId } = notification.params;
      // Held-back project config is the project config prompt's to show (ProjectConfigPrompt).
      if (notification.params.weftProjectConfig === true) return state;
      const notice: Notice = { kind: 'warning', message, details: null };
      if (state.warnings.some((w) => w.message === message)) return state;
      const conversation = threadId === undefined || threadId === null ? undefined : state.conversations[threadId];
      const lastTurnId = conversation?.turnIds[conversation.turnIds.length - 1];
      if (conversation !== undefined && lastTurnId !== undefined)
        return addNotice(draft, state, conversation.threadId, lastTurnId, notice);
      const next = own(draft, state);
      next.warnings = [...state.warnings, notice].slice(-MAX_WARNINGS);
      return next;
    }
  }
  return assertNever(notification);
}

function sameTurn(a: ReturnType<typeof turnViewFrom>, b: ReturnType<typeof turnViewFrom>): boolean {
  return (
    a.status === b.status &&
    sameJson(a.error, b.error) &&
    a.startedAt === b.startedAt &&
    a.completedAt === b.completedAt &&
    a.durationMs === b.durationMs &&
    a.itemIds.length === b.itemIds.length &&
    a.itemIds.every((id, i) => b.itemIds[i] === id && a.items[id] === b.items[id]) &&
    a.notices.length === b.notices.length
  );
}
