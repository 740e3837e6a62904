// Derived views of the state, shared by the controller and the views.
import { threadFolderKey } from './project-key';
import type {
  SandboxMode,
  SandboxPolicy,
  Thread,
  ThreadStatus,
  TurnStatus,
  WeftTokenCost,
} from '../../src-preload/protocol';
import { threadTitle as titleOf } from '../../src-preload/protocol';
import type { AppData, Conversation, TurnView } from './state';
import { plainTitle } from './plain-title';

/** The turn that is running in a conversation, if any (always the last one). */
export function runningTurn(conversation: Conversation | undefined): TurnView | null {
  if (conversation === undefined) return null;
  const lastId = conversation.turnIds[conversation.turnIds.length - 1];
  const last = lastId === undefined ? undefined : conversation.turns[lastId];
  return last !== undefined && last.status === 'inProgress' ? last : null;
}

/**
 * Whether something goes on in a thread that the person will want to hear of: a turn runs (as its status,
 * its last turn or its conversation says) or a request waits on them.
 */
export function threadBusy(data: AppData, threadId: string): boolean {
  return (
    data.statuses[threadId]?.type === 'active' ||
    data.lastTurnStatus[threadId] === 'inProgress' ||
    runningTurn(data.conversations[threadId]) !== null ||
    data.approvals.some((request) => request.params.threadId === threadId)
  );
}

export type ThreadBadge = 'running' | 'waiting' | 'failed' | null;

/** A sub-agent's state as its row says it: how its thread stands, or how its last turn ended. */
export type AgentBadge = 'running' | 'waiting' | 'failed' | 'done' | 'stopped' | 'idle';

export function agentBadge(
  status: ThreadStatus | undefined,
  lastTurn: TurnStatus | undefined,
  waiting: boolean,
): AgentBadge {
  const badge = threadBadge(status, lastTurn, waiting);
  if (badge !== null) return badge;
  if (lastTurn === 'completed') return 'done';
  if (lastTurn === 'interrupted') return 'stopped';
  return 'idle';
}

/** Whether `threadId` is a sub-agent `parentId` spawned (as the lists know it). */
export function isSubAgentOf(data: AppData, threadId: string, parentId: string): boolean {
  return findThread(data, threadId)?.parentThreadId === parentId;
}

/** What the thread list shows beside a thread. */
export function threadBadge(
  status: ThreadStatus | undefined,
  lastTurn: TurnStatus | undefined,
  waiting: boolean,
): ThreadBadge {
  if (waiting) return 'waiting';
  if (status?.type === 'active') return status.activeFlags.length > 0 ? 'waiting' : 'running';
  if (status?.type === 'systemError' || lastTurn === 'failed') return 'failed';
  return null;
}

/**
 * A thread's name for people (the protocol's `threadTitle`), its text made plain with Markdown removed and
 * cut to a length (see plain-title.ts). A fork says so.
 */
export function threadTitle(thread: Pick<Thread, 'name' | 'preview' | 'forkedFromId'>): string {
  const title = titleOf(thread, plainTitle);
  return thread.forkedFromId !== null && !title.endsWith('(fork)') ? `${title} (fork)` : title;
}

export function findThread(data: AppData, threadId: string): Thread | undefined {
  return data.live.find((t) => t.id === threadId) ?? data.archived.find((t) => t.id === threadId);
}

/**
 * The folder the Changes panel shows and a new terminal starts in (a project key, see `project-key.ts`):
 * the open thread's when it works in a git worktree of its own (`weftWorktree`), else the project's.
 */
export function workFolder(data: AppData, threadId: string | null): string | null {
  const thread = threadId === null ? undefined : findThread(data, threadId);
  return thread?.weftWorktree !== undefined ? threadFolderKey(thread) : data.cwd;
}

/** What people call a sub-agent: its nickname (with its role), else the start of its thread id. */
export function agentLabel(thread: Pick<Thread, 'agentNickname' | 'agentRole'> | undefined, threadId: string): string {
  const name = thread?.agentNickname ?? `agent ${threadId.slice(-6)}`;
  const role = thread?.agentRole ?? null;
  return role === null ? name : `${name} (${role})`;
}

export function isArchived(data: AppData, threadId: string): boolean {
  return data.archived.some((t) => t.id === threadId);
}

export function sandboxModeOf(policy: SandboxPolicy): SandboxMode {
  switch (policy.type) {
    case 'readOnly':
      return 'read-only';
    case 'workspaceWrite':
      return 'workspace-write';
    case 'dangerFullAccess':
      return 'danger-full-access';
  }
}

export function sandboxPolicyOf(mode: SandboxMode): SandboxPolicy {
  switch (mode) {
    case 'read-only':
      return { type: 'readOnly' };
    case 'workspace-write':
      return { type: 'workspaceWrite' };
    case 'danger-full-access':
      return { type: 'dangerFullAccess' };
  }
}

export interface ThreadNode {
  thread: Thread;
  depth: number;
  /** Whether a later sibling follows at the same depth (for drawing the tree's lines). */
  hasNextSibling: boolean;
}

/** The thread a thread hangs under in the tree: its parent if it is a sub-agent, else its fork source. */
function treeParent(thread: Thread): string | null {
  return thread.parentThreadId ?? thread.forkedFromId;
}

/**
 * Threads as a tree: sub-agents under the thread that spawned them, forks under the thread they were
 * forked from (when it is in the same list), each level newest first. Flattened depth-first for display.
 */
export function threadTree(threads: readonly Thread[]): ThreadNode[] {
  const ids = new Set(threads.map((t) => t.id));
  const children = new Map<string | null, Thread[]>();
  for (const thread of threads) {
    const above = treeParent(thread);
    const parent = above !== null && ids.has(above) && above !== thread.id ? above : null;
    const list = children.get(parent) ?? [];
    list.push(thread);
    children.set(parent, list);
  }
  const out: ThreadNode[] = [];
  const seen = new Set<string>();
  const walk = (parent: string | null, depth: number): void => {
    const list = children.get(parent) ?? [];
    list.forEach((thread, index) => {
      if (seen.has(thread.id)) return;
      seen.add(thread.id);
      out.push({ thread, depth, hasNextSibling: index < list.length - 1 });
      walk(thread.id, depth + 1);
    });
  };
  walk(null, 0);
  // A cycle of parents would hide threads from the walk; show them at the top level.
  for (const thread of threads) if (!seen.has(thread.id)) out.push({ thread, depth: 0, hasNextSibling: false });
  return out;
}

/** How many user messages of a conversation say exactly `text`. */
export function userMessagesWith(conversation: Conversation | undefined, text: string): number {
  if (conversation === undefined) return 0;
  let count = 0;
  for (const turnId of conversation.turnIds) {
    const turn = conversation.turns[turnId];
    for (const id of turn?.itemIds ?? []) {
      const item = turn?.items[id]?.item;
      if (item?.type === 'userMessage' && item.content.some((part) => part.type === 'text' && part.text === text))
        count += 1;
    }
  }
  return count;
}

/**
 * What a thread has cost so far, as the server last said (`weftCost.thread`, priced with `[model_prices]`);
 * null when it has said nothing of it in this session (the thread was not loaded since the page opened).
 */
export function threadCost(data: AppData, threadId: string): WeftTokenCost['thread'] | null {
  return data.costs[threadId]?.thread ?? null;
}
