// The thread lists: the shown project's live and archived threads and the other open projects' live
// threads (`elsewhere`); pure edits used by the notification reducer and by the results of list / archive /
// rename requests. Listed threads carry no turns. What a listed thread says of its state (status, last
// turn, read state) is recorded by thread id too, so the board knows it for threads of any list.
import { sameJson } from './same-json';
import type { Thread, ThreadItem, ThreadReadState, TurnStatus } from '../../src-preload/protocol';
import { own } from './draft';
import type { Draft } from './draft';
import { projectKey, threadFolderKey } from './project-key';
import type { AppData, Conversation } from './state';

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

/** What a user message gives a thread as its preview: its first text part ('' when it has none). */
export function previewOfMessage(item: Extract<ThreadItem, { type: 'userMessage' }>): string {
  return item.content.find((part) => part.type === 'text')?.text ?? '';
}

/** The text of a thread's first message with text, as this window holds it; '' when it holds no such start. */
function firstMessageText(conversation: Conversation | undefined): string {
  if (conversation === undefined || conversation.olderTurnsCursor !== null) return '';
  for (const turnId of conversation.turnIds) {
    const turn = conversation.turns[turnId];
    for (const itemId of turn?.itemIds ?? []) {
      const item = turn?.items[itemId]?.item;
      if (item?.type !== 'userMessage') continue;
      const text = previewOfMessage(item);
      if (text !== '') return text;
    }
  }
  return '';
}

/**
 * `incoming` keeping the preview this window knows when it says none: the one `known` had, else the first
 * message of the thread's conversation here. A preview is the thread's first message and never changes
 * (the server keeps the first one too); a snapshot or a list read before that message was recorded says ''
 * and may arrive after it (a notification relayed from an environment, a list answered meanwhile): the
 * thread then showed as untitled until it was read again.
 */
function withKnownPreview(incoming: Thread, known: Thread | undefined, conversation: Conversation | undefined): Thread {
  if (incoming.preview !== '') return incoming;
  const preview = known !== undefined && known.preview !== '' ? known.preview : firstMessageText(conversation);
  return preview === '' ? incoming : { ...incoming, preview };
}

/** What `threads` (a server's list) become in a list that held `held`: turns dropped, known previews kept. */
function listedKeeping(state: AppData, threads: readonly Thread[], held: readonly Thread[]): Thread[] {
  if (!threads.some((t) => t.preview === '')) return threads.map(listed);
  const byId = new Map(held.map((t) => [t.id, t]));
  return threads.map((t) => withKnownPreview(listed(t), byId.get(t.id), state.conversations[t.id]));
}

/**
 * The project a thread belongs to (its key, see `project-key.ts`): a worktree thread's project, else the
 * folder it works in, on its environment.
 */
export function projectOf(thread: Pick<Thread, 'cwd' | 'weftWorktree' | 'weftEnvironment'>): string {
  return projectKey(thread.weftEnvironment, thread.weftWorktree?.projectRoot ?? thread.cwd);
}

/** `state` with one entry of a by-id record set (a new record only when it changes). */
function withEntry<K extends 'statuses' | 'lastTurnStatus' | 'readStates'>(
  draft: Draft,
  state: AppData,
  key: K,
  threadId: string,
  value: AppData[K][string],
): AppData {
  if (sameJson(state[key][threadId], value)) return state;
  const next = own(draft, state);
  const record = own(draft, next[key]);
  record[threadId] = value;
  next[key] = record;
  return next;
}

/** A record without one key (the same record when it has none). */
export function withoutKey<T>(record: Record<string, T>, key: string): Record<string, T> {
  if (!(key in record)) return record;
  return Object.fromEntries(Object.entries(record).filter(([k]) => k !== key));
}

/** Records what a thread says of its state: its status, how its last turn ended, its read state. */
function noteState(draft: Draft, state: AppData, thread: Thread): AppData {
  let next = withEntry(draft, state, 'statuses', thread.id, thread.status);
  if (thread.weftLastTurnStatus !== undefined)
    next = withEntry(draft, next, 'lastTurnStatus', thread.id, thread.weftLastTurnStatus);
  return setKnownReadState(draft, next, thread.id, thread.weftReadState);
}

