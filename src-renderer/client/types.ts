// The renderer's view of the agent: one typed client over the protocol tables, whichever transport
// carries it (the Electron bridge `window.weft` or the WebSocket of `weft serve`).
import type {
  ClientRequestMethod,
  IncomingServerRequest,
  InitializeResult,
  ParamsInput,
  RequestId,
  ResultOf,
  ServerNotification,
  ServerRequestMethod,
  ServerRequestResultInput,
} from '../../src-preload/protocol';

export type Unsubscribe = () => void;

/** A server → client request (approval, question) awaiting `respond`, discriminated on `method`. */
export type { IncomingServerRequest };

/**
 * Where the connection stands. `reconnecting.attempt` counts from 1 up to `maxAttempts`; after the last
 * failed attempt the phase is `failed` until `retry()`.
 */
export type ConnectionState =
  | { phase: 'connecting' }
  | { phase: 'open' }
  | { phase: 'reconnecting'; attempt: number; maxAttempts: number; lastError: string }
  | {
      phase: 'failed';
      message: string;
      /** `token`: the server refused this page's token (it restarted with a new one). */ reason?:
        'token' | 'unreachable';
    };

/** A JSON-RPC error answer, or a local failure to get one (code -32000: the connection dropped). */
export class RpcError extends Error {
  readonly code: number;
  readonly method: string;
  readonly data: unknown;

  constructor(method: string, code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.method = method;
    this.code = code;
    this.data = data;
  }
}

/** Code of a request that never got an answer because the connection went away. */
export const CONNECTION_LOST = -32000;

/** Fired after every completed handshake; `reconnect` is true when it followed a dropped connection. */
export interface ReadyEvent {
  initialize: InitializeResult;
  reconnect: boolean;
}

export interface WeftClient {
  /** `bridge`: the Electron preload; `socket`: the WebSocket of `weft serve`. */
  readonly kind: 'bridge' | 'socket';
  readonly state: ConnectionState;
  /**
   * Sends a request once the handshake is done (earlier calls wait for it) and resolves with the result
   * parsed by the method's schema. Rejects with RpcError on an error answer, a malformed result, or a
   * connection that drops before the answer.
   */
  request<M extends ClientRequestMethod>(method: M, params: ParamsInput<M>): Promise<ResultOf<M>>;
  /** Every server notification whose params parse. */
  onNotification(listener: (notification: ServerNotification) => void): Unsubscribe;
  onServerRequest(listener: (request: IncomingServerRequest) => void): Unsubscribe;
  /** Answers a server request; throws if it is no longer pending or the result does not parse. */
  respond<M extends ServerRequestMethod>(
    request: { id: RequestId; method: M },
    result: ServerRequestResultInput<M>,
  ): void;
  /** Called at once with the current state, then on every change. */
  onConnection(listener: (state: ConnectionState) => void): Unsubscribe;
  /** Called after each successful handshake (the first and every reconnect); a late listener hears the latest at once. */
  onReady(listener: (event: ReadyEvent) => void): Unsubscribe;
  /** After `failed`: start over with a fresh round of attempts. */
  retry(): void;
  /** Closes the transport, rejects what is in flight and drops every listener. */
  dispose(): void;
}
