import type { ServerNotification, ServerRequest, Thread, Turn } from '../../src-preload/protocol';
import type { Session } from '../core/session';
import { threadPreview, userItemText } from '../store/preview';
import type { Client } from './dispatcher';
import { PendingRequests } from './pending-requests';
import { RequestQueue, type QueueMode } from './request-queue';
import type { Disposable } from '../util/disposable';

/**
 * Where a thread stands in this host. `notLoaded` → `loading` (`thread/start`, `resume`, `fork`) → `idle`
 * ⇄ `running` (a turn) → `unloading` (archive, nobody watching, the host closing) → `notLoaded`.
 * Rollback, revert and redo change an `idle` (or not loaded) thread and leave it as it was; unarchive
 * changes a `notLoaded` one. Loading and unloading happen while a request (or the unload) holds the
 * thread's queue, so no request of that thread ever sees them half done.
 */
export type ThreadLifecycle = 'notLoaded' | 'loading' | 'idle' | 'running' | 'unloading';

export interface LoadedEntry {
  session: Session;
  /** The thread as the store describes it (name, preview, path…); status and turns are filled live. */
  thread: Thread;
  subscribers: Set<Client>;
  pending: PendingRequests;
  unsubscribeSession: () => void;
  /** A sub-agent its parent holds open: it is not unloaded while held, however idle and unwatched. */
  held: boolean;
}

export interface ThreadManagerOptions {
  log: (line: string) => void;
  /** A loaded thread nobody watches (idle, no subscriber, no request waiting) is unloaded after this long. */
  unloadAfterMs: number;
  /** At most this many threads nobody watches stay loaded; beyond, the one unwatched longest is unloaded. */
  maxUnwatched: number;
}

/**
 * The threads of this host: their lifecycle, their request queues, their sessions, the clients watching
 * each and the server requests waiting for an answer. Notifications and server requests of a thread go to
 * every client subscribed to it or to one of its ancestors (a sub-agent's approvals reach whoever watches
 * the thread that spawned it), and its `thread/status/changed` to every client. A loaded thread nobody
 * watches keeps a session, its MCP servers and its recorder: it is unloaded after `unloadAfterMs`, or at
 * once when more than `maxUnwatched` such threads are loaded. A sub-agent its parent holds open is never
 * unloaded that way, nor is a running thread or one whose held sub-agents run.
 */
export class ThreadManager implements Disposable {
  private readonly loaded = new Map<string, LoadedEntry>();
  /** Threads being loaded or unloaded now. */
  private readonly moving = new Map<string, 'loading' | 'unloading'>();
  /** Request queues of the threads with a request queued or being handled. */
  private readonly queues = new Map<string, RequestQueue>();
  /** Loaded threads nobody watches, the one unwatched longest first, with the timer that unloads each. */
  private readonly unwatched = new Map<string, NodeJS.Timeout>();
  private readonly clients = new Set<Client>();
  private nextRequestId = 1;
  /** How long a thread nobody watches stays loaded (0 once the host makes way: `unloadWhenUnwatched`). */
  private unloadAfterMs: number;

  constructor(private readonly options: ThreadManagerOptions) {
    this.unloadAfterMs = options.unloadAfterMs;
  }

  /**
   * The host makes way for another process (a Weft of another version on the same WEFT_HOME): every
   * thread nobody watches is unloaded now, and each other one as soon as nobody watches it (its turn
   * ended, its last client left), so that its rollout's lock is the other process's to take.
   */
  unloadWhenUnwatched(): void {
    this.unloadAfterMs = 0;
    for (const threadId of [...this.unwatched.keys()]) this.unloadUnwatched(threadId, 'making way for another Weft');
  }

  /** Remembers a client, so thread-wide notifications (archived, renamed…) reach it. */
  seen(client: Client): void {
    if (this.clients.has(client) || client.closed) return;
    this.clients.add(client);
    client.onClose(() => this.clientClosed(client));
  }

  lifecycle(threadId: string): ThreadLifecycle {
    const moving = this.moving.get(threadId);
    if (moving !== undefined) return moving;
    const entry = this.loaded.get(threadId);
    if (!entry) return 'notLoaded';
    return entry.session.activeTurnId === null ? 'idle' : 'running';
  }

  /** Handles a request in its thread's queue (see `QueueMode`). */
  run<T>(threadId: string, mode: QueueMode, work: () => Promise<T>): Promise<T> {
    let queue = this.queues.get(threadId);
    if (!queue) {
      queue = new RequestQueue();
      this.queues.set(threadId, queue);
    }
    const own = queue;
    return own.run(mode, work, () => {
      if (this.queues.get(threadId) === own && own.size === 0) this.queues.delete(threadId);
    });
  }

  get(threadId: string): LoadedEntry | undefined {
    return this.loaded.get(threadId);
  }

  loadedIds(): string[] {
    return [...this.loaded.keys()];
  }

  isLoaded(threadId: string): boolean {
    return this.loaded.has(threadId);
  }

