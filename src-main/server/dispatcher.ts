// Hand-written on purpose: the wire is Codex's JSON-RPC dialect (no `jsonrpc` field) with per-thread queues and
// handlers typed by the protocol's one table; JSON-RPC packages insist on `"jsonrpc": "2.0"` and own the framing.
import {
  ClientRequests,
  describeZodError,
  diffFileCount,
  ErrorCodes,
  isClientRequestMethod,
  JsonRpcMessage,
  type ClientRequestMethod,
  type ParamsOf,
  type RequestId,
  type ResultInput,
  type ServerNotification,
  type ServerRequest,
  type TurnDiffUpdatedNotification,
} from '../../src-preload/protocol';
import { DisposableStore, type Disposable } from '../util/disposable';
import { errorMessage } from '../util/errors';
import { MAX_MESSAGE_DEPTH, nestsDeeper, TOO_DEEP_MESSAGE } from './framing';
import type { QueueMode } from './request-queue';
import { requestScope } from './request-scopes';
import { RpcError } from './rpc-error';
import type { ClientConnection, ClientSink, ConnectionHost } from './transport';

/** One connected client, as handlers see it. */
export interface Client {
  readonly id: number;
  readonly label: string;
  /** `clientInfo.name` from its `initialize` (null before it). */
  readonly name: string | null;
  readonly closed: boolean;
  notify(notification: ServerNotification): void;
  /** Sends a server request; resolves with the client's result, rejects with its error or on disconnect. */
  request(request: ServerRequest, id: RequestId): Promise<unknown>;
  onClose(listener: () => void): void;
  /** What the connection owns (its terminal's processes): released when it disconnects. */
  readonly resources: DisposableStore;
}

/**
 * Requests whose response goes out before the notifications they cause (Codex's order: the
 * `thread/start` response, then `thread/started`). While one runs, what the connection would be sent
 * waits, in order, until its response is out. Long-running requests are not listed: they would hold
 * back their own progress.
 */
const RESPONSE_FIRST: ReadonlySet<ClientRequestMethod> = new Set<ClientRequestMethod>([
  'thread/start',
  'thread/resume',
  'thread/fork',
  'thread/archive',
  'thread/unarchive',
  'thread/name/set',
  'thread/rollback',
  'thread/revert',
  'turn/start',
  'turn/steer',
  'review/start',
]);

export type Handler<M extends ClientRequestMethod> = (params: ParamsOf<M>, client: Client) => Promise<ResultInput<M>>;

/** Every method in the protocol table has a handler: a missing one is a compile error. */
export type HandlerTable = { [M in ClientRequestMethod]: Handler<M> };

export interface DispatcherOptions {
  handlers: HandlerTable;
  /** Result of `initialize`, beyond what the client asked. */
  serverInfo: () => {
    userAgent: string;
    codexHome: string;
    platformFamily: string;
    platformOs: string;
    weftVersion?: string;
  };
  log: (line: string) => void;
  onClientClosed?: (client: Client) => void;
  /** Called once a client's `initialize` is answered (the host prepares what its first requests need). */
  afterInitialize?: () => void;
  /** Runs a request's handler ahead of background work (the index repair gives way to it). */
  inForeground?: <T>(work: () => Promise<T>) => Promise<T>;
  /** Orders the handling of the requests naming one thread (`request-scopes.ts`); absent = no order. */
  threadQueue?: { run<T>(threadId: string, mode: QueueMode, work: () => Promise<T>): Promise<T> };
}

interface FrameErrorLike {
  kind: 'frame-error';
  code: number;
  message: string;
  /** The unusable frame's request id, when the transport could read it. */
  id?: RequestId;
}

function isFrameErrorLike(x: unknown): x is FrameErrorLike {
  if (typeof x !== 'object' || x === null || !('kind' in x) || x.kind !== 'frame-error') return false;
  const id = 'id' in x ? x.id : undefined;
  return (
    'code' in x &&
    typeof x.code === 'number' &&
    'message' in x &&
    typeof x.message === 'string' &&
    (id === undefined || typeof id === 'string' || typeof id === 'number')
  );
}

/**
 * The transport-agnostic JSON-RPC dispatcher: validates every request against the protocol table,
 * enforces the initialize handshake, routes to the handler, and matches responses to server requests.
 * Nothing a client sends can throw out of `receive`.
 */
export class RpcDispatcher implements ConnectionHost, Disposable {
  private nextClientId = 1;
  private readonly open = new Set<ConnectionState>();
  /** Closed connections whose resources are still being released. */
  private readonly releasing = new Set<Promise<void>>();

  constructor(private readonly options: DispatcherOptions) {}

  connect(sink: ClientSink): ClientConnection {
    const state = new ConnectionState(this.nextClientId++, sink, this.options);
    this.open.add(state);
    return {
      receive: (message) => state.receive(message),
      close: () => this.closeConnection(state),
    };
  }

  private closeConnection(state: ConnectionState): void {
    if (!this.open.delete(state)) return;
    const released = state.close();
    this.releasing.add(released);
    void released.finally(() => this.releasing.delete(released));
  }

