// The JSON-RPC client over a text connection (the WebSocket of `weft serve`): request/response matching
// with result validation, notifications, server requests, the `initialize` handshake on every
// (re)connect, and reconnection with backoff. The connection itself comes from a Connector, so tests
// drive this with an in-memory fake.
import {
  classifyMessage,
  describeZodError,
  isServerRequestMethod,
  resultSchemas,
  serverRequestSchemas,
} from '../../src-preload/protocol';
import type {
  ClientInfo,
  InitializeCapabilities,
  ClientRequestMethod,
  InitializeResult,
  ParamsInput,
  RequestId,
  ResultOf,
  ServerNotification,
  ServerRequestMethod,
  ServerRequestResultInput,
} from '../../src-preload/protocol';
import { CONNECTION_LOST, RpcError } from './types';
import type { ConnectionState, IncomingServerRequest, ReadyEvent, Unsubscribe, WeftClient } from './types';

/** An open connection: one text frame per JSON-RPC message. */
export interface Connection {
  send(text: string): void;
  close(): void;
}

export interface ConnectionHandlers {
  onMessage(text: string): void;
  /** The connection closed (or failed after opening); `reason` is for people. */
  onClose(reason: string): void;
}

/** Opens a connection; resolves once it is open, rejects (with a reason for people) when it cannot. */
export type Connector = (handlers: ConnectionHandlers) => Promise<Connection>;

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface RpcClientOptions {
  connector: Connector;
  clientInfo: ClientInfo;
  /** Sent with `initialize` (the same on every reconnect). */
  capabilities?: InitializeCapabilities;
  /** Delay before each reconnect attempt; its length is the number of attempts. Default 0.5 s … 8 s, 5 attempts. */
  backoffMs?: readonly number[];
  timers?: Timers;
  /** Where dropped messages are reported. Default console.warn. */
  warn?: (message: string) => void;
}

export const DEFAULT_BACKOFF_MS: readonly number[] = [500, 1000, 2000, 4000, 8000];

const browserTimers: Timers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => {
    if (typeof handle === 'number') globalThis.clearTimeout(handle);
  },
};

interface InFlight {
  method: ClientRequestMethod;
  settle(outcome: { ok: true; result: unknown } | { ok: false; error: RpcError }): void;
}

