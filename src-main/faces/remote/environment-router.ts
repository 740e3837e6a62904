/**
 * One host for this machine and the configured environments, side by side: every client's messages go to
 * the local host, except those for an environment, which go to that environment's relay (`RemoteHost`,
 * opened when first needed, one per environment; each client gets its own pipe through it, as with
 * `--env`). A request is for an environment when
 * - its params name one (`weftEnvironment`, taken off before it is passed on), or
 * - its params name a thread (`threadId`) this router has seen come from one;
 * and an answer to a server request goes back where the request came from.
 * What comes back is marked: every thread an environment sends (in a result's `thread` or `data`, in
 * `thread/started`) gains `weftEnvironment`, and its id is noted for routing. Thread ids are UUIDv7s made
 * on each machine, so the router keeps them as they are (a thread has one id everywhere, in the UI, the
 * rollout and the remote's own clients); the server requests of an environment get ids of the router's
 * (`weft-env:NAME:ID`), since each server numbers its own from 1.
 */
import type { ClientConnection, ClientSink, ConnectionHost } from '../../server/transport';
import { errorMessage } from '../../util/errors';
import type { RemoteHost } from './relay-host';

export interface RouterOptions {
  /** This machine's host. */
  local: ConnectionHost;
  /** The relay to environment `name`; rejects with a message for people when none is configured. */
  openEnvironment(name: string): Promise<RemoteHost>;
  log: (line: string) => void;
}

type Message = Record<string, unknown>;
type Id = string | number;

const INIT_ID = 'weft-router:initialize';
const REQUEST_PREFIX = 'weft-env:';

function isId(value: unknown): value is Id {
  return typeof value === 'string' || typeof value === 'number';
}