/** Records a read state: an unread one by thread id; a read one (or none) removes the thread's. */
function setKnownReadState(
  draft: Draft,
  state: AppData,
  threadId: string,
  readState: ThreadReadState | undefined,
): AppData {
  const unread = unreadOnly(readState);
  if (unread !== undefined) return withEntry(draft, state, 'readStates', threadId, unread);
  if (state.readStates[threadId] === undefined) return state;
  const next = own(draft, state);
  next.readStates = withoutKey(next.readStates, threadId);
  return next;
}

/** A read state worth keeping: only an unread one (a thread without one is read). */
function unreadOnly(readState: ThreadReadState | undefined): ThreadReadState | undefined {
  return readState?.firstUnread == null ? undefined : readState;
}

/** Records a thread's read state (a `thread/readState/changed`). */
export function setReadState(draft: Draft, state: AppData, threadId: string, readState: ThreadReadState): AppData {
  return setKnownReadState(draft, state, threadId, readState);
}

/** Records how a thread's last turn went (a turn started or ended). */
export function setLastTurnStatus(draft: Draft, state: AppData, threadId: string, status: TurnStatus): AppData {
  return withEntry(draft, state, 'lastTurnStatus', threadId, status);
}

/** Replaces the entry of a thread in a list where it is; null when the list does not hold it. */
function replaceIn(list: readonly Thread[], incoming: Thread): Thread[] | null {
  const index = list.findIndex((t) => t.id === incoming.id);
  const current = list[index];
  if (current === undefined) return null;
  const entry = withKnownPreview(incoming, current, undefined);
  if (sameListed(current, entry)) return [...list];
  const copy = [...list];
  copy[index] = entry;
  return copy;
}

/**
 * Adds or refreshes a thread of an open project (threads of other folders only get their state recorded).
 * A new thread goes in by `updatedAt`; a known one keeps its place and list.
 */
export function upsertThread(draft: Draft, state: AppData, thread: Thread): AppData {
  const entry = withKnownPreview(listed(thread), undefined, state.conversations[thread.id]);
  let next = noteState(draft, state, thread);
  for (const key of ['live', 'archived'] as const) {
    const list = next[key];
    const index = list.findIndex((t) => t.id === thread.id);
    if (index === -1) continue;
    const current = list[index];
    const kept = withKnownPreview(entry, current, undefined);
    if (current !== undefined && sameListed(current, kept)) return next;
    next = own(draft, next);
    const copy = [...list];
    copy[index] = kept;
    next[key] = copy;
    return next;
  }
  for (const [project, list] of Object.entries(next.elsewhere)) {
    const replaced = replaceIn(list, entry);
    if (replaced === null) continue;
    if (list.every((t, i) => t === replaced[i])) return next;
    next = own(draft, next);
    next.elsewhere = { ...next.elsewhere, [project]: replaced };
    return next;
  }
  // A fork with its own copy of the project (a worktree) lives elsewhere but belongs under its parent, as a
  // sub-agent belongs under the thread that spawned it; a worktree thread lives in its worktree but belongs
  // to the project it was started for.
  const above = thread.parentThreadId ?? thread.forkedFromId;
  const forkOfListed = above !== null && next.live.some((t) => t.id === above);
  const ofProject = threadFolderKey(thread) === state.cwd || projectOf(thread) === state.cwd;
  if (state.cwd !== null && (ofProject || forkOfListed)) {
    next = own(draft, next);
    next.live = byUpdatedDesc([entry, ...next.live]);
    return next;
  }
  const other = next.elsewhere[projectOf(thread)];
  if (other === undefined) return next;
  next = own(draft, next);
  next.elsewhere = { ...next.elsewhere, [projectOf(thread)]: byUpdatedDesc([entry, ...other]) };
  return next;
}

const PATCHABLE = ['name', 'status', 'updatedAt', 'preview', 'cwd'] as const;
type Patchable = (typeof PATCHABLE)[number];

/** A list with one thread's fields changed; null when it does not hold the thread or nothing changes. */
function patchedList(
  list: readonly Thread[],
  threadId: string,
  patch: Partial<Pick<Thread, Patchable>>,
  bump: boolean,
  sorted: boolean,
): Thread[] | null {
  const index = list.findIndex((t) => t.id === threadId);
  const current = list[index];
  if (current === undefined) return null;
  const effective = { ...patch };
  if (bump && effective.updatedAt !== undefined && effective.updatedAt <= current.updatedAt) delete effective.updatedAt;
  const changed = PATCHABLE.some(
    (field) => field in effective && JSON.stringify(current[field]) !== JSON.stringify(effective[field]),
  );
  if (!changed) return null;
  const copy = [...list];
  copy[index] = { ...current, ...effective };
  return sorted && effective.updatedAt !== undefined ? byUpdatedDesc(copy) : copy;
}