  /** Disconnects every client, and resolves once what each connection owned is released. */
  async dispose(): Promise<void> {
    for (const state of [...this.open]) this.closeConnection(state);
    await Promise.all(this.releasing);
  }
}

/** One summary per diff, however many connections take it: counting a megabyte's files is not free. */
const summaries = new WeakMap<TurnDiffUpdatedNotification, ServerNotification>();

function diffChanged(params: TurnDiffUpdatedNotification): ServerNotification {
  let summary = summaries.get(params);
  if (summary === undefined) {
    const { threadId, turnId, diff, weftDiffCut } = params;
    const files = weftDiffCut?.files ?? diffFileCount(diff);
    summary = {
      method: 'weft/turn/diffChanged',
      params: { threadId, turnId, files, ...(weftDiffCut === undefined ? {} : { weftDiffCut }) },
    };
    summaries.set(params, summary);
  }
  return summary;
}

class ConnectionState implements Client {
  readonly resources = new DisposableStore();
  private initialized = false;
  name: string | null = null;
  private optOut = new Set<string>();
  /** `weft/turn/diffChanged` instead of `turn/diff/updated` (`initialize`'s `weftLazyTurnDiff`). */
  private lazyTurnDiff = false;
  private readonly pending = new Map<string, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly closeListeners: (() => void)[] = [];
  /** How many RESPONSE_FIRST requests are running, and what waits for them. */
  private holds = 0;
  private held: object[] = [];
  closed = false;

  constructor(
    readonly id: number,
    private readonly sink: ClientSink,
    private readonly options: DispatcherOptions,
  ) {}

  get label(): string {
    return this.sink.label;
  }

  notify(notification: ServerNotification): void {
    if (this.closed || !this.initialized || this.optOut.has(notification.method)) return;
    if (this.lazyTurnDiff && notification.method === 'turn/diff/updated') {
      this.deliver(diffChanged(notification.params));
      return;
    }
    this.deliver(notification);
  }