  /**
   * `notLoaded` → `loading` → `idle`: `open` builds the thread's session and hands it to `add`. A thread
   * nobody subscribed to by the end (a failed request) is left to the unwatched threads' rules.
   */
  async load<T>(threadId: string, open: () => Promise<T>): Promise<T> {
    const now = this.lifecycle(threadId);
    if (now !== 'notLoaded') throw new Error(`thread ${threadId} cannot be loaded: it is ${now}`);
    this.moving.set(threadId, 'loading');
    try {
      return await open();
    } finally {
      this.moving.delete(threadId);
      const entry = this.loaded.get(threadId);
      if (entry) this.reconsider(entry);
    }
  }

  /**
   * Takes over a session. `makeSession` receives the request sender the session must use, so its
   * approvals reach this thread's subscribers.
   */
  add(
    thread: Thread,
    makeSession: (sendRequest: (request: ServerRequest, signal: AbortSignal) => Promise<unknown>) => Session,
    options: { held?: boolean } = {},
  ): LoadedEntry {
    const subscribers = new Set<Client>();
    const audience = (): Set<Client> => this.audience(thread.id);
    const pending = new PendingRequests(thread.id, () => this.nextRequestId++, audience, this.options.log);
    const session = makeSession((request, signal) => pending.ask(request, signal));
    const entry: LoadedEntry = {
      session,
      thread,
      subscribers,
      pending,
      unsubscribeSession: () => undefined,
      held: options.held === true,
    };
    entry.unsubscribeSession = session.subscribe((n) => {
      this.onSessionEvent(entry, n);
      // A thread's status (running, waiting on someone, idle) is news for every client: lists show it for
      // threads nobody there watches, so a client can let go of a thread and still see it need someone.
      // (Subscribing makes a client seen, so subscribers get it this way too.)
      if (n.method === 'thread/status/changed') this.broadcast(n);
      else for (const client of audience()) client.notify(n);
    });
    this.loaded.set(thread.id, entry);
    return entry;
  }

  subscribe(threadId: string, client: Client): void {
    const entry = this.loaded.get(threadId);
    if (!entry) return;
    this.seen(client);
    if (entry.subscribers.has(client)) return;
    entry.subscribers.add(client);
    this.reconsider(entry);
    entry.pending.attach(client);
    // What the thread's sub-agents wait for reaches the client too.
    for (const descendant of this.descendants(threadId)) descendant.pending.attach(client);
  }

  /** A sub-agent its parent holds open (or no longer does): held ones are never unloaded for being idle. */
  hold(threadId: string, held: boolean): void {
    const entry = this.loaded.get(threadId);
    if (!entry || entry.held === held) return;
    entry.held = held;
    this.reconsider(entry);
    this.reconsiderParent(entry);
  }

  /** The clients that hear of a thread: its subscribers and those of its loaded ancestors. */
  private audience(threadId: string): Set<Client> {
    const out = new Set<Client>();
    const seen = new Set<string>();
    for (let id: string | null | undefined = threadId; id && !seen.has(id);) {
      seen.add(id);
      const entry = this.loaded.get(id);
      if (!entry) break;
      for (const client of entry.subscribers) out.add(client);
      id = entry.thread.parentThreadId;
    }
    return out;
  }

