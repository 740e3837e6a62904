/**
 * What a relay's client has seen of each thread it follows, so that after the link to the remote drops
 * and comes back, what happened meanwhile reaches it once: every turn and item the client never saw
 * start or complete is told from the remote's own record of the thread (`thread/resume`, read from the
 * rollout), and a notification the client already had is never passed on twice (a live one arriving
 * after the replay, or a request the remote asks again). A followed thread's sub-agents are followed with
 * it, those it spawned while the link was down included.
 */
import type { ServerNotification, Thread, ThreadItem, Turn } from '../../../src-preload/protocol';

interface Seen {
  turnsStarted: Set<string>;
  turnsCompleted: Set<string>;
  itemsStarted: Set<string>;
  itemsCompleted: Set<string>;
}

function itemIsDone(item: ThreadItem, turn: Turn, index: number): boolean {
  if (turn.status !== 'inProgress') return true;
  if ('status' in item && typeof item.status === 'string') return item.status !== 'inProgress';
  // A message or reasoning still streaming is the newest item of a running turn.
  return index < turn.items.length - 1;
}

export class ThreadsSeen {
  private readonly threads = new Map<string, Seen>();

  /** The client follows this thread (it started, resumed or forked it). */
  follow(threadId: string): void {
    if (!this.threads.has(threadId)) {
      this.threads.set(threadId, {
        turnsStarted: new Set(),
        turnsCompleted: new Set(),
        itemsStarted: new Set(),
        itemsCompleted: new Set(),
      });
    }
  }

  unfollow(threadId: string): void {
    this.threads.delete(threadId);
  }

  followed(): string[] {
    return [...this.threads.keys()];
  }

  /** Notes a thread's turns the client received whole (in a `thread/start`, `resume` or `fork` result). */
  noteThread(thread: Thread): void {
    this.follow(thread.id);
    const seen = this.threads.get(thread.id);
    if (seen === undefined) return;
    for (const turn of thread.turns) {
      seen.turnsStarted.add(turn.id);
      if (turn.status !== 'inProgress') seen.turnsCompleted.add(turn.id);
      turn.items.forEach((item, index) => {
        seen.itemsStarted.add(item.id);
        if (itemIsDone(item, turn, index)) seen.itemsCompleted.add(item.id);
      });
    }
  }

  /**
   * The sub-agents of `thread` the client does not follow: the threads its `collabAgentToolCall` items
   * spawned (a child started while the link was down is known only from them).
   */
  unfollowedChildren(thread: Thread): string[] {
    const children = new Set<string>();
    for (const turn of thread.turns)
      for (const item of turn.items)
        if (item.type === 'collabAgentToolCall' && item.tool === 'spawnAgent')
          for (const id of item.receiverThreadIds) if (!this.threads.has(id)) children.add(id);
    return [...children];
  }

  /** Records a notification on its way to the client; false when the client already had it. */
  pass(n: ServerNotification): boolean {
    // A sub-agent of a thread the client follows is followed too: after a cut link its turns are replayed.
    if (n.method === 'thread/started') {
      const parent = n.params.thread.parentThreadId;
      if (parent !== null && parent !== undefined && this.threads.has(parent)) this.noteThread(n.params.thread);
      return true;
    }
    const params: object = n.params;
    const threadId = 'threadId' in params && typeof params.threadId === 'string' ? params.threadId : undefined;
    const seen = threadId === undefined ? undefined : this.threads.get(threadId);
    if (seen === undefined) return true;
    switch (n.method) {
      case 'turn/started':
        return addNew(seen.turnsStarted, n.params.turn.id);
      case 'turn/completed':
        seen.turnsStarted.add(n.params.turn.id);
        return addNew(seen.turnsCompleted, n.params.turn.id);
      case 'item/started':
        return addNew(seen.itemsStarted, n.params.item.id);
      case 'item/completed':
        seen.itemsStarted.add(n.params.item.id);
        return addNew(seen.itemsCompleted, n.params.item.id);
      case 'item/agentMessage/delta':
      case 'item/reasoning/summaryTextDelta':
      case 'item/reasoning/summaryPartAdded':
      case 'item/reasoning/textDelta':
      case 'item/commandExecution/outputDelta':
      case 'item/fileChange/outputDelta':
        return !seen.itemsCompleted.has(n.params.itemId);
      default:
        return true;
    }
  }

  /**
   * The notifications that bring the client from what it saw to `thread` as the remote has it now, in
   * order: each unseen turn's start, its items' starts and completions, its end; then the thread's status.
   * They are recorded as seen.
   */
  replay(thread: Thread): ServerNotification[] {
    this.follow(thread.id);
    const out: ServerNotification[] = [];
    const threadId = thread.id;
    const push = (n: ServerNotification): void => {
      if (this.pass(n)) out.push(n);
    };
    for (const turn of thread.turns) {
      push({ method: 'turn/started', params: { threadId, turn: { ...turn, items: [], status: 'inProgress' } } });
      // The rollout keeps turns' times, not items': the turn's start and end stand for them.
      const startedAtMs = (turn.startedAt ?? Date.now() / 1000) * 1000;
      const completedAtMs = turn.completedAt === null ? Date.now() : turn.completedAt * 1000;
      turn.items.forEach((item, index) => {
        push({ method: 'item/started', params: { threadId, turnId: turn.id, item, startedAtMs } });
        if (itemIsDone(item, turn, index)) {
          push({ method: 'item/completed', params: { threadId, turnId: turn.id, item, completedAtMs } });
        }
      });
      if (turn.status !== 'inProgress') push({ method: 'turn/completed', params: { threadId, turn } });
    }
    if (out.length > 0) out.push({ method: 'thread/status/changed', params: { threadId, status: thread.status } });
    return out;
  }
}

function addNew(set: Set<string>, id: string): boolean {
  if (set.has(id)) return false;
  set.add(id);
  return true;
}
