/**
 * How a transport (stdio, WebSocket, Electron IPC) attaches a client to the JSON-RPC dispatcher.
 * The transport owns framing; the dispatcher owns meaning. Messages cross this boundary as plain
 * objects (already JSON-parsed); the dispatcher validates them.
 */
export interface ClientSink {
  /** Deliver one outgoing message (response, notification or server request) to the client. */
  send(message: object): void;
  /** Human-readable name for logs, e.g. `stdio`, `ws 127.0.0.1:53122`, `ipc window 3`. */
  readonly label: string;
  /** Resolves when what was sent so far has left for the client (a big answer takes several writes). */
  whenSent?(): Promise<void>;
  /**
   * True when the transport refuses frames nested deeper than `MAX_MESSAGE_DEPTH` before parsing them
   * (`parseFrame`); otherwise the dispatcher walks each message it receives to check.
   */
  readonly boundsNesting?: boolean;
}

export interface ClientConnection {
  /** One incoming message, or a parse failure the transport detected (bad JSON, oversized frame). */
  receive(message: unknown): void;
  /** The transport closed: the dispatcher releases this client's subscriptions and requests. */
  close(): void;
}

export interface ConnectionHost {
  connect(sink: ClientSink): ClientConnection;
}