interface Queued {
  send(): void;
  fail(error: RpcError): void;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createRpcClient(options: RpcClientOptions): WeftClient {
  const backoff = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const timers = options.timers ?? browserTimers;
  const warn = options.warn ?? ((message: string) => console.warn(`weft client: ${message}`));

  let state: ConnectionState = { phase: 'connecting' };
  let connection: Connection | null = null;
  let ready = false;
  let everReady = false;
  let disposed = false;
  let nextId = 1;
  let attempt = 0;
  let retryTimer: unknown = null;
  let lastReady: ReadyEvent | null = null;
  /** Bumped per connection so that late events of an old connection are ignored. */
  let generation = 0;

  const inFlight = new Map<RequestId, InFlight>();
  const queue: Queued[] = [];
  const openServerRequests = new Map<RequestId, ServerRequestMethod>();
  const notificationListeners = new Set<(n: ServerNotification) => void>();
  const serverRequestListeners = new Set<(r: IncomingServerRequest) => void>();
  const connectionListeners = new Set<(s: ConnectionState) => void>();
  const readyListeners = new Set<(e: ReadyEvent) => void>();

  const callEach = <T>(listeners: Set<(value: T) => void>, value: T): void => {
    for (const listener of [...listeners]) {
      try {
        listener(value);
      } catch (error) {
        console.error('weft client: a listener threw', error);
      }
    }
  };

  const setState = (next: ConnectionState): void => {
    state = next;
    callEach(connectionListeners, next);
  };

  const subscribe = <T>(listeners: Set<(value: T) => void>, listener: (value: T) => void): Unsubscribe => {
    const wrapper = (value: T): void => listener(value);
    listeners.add(wrapper);
    return () => {
      listeners.delete(wrapper);
    };
  };

  const sendRaw = (message: object): void => {
    connection?.send(JSON.stringify(message));
  };

  /** Sends now (the connection is up, or this is the handshake itself) and waits for the answer. */
  const sendRequest = <M extends ClientRequestMethod>(method: M, params: ParamsInput<M>): Promise<ResultOf<M>> => {
    const id = nextId++;
    const schema = resultSchemas[method].result;
    return new Promise<ResultOf<M>>((resolve, reject) => {
      inFlight.set(id, {
        method,
        settle(outcome) {
          if (!outcome.ok) {
            reject(outcome.error);
            return;
          }
          const parsed = schema.safeParse(outcome.result);
          if (parsed.success) resolve(parsed.data);
          else
            reject(
              new RpcError(
                method,
                -32603,
                `Weft's answer to ${method} is malformed (${describeZodError(parsed.error, 'result')}).`,
              ),
            );
        },
      });
      sendRaw(params === undefined ? { id, method } : { id, method, params });
    });
  };

  const failInFlight = (reason: string): void => {
    const entries = [...inFlight.values()];
    inFlight.clear();
    for (const entry of entries) {
      entry.settle({
        ok: false,
        error: new RpcError(
          entry.method,
          CONNECTION_LOST,
          `The connection to Weft was lost before it answered ${entry.method} (${reason}).`,
        ),
      });
    }
  };

  const failQueued = (error: (method: string) => RpcError): void => {
    for (const queued of queue.splice(0)) queued.fail(error('request'));
  };

  const onMessage = (text: string): void => {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      warn('dropped a frame that is not JSON');
      return;
    }
    const incoming = classifyMessage(message, 'The Weft UI');
    switch (incoming.kind) {
      case 'notification':
        if (incoming.notification.method === 'serverRequest/resolved') {
          openServerRequests.delete(incoming.notification.params.requestId);
        }
        callEach(notificationListeners, incoming.notification);
        return;
      case 'serverRequest':
        openServerRequests.set(incoming.request.id, incoming.request.method);
        callEach(serverRequestListeners, incoming.request);
        return;
      case 'badServerRequest':
        sendRaw({ id: incoming.id, error: { code: incoming.code, message: incoming.message } });
        return;
      case 'response': {
        const entry = inFlight.get(incoming.id);
        if (entry === undefined) return;
        inFlight.delete(incoming.id);
        entry.settle({ ok: true, result: incoming.result });
        return;
      }
      case 'error': {
        if (incoming.id === null) {
          warn(`Weft rejected a message: ${incoming.error.message}`);
          return;
        }
        const entry = inFlight.get(incoming.id);
        if (entry === undefined) return;
        inFlight.delete(incoming.id);
        entry.settle({
          ok: false,
          error: new RpcError(entry.method, incoming.error.code, incoming.error.message, incoming.error.data),
        });
        return;
      }
      case 'ignored':
        warn(`dropped a message: ${incoming.why}`);
        return;
    }
  };

  const scheduleReconnect = (reason: string): void => {
    if (disposed) return;
    if (attempt >= backoff.length) {
      failQueued(
        (method) =>
          new RpcError(
            method,
            CONNECTION_LOST,
            `Weft is unreachable (${reason}). Check that \`weft serve\` is still running, then retry.`,
          ),
      );
      setState({
        phase: 'failed',
        message: `Could not reach Weft after ${backoff.length} attempts: ${reason}`,
        reason: 'unreachable',
      });
      return;
    }
    const delay = backoff[attempt] ?? 0;
    attempt += 1;
    setState({ phase: 'reconnecting', attempt, maxAttempts: backoff.length, lastError: reason });
    retryTimer = timers.setTimeout(() => {
      retryTimer = null;
      connect();
    }, delay);
  };

  const lost = (myGeneration: number, reason: string): void => {
    if (myGeneration !== generation || disposed) return;
    generation += 1;
    connection = null;
    ready = false;
    openServerRequests.clear();
    failInFlight(reason);
    scheduleReconnect(reason);
  };

