// A fake dispatcher for transport tests: records what each connection receives, answers requests with an
// echo, answers frame errors the way the real dispatcher does (JSON-RPC error, id null), and lets a test
// push notifications to a client.
import { isFrameError } from '../../../src-main/server/framing';
import type { ClientConnection, ClientSink, ConnectionHost } from '../../../src-main/server/transport';
import type { Subscribe } from '../../support/wait';

export type HostEvent =
  | { type: 'connect'; connection: EchoConnection }
  | { type: 'receive'; connection: EchoConnection; message: unknown }
  | { type: 'close'; connection: EchoConnection };

export class EchoConnection implements ClientConnection {
  readonly received: unknown[] = [];
  closed = false;

  constructor(
    readonly sink: ClientSink,
    private readonly emit: (event: HostEvent) => void,
  ) {}

  receive(message: unknown): void {
    this.received.push(message);
    if (isFrameError(message)) {
      this.sink.send({ id: null, error: { code: message.code, message: message.message } });
    } else if (typeof message === 'object' && message !== null && 'id' in message && 'method' in message) {
      const params = 'params' in message ? message.params : undefined;
      this.sink.send({ id: message.id, result: { echo: message.method, params: params ?? null } });
    }
    this.emit({ type: 'receive', connection: this, message });
  }

  close(): void {
    this.closed = true;
    this.emit({ type: 'close', connection: this });
  }

  /** Pushes a notification to this client. */
  notify(method: string, params: object): void {
    this.sink.send({ method, params });
  }
}

export class EchoHost implements ConnectionHost {
  readonly connections: EchoConnection[] = [];
  readonly #listeners = new Set<(event: HostEvent) => void>();

  readonly subscribe: Subscribe<HostEvent> = (listener) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  connect(sink: ClientSink): ClientConnection {
    const connection = new EchoConnection(sink, (event) => this.#emit(event));
    this.connections.push(connection);
    this.#emit({ type: 'connect', connection });
    return connection;
  }

  #emit(event: HostEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }
}

export function isReceive(event: HostEvent): event is Extract<HostEvent, { type: 'receive' }> {
  return event.type === 'receive';
}

export function delta(itemId: string, text: string, method = 'item/agentMessage/delta'): object {
  return { method, params: { threadId: 't1', turnId: 'u1', itemId, delta: text } };
}