/**
 * Changes fields of a listed thread, in whichever list holds it. With `bump`, `updatedAt` only moves
 * forward and the live lists are re-sorted.
 */
export function patchThread(
  draft: Draft,
  state: AppData,
  threadId: string,
  patch: Partial<Pick<Thread, Patchable>>,
  bump = false,
): AppData {
  let next = state;
  for (const key of ['live', 'archived'] as const) {
    const list = patchedList(next[key], threadId, patch, bump, key === 'live');
    if (list === null) continue;
    next = own(draft, next);
    next[key] = list;
  }
  for (const [project, threads] of Object.entries(next.elsewhere)) {
    const list = patchedList(threads, threadId, patch, bump, true);
    if (list === null) continue;
    next = own(draft, next);
    next.elsewhere = { ...next.elsewhere, [project]: list };
  }
  return next;
}

/** Moves a thread from the live list to the archived list (newest first); another project's just goes. */
export function markArchived(draft: Draft, state: AppData, threadId: string): AppData {
  let next = state;
  for (const [project, threads] of Object.entries(state.elsewhere)) {
    if (!threads.some((t) => t.id === threadId)) continue;
    next = own(draft, next);
    next.elsewhere = { ...next.elsewhere, [project]: threads.filter((t) => t.id !== threadId) };
  }
  const thread = next.live.find((t) => t.id === threadId);
  if (thread === undefined) return next;
  next = own(draft, next);
  next.live = next.live.filter((t) => t.id !== threadId);
  next.archived = byUpdatedDesc([thread, ...next.archived.filter((t) => t.id !== threadId)]);
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
 * What listed threads say of their state, recorded by thread id, except that a `notLoaded` from disk does
 * not hide a status this session saw live.
 */
function noteListed(state: AppData, threads: readonly Thread[]): AppData {
  const statuses = { ...state.statuses };
  const lastTurnStatus = { ...state.lastTurnStatus };
  const readStates = { ...state.readStates };
  for (const thread of threads) {
    if (thread.status.type !== 'notLoaded' || statuses[thread.id] === undefined) statuses[thread.id] = thread.status;
    if (thread.weftLastTurnStatus !== undefined) lastTurnStatus[thread.id] = thread.weftLastTurnStatus;
    const readState = unreadOnly(thread.weftReadState);
    if (readState !== undefined) readStates[thread.id] = readState;
  }
  const read = new Set(threads.filter((t) => unreadOnly(t.weftReadState) === undefined).map((t) => t.id));
  return {
    ...state,
    statuses,
    lastTurnStatus,
    readStates: Object.fromEntries(Object.entries(readStates).filter(([id]) => !read.has(id))),
  };
}

/** The result of `thread/list`: replaces one list wholesale and records what each thread says of its state. */
export function setList(state: AppData, which: 'live' | 'archived', threads: readonly Thread[]): AppData {
  return { ...noteListed(state, threads), [which]: listedKeeping(state, threads, state[which]) };
}

/** The first page of another open project's live threads (nothing when that project is no longer open). */
export function setElsewhere(state: AppData, project: string, threads: readonly Thread[]): AppData {
  if (state.elsewhere[project] === undefined) return state;
  const next = noteListed(state, threads);
  const held = state.elsewhere[project];
  return { ...next, elsewhere: { ...next.elsewhere, [project]: listedKeeping(state, threads, held) } };
}

/**
 * The next page of `thread/list` for one list: its threads join the list (those it already holds, moved
 * since the previous page, are not added twice), newest first, and their states are recorded as `setList`
 * does.
 */
export function appendList(state: AppData, which: 'live' | 'archived', threads: readonly Thread[]): AppData {
  const known = new Set(state[which].map((t) => t.id));
  const added = threads.filter((t) => !known.has(t.id));
  if (added.length === 0) return state;
  return { ...noteListed(state, added), [which]: byUpdatedDesc([...state[which], ...added.map(listed)]) };
}