  /** The loaded threads below `threadId` (its sub-agents, theirs, …). */
  private descendants(threadId: string): LoadedEntry[] {
    const out: LoadedEntry[] = [];
    const below = new Set([threadId]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const entry of this.loaded.values()) {
        const parent = entry.thread.parentThreadId;
        if (parent && below.has(parent) && !below.has(entry.thread.id)) {
          below.add(entry.thread.id);
          out.push(entry);
          grew = true;
        }
      }
    }
    return out;
  }

  unsubscribe(threadId: string, client: Client): 'notLoaded' | 'notSubscribed' | 'unsubscribed' {
    const entry = this.loaded.get(threadId);
    if (!entry) return 'notLoaded';
    if (!entry.subscribers.delete(client)) return 'notSubscribed';
    this.reconsider(entry);
    return 'unsubscribed';
  }

  /** Thread-wide news (started, status, archived, renamed, closed) goes to every client. */
  broadcast(notification: ServerNotification): void {
    for (const client of this.clients) client.notify(notification);
  }

  /** The live view of a loaded thread: status now, turns as they are. */
  liveThread(threadId: string, includeTurns: boolean): Thread | null {
    const entry = this.loaded.get(threadId);
    if (!entry) return null;
    // A running turn's items include those still open (a patch waiting for review), after the completed ones.
    const turns: Turn[] = includeTurns
      ? entry.session.turns.map((r) => ({
          ...r.turn,
          ...(r.diff ? { weftDiff: r.diff, ...(r.diffCut ? { weftDiffCut: r.diffCut } : {}) } : {}),
          // Runs read from disk with the turn, then those of this process.
          ...(r.hookRuns ? { weftHookRuns: [...(r.turn.weftHookRuns ?? []), ...r.hookRuns] } : {}),
          items: [...r.items, ...(r.turn.status === 'inProgress' ? (r.open?.values() ?? []) : [])],
        }))
      : [];
    const last = entry.session.turns.at(-1)?.turn.status;
    return { ...entry.thread, status: entry.session.status, turns, ...(last ? { weftLastTurnStatus: last } : {}) };
  }

  updateThread(threadId: string, patch: Partial<Thread>): void {
    const entry = this.loaded.get(threadId);
    if (entry) entry.thread = { ...entry.thread, ...patch };
  }

  /**
   * `idle` | `running` → `unloading` → `notLoaded`: settles the requests still waiting, stops a running
   * turn and shuts the session down (its commands, its MCP servers, its recorder). Called by a request
   * holding the thread's queue, or by the host closing.
   */
  async unload(threadId: string, reason: string): Promise<void> {
    const entry = this.loaded.get(threadId);
    if (!entry) return;
    this.loaded.delete(threadId);
    this.forgetUnwatched(threadId);
    this.moving.set(threadId, 'unloading');
    try {
      entry.pending.cancelAll();
      await entry.session
        .shutdown()
        .catch((e: unknown) => this.options.log(`weft app-server: closing thread ${threadId}: ${String(e)}`));
      entry.unsubscribeSession();
    } finally {
      this.moving.delete(threadId);
    }
    this.options.log(`weft app-server: unloaded thread ${threadId} (${reason})`);
    this.broadcast({ method: 'thread/closed', params: { threadId } });
  }

  /** Unloads every thread (the host is closing). */
  dispose(): Promise<void> {
    return this.closeAll();
  }

  async closeAll(): Promise<void> {
    for (const timer of this.unwatched.values()) clearTimeout(timer);
    this.unwatched.clear();
    await Promise.all([...this.loaded.keys()].map((id) => this.unload(id, 'server shutting down')));
  }

  private onSessionEvent(entry: LoadedEntry, n: ServerNotification): void {
    if (n.method === 'turn/started' || n.method === 'turn/completed') {
      entry.thread = { ...entry.thread, updatedAt: Math.floor(Date.now() / 1000) };
    }
    if (n.method === 'thread/status/changed') {
      this.reconsider(entry);
      this.reconsiderParent(entry);
    }
    if (n.method === 'item/completed' && n.params.item.type === 'userMessage' && entry.thread.preview === '') {
      entry.thread = { ...entry.thread, preview: threadPreview(userItemText(n.params.item)) };
    }
  }

  private clientClosed(client: Client): void {
    this.clients.delete(client);
    for (const entry of this.loaded.values()) {
      if (entry.subscribers.delete(client)) this.reconsider(entry);
    }
  }

  /**
   * Nobody needs the thread loaded: no subscriber, no turn, no request waiting, not held open by its parent,
   * and none of the sub-agents it holds open running (unloading it would stop them).
   */
  private isUnwatched(entry: LoadedEntry): boolean {
    return (
      !entry.held &&
      entry.subscribers.size === 0 &&
      entry.session.activeTurnId === null &&
      entry.pending.size === 0 &&
      !this.descendants(entry.thread.id).some((d) => d.held && d.session.activeTurnId !== null)
    );
  }

  /** A thread's change may change whether its parent is needed (see `isUnwatched`). */
  private reconsiderParent(entry: LoadedEntry): void {
    const parentId = entry.thread.parentThreadId;
    const parent = parentId ? this.loaded.get(parentId) : undefined;
    if (parent) this.reconsider(parent);
  }

  /** Starts or stops counting a thread among those nobody watches, after a change that may matter. */
  private reconsider(entry: LoadedEntry): void {
    const threadId = entry.thread.id;
    if (this.loaded.get(threadId) !== entry || this.moving.has(threadId)) return;
    if (!this.isUnwatched(entry)) {
      this.forgetUnwatched(threadId);
      return;
    }
    if (this.unwatched.has(threadId)) return;
    const timer = setTimeout(() => this.unloadUnwatched(threadId, 'idle with no subscribers'), this.unloadAfterMs);
    timer.unref();
    this.unwatched.set(threadId, timer);
    for (const oldest of this.unwatched.keys()) {
      if (this.unwatched.size <= this.options.maxUnwatched) break;
      this.forgetUnwatched(oldest);
      this.unloadUnwatched(
        oldest,
        `more than ${this.options.maxUnwatched} idle threads with no subscribers; this one was left longest`,
      );
    }
  }

  private forgetUnwatched(threadId: string): void {
    const timer = this.unwatched.get(threadId);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.unwatched.delete(threadId);
  }

  /** Unloads a thread in its turn of its queue, unless someone watches it again by then. */
  private unloadUnwatched(threadId: string, reason: string): void {
    this.forgetUnwatched(threadId);
    void this.run(threadId, 'exclusive', async () => {
      const entry = this.loaded.get(threadId);
      if (entry && this.isUnwatched(entry)) await this.unload(threadId, reason);
    }).catch((e: unknown) => this.options.log(`weft app-server: unloading thread ${threadId}: ${String(e)}`));
  }
}
