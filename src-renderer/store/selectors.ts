// Derived views of the state, shared by the controller and the views.
import type { SandboxMode, SandboxPolicy, Thread } from '../../src-preload/protocol';
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

/**
 * Threads as a tree: forks under the thread they were forked from (when it is in the same list), each
 * level newest first. Flattened depth-first for display.
 */
export function threadTree(threads: readonly Thread[]): ThreadNode[] {
  const ids = new Set(threads.map((t) => t.id));
  const children = new Map<string | null, Thread[]>();
  for (const thread of threads) {
    const parent =
      thread.forkedFromId !== null && ids.has(thread.forkedFromId) && thread.forkedFromId !== thread.id
        ? thread.forkedFromId
        : null;
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
  // A cycle in forkedFromId would hide threads from the walk; show them at the top level.
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
