// Which threads this window holds on the server, and which conversations it keeps in memory.
//
// The server keeps a thread loaded (its session, its MCP servers) while a client is subscribed to it, and
// unloads one nobody watches once it has been left long enough or too many are left. This window holds
// (stays subscribed to) the thread it shows, and a thread it stopped showing while something goes on
// there (a turn runs or was just asked for, a request waits on the person), so that thread's approvals,
// its end and its failure still reach it; every other thread it is subscribed to is let go
// (`thread/unsubscribe`). A thread still held is shown again without a resume: its conversation is live.
// Conversations of threads neither shown nor held are dropped beyond the ones shown last, and read again
// (a resume) when shown.
import type { ServerNotification } from '../../src-preload/protocol';
import type { WeftClient } from '../client/types';
import { threadBusy } from './selectors';
import type { AppData } from './state';
import { setData } from './store';
import type { AppStore, Settings } from './store';

/** Conversations of threads shown last that stay in memory when neither shown nor held. */
export const KEPT_CONVERSATIONS = 8;

/** `data` with only the conversations of the threads in `keep` (the same object when none goes). */
export function keepConversations(data: AppData, keep: ReadonlySet<string>): AppData {
  const entries = Object.entries(data.conversations);
  if (entries.every(([id]) => keep.has(id))) return data;
  return { ...data, conversations: Object.fromEntries(entries.filter(([id]) => keep.has(id))) };
}

export interface OpenThreads {
  /** The server subscribed this window to the thread (it started, resumed or forked it). */
  hold(threadId: string, settings: Settings): void;
  holds(threadId: string): boolean;
  /** The composer settings of a held thread as this window last set or learnt them; null when not held. */
  settingsOf(threadId: string): Settings | null;
  /** The thread's settings changed (a turn started with overrides). */
  remember(threadId: string, settings: Settings): void;
  /** A turn was asked for: the thread stays held until the turn is seen to start, or `noTurn`. */
  expectTurn(threadId: string): void;
  /** The turn asked for did not start (the request failed). */
  noTurn(threadId: string): void;
  /** Notifications were applied to the data: turns seen to start or end, threads the server closed. */
  heard(batch: readonly ServerNotification[]): void;
  /** The thread is being shown: it counts as the one shown last. */
  shown(threadId: string): void;
  /** Lets go of the held threads neither shown nor busy, and drops the conversations no longer kept. */
  tidy(): void;
  /** Lets go of these threads whatever goes on there (their project left the window). */
  release(threadIds: ReadonlySet<string>): void;
  /** A new connection: the server holds nothing for this window any more. */
  reset(): void;
}

export function createOpenThreads(client: WeftClient, store: AppStore): OpenThreads {
  /** Threads this window is subscribed to, with their composer settings. */
  const held = new Map<string, Settings>();
  /** Threads where a turn was asked for and not yet seen to start. */
  const expecting = new Set<string>();
  /** Threads shown, the one shown last at the end (at most KEPT_CONVERSATIONS). */
  let recent: string[] = [];

  const letGo = (threadId: string): void => {
    held.delete(threadId);
    // Nothing to do when it fails: a connection that dropped took its subscriptions with it.
    void client.request('thread/unsubscribe', { threadId }).catch(() => undefined);
  };

  return {
    hold(threadId, settings) {
      held.set(threadId, settings);
    },
    holds: (threadId) => held.has(threadId),
    settingsOf: (threadId) => held.get(threadId) ?? null,
    remember(threadId, settings) {
      if (held.has(threadId)) held.set(threadId, settings);
    },
    expectTurn(threadId) {
      expecting.add(threadId);
    },
    noTurn(threadId) {
      expecting.delete(threadId);
    },
    heard(batch) {
      for (const n of batch) {
        if (n.method === 'turn/started' || n.method === 'turn/completed') expecting.delete(n.params.threadId);
        if (n.method === 'thread/closed') held.delete(n.params.threadId);
      }
    },
    shown(threadId) {
      recent = [...recent.filter((id) => id !== threadId), threadId].slice(-KEPT_CONVERSATIONS);
    },
    tidy() {
      const { data, ui } = store.getState();
      const shown = ui.activeThreadId;
      for (const threadId of [...held.keys()]) {
        if (threadId !== shown && !expecting.has(threadId) && !threadBusy(data, threadId)) letGo(threadId);
      }
      const keep = new Set([...recent, ...held.keys()]);
      if (shown !== null) keep.add(shown);
      setData(store, (current) => keepConversations(current, keep));
    },
    release(threadIds) {
      for (const threadId of threadIds) {
        expecting.delete(threadId);
        if (held.has(threadId)) letGo(threadId);
      }
    },
    reset() {
      held.clear();
      expecting.clear();
    },
  };
}
