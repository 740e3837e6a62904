/**
 * A typed client of the app server core, in the same process: it attaches to the dispatcher through
 * `ConnectionHost.connect` exactly as the stdio, WebSocket and IPC transports do, so a face built on it
 * (the MCP server, the ACP agent) sees the same protocol, the same validation and the same threads as
 * the app and `weft app-server`. Messages cross as plain objects; results, notifications and server
 * requests are parsed with the protocol's schemas before anyone sees them.
 */
import {
  ClientRequests,
  describeZodError,
  isServerNotificationMethod,
  isServerRequestMethod,
  ServerNotifications,
  ServerRequests,
  type ClientInfo,
  type ClientRequestMethod,
  type ParamsInput,
  type RequestId,
  type ResultOf,
  type ServerNotification,
  type ServerRequest,
} from '../../src-preload/protocol';
import type { ClientConnection, ConnectionHost } from '../server/transport';
import { errorMessage } from '../util/errors';

/** A JSON-RPC error answered by the core, with its code (e.g. -32602 for bad params). */
export class HostRequestError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'HostRequestError';
  }
}

/** Answers one server request (an approval, a question); the value is the request's result. */
export type ServerRequestHandler = (request: ServerRequest) => Promise<unknown>;

export interface HostClient {
  request<M extends ClientRequestMethod>(method: M, params: ParamsInput<M>): Promise<ResultOf<M>>;
  /** Every notification the core sends this client; returns the function that stops listening. */
  onNotification(listener: (notification: ServerNotification) => void): () => void;
  /**
   * Who answers approvals and questions. Without a handler (or when it throws) the request is answered
   * as cancelled, so nothing waits on a face that cannot ask anyone.
   */
  setServerRequestHandler(handler: ServerRequestHandler | null): void;
  /** Detaches from the core; pending requests fail. */
  close(): void;
  /** What the server said of itself in `initialize` (its version, home, platform). */
  readonly serverInfo: ResultOf<'initialize'> | null;
}

export interface HostClientOptions {
  /** For the core's logs, e.g. `mcp-server stdio`. */
  label: string;
  clientInfo: ClientInfo;
  log?: (line: string) => void;
}

interface Pending {
  method: ClientRequestMethod;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** Connects and performs the `initialize` handshake. */
export async function connectHostClient(host: ConnectionHost, options: HostClientOptions): Promise<HostClient> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const pending = new Map<RequestId, Pending>();
  const listeners = new Set<(n: ServerNotification) => void>();
  let handler: ServerRequestHandler | null = null;
  let nextId = 1;
  let closed = false;
  // Incoming messages are handled one by one, after the dispatcher's own call returns, in order.
  let queue: Promise<void> = Promise.resolve();

  const connection: ClientConnection = host.connect({
    label: options.label,
    send: (message) => {
      queue = queue
        .then(() => receive(message))
        .catch((error: unknown) => log(`weft ${options.label}: ${errorMessage(error)}`));
    },
  });

  const receive = (raw: object): void => {
    if (closed) return;
    const message = raw as Record<string, unknown>;
    const method = typeof message['method'] === 'string' ? message['method'] : undefined;
    const id = message['id'];
    if (method !== undefined && (typeof id === 'string' || typeof id === 'number')) {
      answerServerRequest(id, method, message['params']);
      return;
    }
    if (method !== undefined) {
      deliverNotification(method, message['params']);
      return;
    }
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const entry = pending.get(id);
    if (!entry) return;
    pending.delete(id);
    const error = message['error'];
    if (typeof error === 'object' && error !== null) {
      const { code, message: text } = error as { code?: unknown; message?: unknown };
      entry.reject(
        new HostRequestError(
          entry.method,
          typeof code === 'number' ? code : -32603,
          typeof text === 'string' ? text : 'request failed',
        ),
      );
      return;
    }
    const parsed = ClientRequests[entry.method].result.safeParse(message['result']);
    if (parsed.success) entry.resolve(parsed.data);
    else
      entry.reject(
        new HostRequestError(
          entry.method,
          -32603,
          `the answer to ${entry.method} is malformed (${describeZodError(parsed.error, 'result')})`,
        ),
      );
  };

  const deliverNotification = (method: string, params: unknown): void => {
    if (!isServerNotificationMethod(method)) return;
    const parsed = ServerNotifications[method].safeParse(params);
    if (!parsed.success) {
      log(`weft ${options.label}: dropped a malformed ${method} notification (${describeZodError(parsed.error)})`);
      return;
    }
    // The pair is built from one method and its own schema.
    const notification = { method, params: parsed.data } as ServerNotification;
    for (const listener of [...listeners]) {
      try {
        listener(notification);
      } catch (error) {
        log(`weft ${options.label}: a notification listener failed: ${errorMessage(error)}`);
      }
    }
  };

  const answerServerRequest = (id: RequestId, method: string, params: unknown): void => {
    if (!isServerRequestMethod(method)) {
      connection.receive({ id, error: { code: -32601, message: `Method not found: ${method}` } });
      return;
    }
    const parsed = ServerRequests[method].params.safeParse(params);
    if (!parsed.success) {
      connection.receive({ id, error: { code: -32602, message: `Invalid params: ${describeZodError(parsed.error)}` } });
      return;
    }
    const request = { method, params: parsed.data } as ServerRequest;
    const answer = handler ? handler(request) : Promise.resolve(cancelled(request));
    void answer
      .catch((error: unknown) => {
        log(`weft ${options.label}: answering ${method} failed, cancelling it: ${errorMessage(error)}`);
        return cancelled(request);
      })
      .then((result) => {
        if (!closed) connection.receive({ id, result });
      });
  };

  const client: { -readonly [K in keyof HostClient]: HostClient[K] } = {
    serverInfo: null,
    request<M extends ClientRequestMethod>(method: M, params: ParamsInput<M>): Promise<ResultOf<M>> {
      if (closed)
        return Promise.reject(new HostRequestError(method, -32603, 'the connection to the Weft core is closed'));
      const id = nextId++;
      return new Promise<ResultOf<M>>((resolve, reject) => {
        pending.set(id, { method, resolve: (value) => resolve(value as ResultOf<M>), reject });
        connection.receive(params === undefined ? { id, method } : { id, method, params });
      });
    },
    onNotification(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    setServerRequestHandler(next) {
      handler = next;
    },
    close() {
      if (closed) return;
      closed = true;
      connection.close();
      for (const entry of pending.values())
        entry.reject(new HostRequestError(entry.method, -32603, 'the connection to the Weft core closed'));
      pending.clear();
      listeners.clear();
    },
  };

  client.serverInfo = await client.request('initialize', { clientInfo: options.clientInfo });
  connection.receive({ method: 'initialized' });
  return client;
}

/** The answer that refuses a request and, for approvals, stops the turn. */
export function cancelled(request: ServerRequest): unknown {
  return request.method === 'item/tool/requestUserInput' ? { answers: {} } : { decision: 'cancel' };
}