  const connect = (): void => {
    if (disposed) return;
    generation += 1;
    const myGeneration = generation;
    options
      .connector({
        onMessage: (text) => {
          if (myGeneration === generation) onMessage(text);
        },
        onClose: (reason) => lost(myGeneration, reason),
      })
      .then(
        async (opened) => {
          if (myGeneration !== generation || disposed) {
            opened.close();
            return;
          }
          connection = opened;
          let initialize: InitializeResult;
          try {
            initialize = await sendRequest('initialize', {
              clientInfo: options.clientInfo,
              ...(options.capabilities === undefined ? {} : { capabilities: options.capabilities }),
            });
          } catch (error) {
            if (myGeneration !== generation) return;
            opened.close();
            lost(myGeneration, `the handshake failed: ${reasonOf(error)}`);
            return;
          }
          if (myGeneration !== generation) return;
          sendRaw({ method: 'initialized' });
          ready = true;
          attempt = 0;
          const reconnect = everReady;
          everReady = true;
          setState({ phase: 'open' });
          for (const queued of queue.splice(0)) queued.send();
          lastReady = { initialize, reconnect };
          callEach(readyListeners, lastReady);
        },
        (error: unknown) => {
          if (myGeneration !== generation) return;
          generation += 1;
          if (error instanceof Error && 'tokenRejected' in error && error.tokenRejected === true) {
            failQueued((method) => new RpcError(method, CONNECTION_LOST, error.message));
            setState({ phase: 'failed', message: error.message, reason: 'token' });
            return;
          }
          scheduleReconnect(reasonOf(error));
        },
      );
  };

  connect();

  return {
    kind: 'socket',
    get state() {
      return state;
    },
    request<M extends ClientRequestMethod>(method: M, params: ParamsInput<M>): Promise<ResultOf<M>> {
      if (disposed) return Promise.reject(new RpcError(method, CONNECTION_LOST, 'The Weft client was closed.'));
      if (ready) return sendRequest(method, params);
      if (state.phase === 'failed') {
        return Promise.reject(new RpcError(method, CONNECTION_LOST, `Weft is unreachable: ${state.message}`));
      }
      return new Promise<ResultOf<M>>((resolve, reject) => {
        queue.push({
          send: () => {
            sendRequest(method, params).then(resolve, reject);
          },
          fail: reject,
        });
      });
    },
    onNotification: (listener) => subscribe(notificationListeners, listener),
    onServerRequest: (listener) => subscribe(serverRequestListeners, listener),
    onConnection(listener) {
      const unsubscribe = subscribe(connectionListeners, listener);
      listener(state);
      return unsubscribe;
    },
    onReady(listener) {
      const unsubscribe = subscribe(readyListeners, listener);
      if (lastReady !== null) listener(lastReady);
      return unsubscribe;
    },
    respond<M extends ServerRequestMethod>(
      request: { id: RequestId; method: M },
      result: ServerRequestResultInput<M>,
    ): void {
      if (openServerRequests.get(request.id) !== request.method) {
        throw new Error(
          `There is no pending ${request.method} request with id ${JSON.stringify(request.id)} (it was answered or cancelled).`,
        );
      }
      if (!isServerRequestMethod(request.method))
        throw new Error(`"${String(request.method)}" is not a server request.`);
      const parsed = serverRequestSchemas[request.method].result.safeParse(result);
      if (!parsed.success) {
        throw new Error(`The answer to ${request.method} is malformed (${describeZodError(parsed.error, 'result')}).`);
      }
      openServerRequests.delete(request.id);
      sendRaw({ id: request.id, result });
    },
    retry() {
      if (disposed || state.phase !== 'failed') return;
      attempt = 0;
      setState({ phase: 'connecting' });
      connect();
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      generation += 1;
      if (retryTimer !== null) timers.clearTimeout(retryTimer);
      const open = connection;
      connection = null;
      open?.close();
      failInFlight('the client was closed');
      failQueued((method) => new RpcError(method, CONNECTION_LOST, 'The Weft client was closed.'));
      notificationListeners.clear();
      serverRequestListeners.clear();
      connectionListeners.clear();
      readyListeners.clear();
    },
  };
}