  request(request: ServerRequest, id: RequestId): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error(`client ${this.label} is disconnected`));
    return new Promise((resolve, reject) => {
      this.pending.set(String(id), { resolve, reject });
      this.deliver({ id, method: request.method, params: request.params });
    });
  }

  /** Sends what the server says of its own accord, unless a response must go first. */
  private deliver(message: object): void {
    if (this.holds > 0) this.held.push(message);
    else this.sink.send(message);
  }

  private release(): void {
    this.holds -= 1;
    if (this.holds > 0) return;
    const held = this.held;
    this.held = [];
    for (const message of held) if (!this.closed) this.sink.send(message);
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** Disconnects the client; resolves once what it owned is released (a failure is logged). */
  close(): Promise<void> {
    if (this.closed) return this.resources.dispose().catch(() => undefined);
    this.closed = true;
    for (const p of this.pending.values()) p.reject(new Error(`client ${this.label} disconnected`));
    this.pending.clear();
    for (const l of this.closeListeners) l();
    this.options.onClientClosed?.(this);
    return this.resources
      .dispose()
      .catch((error: unknown) =>
        this.options.log(`weft app-server: releasing what ${this.label} had open: ${errorMessage(error)}`),
      );
  }

  receive(raw: unknown): void {
    try {
      this.handleMessage(raw);
    } catch (error) {
      this.options.log(`weft app-server: internal error handling a message from ${this.label}: ${errorMessage(error)}`);
    }
  }

  private handleMessage(raw: unknown): void {
    if (this.closed) return;
    if (isFrameErrorLike(raw)) {
      this.sendError(raw.id ?? null, raw.code, raw.message);
      return;
    }
    // Validation and handlers recurse on params. Transports that hand over objects (Electron IPC,
    // in-process clients) are bounded here; the stream transports refuse such frames before parsing them.
    if (this.sink.boundsNesting !== true && nestsDeeper(raw, MAX_MESSAGE_DEPTH)) {
      this.sendError(idOf(raw), ErrorCodes.InvalidRequest, TOO_DEEP_MESSAGE);
      return;
    }
    if (hasUnusableId(raw)) {
      this.sendError(null, ErrorCodes.InvalidRequest, 'Invalid request: id must be a string or an integer');
      return;
    }
    const parsed = JsonRpcMessage.safeParse(raw);
    if (!parsed.success) {
      this.sendError(idOf(raw), ErrorCodes.InvalidRequest, `Invalid request: ${describeZodError(parsed.error, '')}`);
      return;
    }
    const msg = parsed.data;
    if ('method' in msg) {
      if ('id' in msg && msg.id !== undefined) void this.handleRequest(msg.id, msg.method, msg.params);
      else this.handleNotification(msg.method);
      return;
    }
    if ('result' in msg) this.handleResponse(msg.id, msg.result, null);
    else if ('error' in msg && msg.id !== null) this.handleResponse(msg.id, undefined, msg.error);
  }

  private handleNotification(method: string): void {
    if (method === 'initialized') return;
    this.options.log(`weft app-server: ignoring unknown notification "${method}" from ${this.label}`);
  }

  private handleResponse(id: RequestId, result: unknown, error: { code: number; message: string } | null): void {
    const waiter = this.pending.get(String(id));
    if (!waiter) {
      this.options.log(`weft app-server: response for unknown request id ${String(id)} from ${this.label}`);
      return;
    }
    this.pending.delete(String(id));
    if (error) waiter.reject(new RpcError(error.code, error.message));
    else waiter.resolve(result);
  }

  private async handleRequest(id: RequestId, method: string, params: unknown): Promise<void> {
    if (!isClientRequestMethod(method)) {
      this.sendError(id, ErrorCodes.MethodNotFound, `Method not found: ${method}`);
      return;
    }
    if (method === 'initialize') {
      if (this.initialized) {
        this.sendError(id, ErrorCodes.InvalidRequest, 'Already initialized');
        return;
      }
    } else if (!this.initialized) {
      this.sendError(id, ErrorCodes.InvalidRequest, 'Not initialized');
      return;
    }
    const schema = ClientRequests[method].params;
    const checked = schema.safeParse(params);
    if (!checked.success) {
      this.sendError(id, ErrorCodes.InvalidParams, `Invalid params: ${describeZodError(checked.error)}`);
      return;
    }
    if (namesEnvironment(checked.data)) {
      this.sendError(
        id,
        ErrorCodes.InvalidParams,
        `${method} names the environment "${checked.data.weftEnvironment}", and this server reaches no environments: send it to the Weft that has them configured (weft serve, weft app-server or the desktop app)`,
      );
      return;
    }
    const scope = requestScope(method, checked.data);
    const queue = this.options.threadQueue;
    // The thread's queue orders the handling (until the answer is sent), not what the request starts.
    const answer = (): Promise<void> =>
      scope && queue
        ? queue.run(scope.threadId, scope.mode, () => this.respond(id, method, checked.data))
        : this.respond(id, method, checked.data);
    const inForeground = this.options.inForeground;
    if (method !== 'initialize' && inForeground) {
      // Background work (the index repair) gives way until the answer has left, not only until it is made:
      // a big answer leaves in several writes, each waiting for a turn of the event loop.
      await inForeground(async () => {
        await answer();
        // The queue answers when the transport has taken it, overflowed or closed; `inForeground` bounds
        // how long background work waits for a client that reads slowly.
        await this.sink.whenSent?.();
      });
      return;
    }
    await answer();
  }

  /** Handles one request and sends its answer; never throws. */
  private async respond(id: RequestId, method: ClientRequestMethod, params: unknown): Promise<void> {
    const hold = RESPONSE_FIRST.has(method);
    if (hold) this.holds += 1;
    try {
      const result = method === 'initialize' ? this.initialize(params) : await this.invoke(method, params);
      if (!this.closed) this.sink.send({ id, result });
      if (method === 'initialize') this.options.afterInitialize?.();
    } catch (error) {
      if (error instanceof RpcError) this.sendError(id, error.code, error.message, error.data);
      else {
        this.options.log(
          `weft app-server: ${method} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        this.sendError(id, ErrorCodes.InternalError, errorMessage(error));
      }
    } finally {
      if (hold) this.release();
    }
  }

  private invoke<M extends ClientRequestMethod>(method: M, params: unknown): Promise<unknown> {
    const handler = this.options.handlers[method] as Handler<M>;
    // `params` was parsed with this method's own schema in handleRequest.
    return handler(params as ParamsOf<M>, this);
  }

  private initialize(params: unknown): unknown {
    const checked = ClientRequests.initialize.params.parse(params);
    this.initialized = true;
    this.name = checked.clientInfo.name;
    this.optOut = new Set(checked.capabilities?.optOutNotificationMethods ?? []);
    this.lazyTurnDiff = checked.capabilities?.weftLazyTurnDiff === true;
    return this.options.serverInfo();
  }

  private sendError(id: RequestId | null, code: number, message: string, data?: unknown): void {
    if (this.closed) return;
    this.sink.send({ id, error: data === undefined ? { code, message } : { code, message, data } });
  }
}

/** The message's id when a reply can carry it (a string or an integer), else null. */
function idOf(raw: unknown): RequestId | null {
  if (typeof raw !== 'object' || raw === null || !('id' in raw)) return null;
  const id = raw.id;
  if (typeof id === 'string') return id;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : null;
}

/**
 * A request (it has a method) whose `id` is there but no reply could carry it back (an object, a
 * fraction, null): answered as invalid, never taken for a notification.
 */
function hasUnusableId(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null || !('method' in raw) || !('id' in raw) || raw.id === undefined)
    return false;
  return idOf(raw) === null;
}

/** Params that name an environment (`weftEnvironment`), which only a host that routes to one may take. */
function namesEnvironment(params: unknown): params is { weftEnvironment: string } {
  return (
    typeof params === 'object' &&
    params !== null &&
    'weftEnvironment' in params &&
    typeof params.weftEnvironment === 'string'
  );
}