function isRecord(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class EnvironmentRouter implements ConnectionHost {
  private readonly hosts = new Map<string, Promise<RemoteHost>>();
  /** Thread id → the environment it lives on, for every thread an environment sent through this router. */
  readonly threads = new Map<string, string>();

  constructor(readonly options: RouterOptions) {}

  connect(sink: ClientSink): ClientConnection {
    const connection = new RoutedConnection(this, sink);
    return { receive: (message) => connection.fromClient(message), close: () => connection.close() };
  }

  /** The host goes: each environment's relay closes (the pipes of clients that left end there first). */
  async close(): Promise<void> {
    const hosts = [...this.hosts.values()];
    this.hosts.clear();
    await Promise.all(hosts.map((host) => host.then((h) => h.close()).catch(() => undefined)));
  }

  /** Lets the environment's relay go: the next request reads its config again (a Weft installed there). */
  forgetHost(name: string): void {
    this.hosts.delete(name);
  }

  /** The environment's relay, opened once; a failure is not kept, so a corrected config is read again. */
  host(name: string): Promise<RemoteHost> {
    let host = this.hosts.get(name);
    if (host === undefined) {
      host = this.options.openEnvironment(name);
      this.hosts.set(name, host);
      host.catch(() => this.hosts.delete(name));
    }
    return host;
  }
}

class RoutedConnection {
  private readonly local: ClientConnection;
  /** The client's connection to each environment it used, in the order its messages must keep. */
  private readonly remotes = new Map<string, Promise<ClientConnection>>();
  private initializeParams: unknown = null;
  /** Requests sent to an environment, not answered yet: id → method. */
  private readonly inflight = new Map<Id, string>();
  /** Server requests of environments the client holds: the router's id → the environment and its id. */
  private readonly asked = new Map<string, { environment: string; id: Id }>();
  /** `weft/environment/install` requests to this machine: id → environment, whose pipe goes once it is done. */
  private readonly installs = new Map<Id, string>();
  private closed = false;

  constructor(
    private readonly router: EnvironmentRouter,
    private readonly sink: ClientSink,
  ) {
    this.local = router.options.local.connect({
      label: sink.label,
      send: (message) => {
        if (this.installs.size > 0 && isRecord(message) && isId(message['id'])) this.installAnswered(message);
        sink.send(message);
      },
      ...(sink.whenSent === undefined ? {} : { whenSent: () => sink.whenSent?.() ?? Promise.resolve() }),
      ...(sink.boundsNesting === undefined ? {} : { boundsNesting: sink.boundsNesting }),
    });
  }

  fromClient(raw: unknown): void {
    if (this.closed) return;
    if (!isRecord(raw)) {
      this.local.receive(raw);
      return;
    }
    const id = raw['id'];
    const method = raw['method'];
    if (typeof method !== 'string') {
      // An answer to a server request: to the environment that asked it, with its own id.
      const remote = typeof id === 'string' ? this.asked.get(id) : undefined;
      if (typeof id !== 'string' || remote === undefined) this.local.receive(raw);
      else {
        this.asked.delete(id);
        this.toEnvironment(remote.environment, { ...raw, id: remote.id });
      }
      return;
    }
    if (method === 'initialize') this.initializeParams = raw['params'] ?? null;
    const params = raw['params'];
    if (
      method === 'weft/environment/install' &&
      isId(id) &&
      isRecord(params) &&
      typeof params['environment'] === 'string'
    )
      this.installs.set(id, params['environment']);
    if (!isRecord(params) || !isId(id)) {
      this.local.receive(raw);
      return;
    }
    const named = params['weftEnvironment'];
    const threadId = params['threadId'];
    const environment =
      typeof named === 'string'
        ? named
        : typeof threadId === 'string'
          ? (this.router.threads.get(threadId) ?? null)
          : null;
    if (environment === null) {
      this.local.receive(raw);
      return;
    }
    const { weftEnvironment: _named, ...rest } = params;
    this.inflight.set(id, method);
    this.toEnvironment(environment, { ...raw, params: rest });
  }

  private toEnvironment(environment: string, message: Message): void {
    let remote = this.remotes.get(environment);
    if (remote === undefined) {
      remote = this.open(environment);
      this.remotes.set(environment, remote);
      // A failed opening is not kept: the next request tries again.
      remote.catch(() => this.remotes.delete(environment));
    }
    remote.then(
      (connection) => connection.receive(message),
      (error: unknown) => {
        const id = message['id'];
        if (typeof message['method'] === 'string' && isId(id)) {
          this.inflight.delete(id);
          this.sink.send({ id, error: { code: -32602, message: errorMessage(error) } });
        }
      },
    );
  }

  /** The client's pipe to the environment, said `initialize` to with the client's own params. */
  private async open(environment: string): Promise<ClientConnection> {
    const host = await this.router.host(environment);
    if (this.closed) throw new Error('the client left');
    const connection = host.connect({
      label: `${this.sink.label} → ${environment}`,
      send: (message) => this.fromEnvironment(environment, message as Message),
    });
    connection.receive({ id: INIT_ID, method: 'initialize', params: this.initializeParams ?? {} });
    connection.receive({ method: 'initialized' });
    return connection;
  }

  private fromEnvironment(environment: string, message: Message): void {
    if (this.closed) return;
    const id = message['id'];
    const method = message['method'];
    if (typeof method !== 'string') {
      if (id === INIT_ID) {
        // The relay's handshake (the remote's version checked). When it failed, the relay has answered every
        // request sent with why; the pipe is let go, so the next request for the environment tries again.
        const error = message['error'];
        if (isRecord(error)) {
          this.router.options.log(`weft: environment "${environment}": ${String(error['message'])}`);
          this.forget(environment);
        }
        return;
      }
      if (isId(id)) this.inflight.delete(id);
      const result = message['result'];
      this.sink.send(isRecord(result) ? { ...message, result: this.markResult(environment, result) } : message);
      return;
    }
    if (isId(id)) {
      // A server request: the client answers the router's id.
      const routed = `${REQUEST_PREFIX}${environment}:${typeof id}:${id}`;
      this.asked.set(routed, { environment, id });
      this.sink.send({ ...message, id: routed });
      return;
    }
    const params = message['params'];
    if (!isRecord(params)) {
      this.sink.send(message);
      return;
    }
    if (method === 'thread/started' && isRecord(params['thread'])) {
      this.sink.send({ ...message, params: { ...params, thread: this.markThread(environment, params['thread']) } });
      return;
    }
    if (method === 'weft/environment/status' && params['state'] === 'disconnected') {
      // The relay gave up reconnecting (its requests fail from now on): the client is told, and the pipe is
      // let go, so the next request for the environment starts a new one.
      this.forget(environment);
      this.sink.send(message);
      return;
    }
    if (method === 'serverRequest/resolved' && isId(params['requestId'])) {
      const routed = `${REQUEST_PREFIX}${environment}:${typeof params['requestId']}:${params['requestId']}`;
      this.asked.delete(routed);
      this.sink.send({ ...message, params: { ...params, requestId: routed } });
      return;
    }
    this.sink.send(message);
  }

  /**
   * An install on an environment answered: once it succeeded, the environment's config changed (its `weft`
   * or `command`), so its relay and this client's pipe are let go and the next request starts the new Weft.
   */
  private installAnswered(message: Message): void {
    const id = message['id'] as Id;
    const environment = this.installs.get(id);
    if (environment === undefined) return;
    this.installs.delete(id);
    if (!('result' in message)) return;
    this.router.forgetHost(environment);
    this.forget(environment);
  }

  /** Lets the client's pipe to the environment go (closed once its last answers have gone out). */
  private forget(environment: string): void {
    const failed = this.remotes.get(environment);
    this.remotes.delete(environment);
    void failed?.then((connection) => connection.close()).catch(() => undefined);
  }

  /** A result with its threads marked: `thread`, or the `data` of a list of threads. */
  private markResult(environment: string, result: Message): Message {
    let marked = result;
    if (isRecord(result['thread'])) marked = { ...marked, thread: this.markThread(environment, result['thread']) };
    const data = result['data'];
    if (Array.isArray(data) && data.every((t) => isRecord(t) && typeof t['id'] === 'string' && 'cwd' in t))
      marked = { ...marked, data: data.map((t: Message) => this.markThread(environment, t)) };
    return marked;
  }

  private markThread(environment: string, thread: Message): Message {
    const id = thread['id'];
    if (typeof id !== 'string') return thread;
    this.router.threads.set(id, environment);
    return { ...thread, weftEnvironment: environment };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.local.close();
    for (const remote of this.remotes.values()) void remote.then((c) => c.close()).catch(() => undefined);
    this.remotes.clear();
  }
}
