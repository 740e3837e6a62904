import type { ServerNotification, ServerRequest, Thread, Turn } from '../../src-preload/protocol';
import type { Session } from '../core/session';
import { threadPreview, userItemText } from '../store/preview';
import type { Client } from './dispatcher';
import { PendingRequests } from './pending-requests';

interface LoadedThread {
  session: Session;
  /** The thread as the store describes it (name, preview, path…); status and turns are filled live. */
  thread: Thread;
  subscribers: Set<Client>;
  pending: PendingRequests;
  unloadTimer: NodeJS.Timeout | null;
  unsubscribeSession: () => void;
}

export interface ThreadManagerOptions {
  log: (line: string) => void;
  /** An idle thread without subscribers is unloaded after this long (Codex: 30 minutes). */
  unloadAfterMs: number;
}

/**
 * The threads loaded in this server: their sessions, the clients watching each, and the server
 * requests waiting for an answer. Notifications of a thread go to every client subscribed to it.
 */
export class ThreadManager {
  private readonly loaded = new Map<string, LoadedThread>();
  private readonly clients = new Set<Client>();
  private nextRequestId = 1;

  constructor(private readonly options: ThreadManagerOptions) {}

  /** Remembers a client, so thread-wide notifications (archived, renamed…) reach it. */
  seen(client: Client): void {
    if (this.clients.has(client) || client.closed) return;
    this.clients.add(client);
    client.onClose(() => this.clientClosed(client));
  }

  get(threadId: string): LoadedThread | undefined {
    return this.loaded.get(threadId);
  }

  loadedIds(): string[] {
    return [...this.loaded.keys()];
  }

  isLoaded(threadId: string): boolean {
    return this.loaded.has(threadId);
  }

  /**
   * Takes over a session. `makeSession` receives the request sender the session must use, so its
   * approvals reach this thread's subscribers.
   */
  add(
    thread: Thread,
    makeSession: (sendRequest: (request: ServerRequest, signal: AbortSignal) => Promise<unknown>) => Session,
  ): LoadedThread {
    const subscribers = new Set<Client>();
    const pending = new PendingRequests(
      thread.id,
      () => this.nextRequestId++,
      () => subscribers,
      this.options.log,
    );
    const session = makeSession((request, signal) => pending.ask(request, signal, () => cancelAnswer(request)));
    const entry: LoadedThread = {
      session,
      thread,
      subscribers,
      pending,
      unloadTimer: null,
      unsubscribeSession: () => undefined,
    };
    entry.unsubscribeSession = session.subscribe((n) => {
      this.onSessionEvent(entry, n);
      for (const client of subscribers) client.notify(n);
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
    this.cancelUnload(entry);
    entry.pending.attach(client);
  }

  unsubscribe(threadId: string, client: Client): 'notLoaded' | 'notSubscribed' | 'unsubscribed' {
    const entry = this.loaded.get(threadId);
    if (!entry) return 'notLoaded';
    if (!entry.subscribers.delete(client)) return 'notSubscribed';
    this.maybeScheduleUnload(entry);
    return 'unsubscribed';
  }

  /** Thread-wide news (started, archived, renamed, closed) goes to every client. */
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
          items: [...r.items, ...(r.turn.status === 'inProgress' ? (r.open?.values() ?? []) : [])],
        }))
      : [];
    return { ...entry.thread, status: entry.session.status, turns };
  }

  updateThread(threadId: string, patch: Partial<Thread>): void {
    const entry = this.loaded.get(threadId);
    if (entry) entry.thread = { ...entry.thread, ...patch };
  }

  /** Shuts the session down and forgets the thread. */
  async unload(threadId: string, reason: string): Promise<void> {
    const entry = this.loaded.get(threadId);
    if (!entry) return;
    this.loaded.delete(threadId);
    this.cancelUnload(entry);
    entry.pending.cancelAll(cancelAnswer);
    await entry.session
      .shutdown()
      .catch((e: unknown) => this.options.log(`weft app-server: closing thread ${threadId}: ${String(e)}`));
    entry.unsubscribeSession();
    this.options.log(`weft app-server: unloaded thread ${threadId} (${reason})`);
    this.broadcast({ method: 'thread/closed', params: { threadId } });
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.loaded.keys()].map((id) => this.unload(id, 'server shutting down')));
  }

  private onSessionEvent(entry: LoadedThread, n: ServerNotification): void {
    if (n.method === 'turn/started' || n.method === 'turn/completed') {
      entry.thread = { ...entry.thread, updatedAt: Math.floor(Date.now() / 1000) };
    }
    if (n.method === 'thread/status/changed' && n.params.status.type === 'idle') this.maybeScheduleUnload(entry);
    if (n.method === 'item/completed' && n.params.item.type === 'userMessage' && entry.thread.preview === '') {
      entry.thread = { ...entry.thread, preview: threadPreview(userItemText(n.params.item)) };
    }
  }

  private clientClosed(client: Client): void {
    this.clients.delete(client);
    for (const entry of this.loaded.values()) {
      if (entry.subscribers.delete(client)) this.maybeScheduleUnload(entry);
    }
  }

  private maybeScheduleUnload(entry: LoadedThread): void {
    if (
      entry.subscribers.size > 0 ||
      entry.session.activeTurnId !== null ||
      entry.pending.size > 0 ||
      entry.unloadTimer
    )
      return;
    entry.unloadTimer = setTimeout(() => {
      entry.unloadTimer = null;
      if (entry.subscribers.size === 0 && entry.session.activeTurnId === null)
        void this.unload(entry.thread.id, 'idle with no subscribers');
    }, this.options.unloadAfterMs);
    entry.unloadTimer.unref();
  }

  private cancelUnload(entry: LoadedThread): void {
    if (entry.unloadTimer) clearTimeout(entry.unloadTimer);
    entry.unloadTimer = null;
  }
}

/** What a request resolves to when the turn is interrupted or the thread closes before anyone answers. */
function cancelAnswer(request: ServerRequest): unknown {
  return request.method === 'item/tool/requestUserInput' ? { answers: {} } : { decision: 'cancel' };
}
