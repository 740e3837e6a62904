// The project's thread lists (live and archived): pure edits used by the notification reducer and by the
// results of list / archive / rename requests. Listed threads carry no turns.
import type { Thread } from '../../src-preload/protocol';
import { own } from './draft';
import type { Draft } from './draft';
import type { AppData } from './state';

/** A thread as the lists keep it: without its turns. */
export function listed(thread: Thread): Thread {
  return thread.turns.length === 0 ? thread : { ...thread, turns: [] };
}

/** Newest first by `updatedAt`; ties keep their order. */
export function byUpdatedDesc(threads: readonly Thread[]): Thread[] {
  // `updatedAt` is in seconds: threads of the same second keep the server's order, newest id (uuidv7) first.
  return [...threads].sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

function sameListed(a: Thread, b: Thread): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Adds or refreshes a thread of the open project (threads of other folders only get their status
 * recorded). A new thread goes in by `updatedAt`; a known one keeps its place and list.
 */
export function upsertThread(draft: Draft, state: AppData, thread: Thread): AppData {
  const entry = listed(thread);
  let next = state;
  const status = state.statuses[thread.id];
  if (status === undefined || JSON.stringify(status) !== JSON.stringify(thread.status)) {
    next = own(draft, next);
    next.statuses = own(draft, next.statuses);
    next.statuses[thread.id] = thread.status;
  }
  for (const key of ['live', 'archived'] as const) {
    const list = next[key];
    const index = list.findIndex((t) => t.id === thread.id);
    if (index === -1) continue;
    const current = list[index];
    if (current !== undefined && sameListed(current, entry)) return next;
    next = own(draft, next);
    const copy = [...list];
    copy[index] = entry;
    next[key] = copy;
    return next;
  }
  // A fork with its own copy of the project (a worktree) lives elsewhere but belongs under its parent, as a
  // sub-agent belongs under the thread that spawned it; a worktree thread lives in its worktree but belongs
  // to the project it was started for.
  const above = thread.parentThreadId ?? thread.forkedFromId;
  const forkOfListed = above !== null && next.live.some((t) => t.id === above);
  const ofProject = thread.cwd === state.cwd || thread.weftWorktree?.projectRoot === state.cwd;
  if (state.cwd === null || (!ofProject && !forkOfListed)) return next;
  next = own(draft, next);
  next.live = byUpdatedDesc([entry, ...next.live]);
  return next;
}

const PATCHABLE = ['name', 'status', 'updatedAt', 'preview'] as const;

/**
 * Changes fields of a listed thread, in whichever list holds it. With `bump`, `updatedAt` only moves
 * forward and the live list is re-sorted.
 */
export function patchThread(
  draft: Draft,
  state: AppData,
  threadId: string,
  patch: Partial<Pick<Thread, 'name' | 'status' | 'updatedAt' | 'preview'>>,
  bump = false,
): AppData {
  let next = state;
  for (const key of ['live', 'archived'] as const) {
    const list = next[key];
    const index = list.findIndex((t) => t.id === threadId);
    const current = list[index];
    if (current === undefined) continue;
    const effective = { ...patch };
    if (bump && effective.updatedAt !== undefined && effective.updatedAt <= current.updatedAt)
      delete effective.updatedAt;
    const changed = PATCHABLE.some(
      (field) => field in effective && JSON.stringify(current[field]) !== JSON.stringify(effective[field]),
    );
    if (!changed) continue;
    next = own(draft, next);
    const copy = [...list];
    copy[index] = { ...current, ...effective };
    next[key] = key === 'live' && effective.updatedAt !== undefined ? byUpdatedDesc(copy) : copy;
  }
  return next;
}

/** Moves a thread from the live list to the archived list (newest first). */
export function markArchived(draft: Draft, state: AppData, threadId: string): AppData {
  const thread = state.live.find((t) => t.id === threadId);
  if (thread === undefined) return state;
  const next = own(draft, state);
  next.live = state.live.filter((t) => t.id !== threadId);
  next.archived = byUpdatedDesc([thread, ...state.archived.filter((t) => t.id !== threadId)]);
  return next;
}

export function markUnarchived(draft: Draft, state: AppData, threadId: string): AppData {
  const thread = state.archived.find((t) => t.id === threadId);
  if (thread === undefined) return state;
  const next = own(draft, state);
  next.archived = state.archived.filter((t) => t.id !== threadId);
  next.live = byUpdatedDesc([thread, ...state.live.filter((t) => t.id !== threadId)]);
  return next;
}

/**
 * The result of `thread/list`: replaces one list wholesale and records each thread's status, except that
 * a `notLoaded` from disk does not hide a status this session saw live.
 */
export function setList(state: AppData, which: 'live' | 'archived', threads: readonly Thread[]): AppData {
  const statuses = { ...state.statuses };
  for (const thread of threads) {
    if (thread.status.type !== 'notLoaded' || statuses[thread.id] === undefined) statuses[thread.id] = thread.status;
  }
  return { ...state, [which]: threads.map(listed), statuses };
}

/**
 * The next page of `thread/list` for one list: its threads join the list (those it already holds, moved
 * since the previous page, are not added twice), newest first, and their statuses are recorded as
 * `setList` does.
 */
export function appendList(state: AppData, which: 'live' | 'archived', threads: readonly Thread[]): AppData {
  const known = new Set(state[which].map((t) => t.id));
  const added = threads.filter((t) => !known.has(t.id));
  if (added.length === 0) return state;
  const statuses = { ...state.statuses };
  for (const thread of added) {
    if (thread.status.type !== 'notLoaded' || statuses[thread.id] === undefined) statuses[thread.id] = thread.status;
  }
  return { ...state, [which]: byUpdatedDesc([...state[which], ...added.map(listed)]), statuses };
}
