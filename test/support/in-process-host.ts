// The real app host (store, thread manager, dispatcher, handlers) in the test process, with one client
// attached the way a transport attaches it. Responses and notifications are recorded as they arrive.
import { createAppHost, type AppHost, type AppHostOptions } from '../../src-main/server/app-host';
import type { ClientConnection } from '../../src-main/server/transport';
import { waitFor, type Subscribe } from './wait';

export interface RpcReply {
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export interface Notification {
  method: string;
  params: Record<string, unknown>;
}

export class InProcessClient {
  readonly received: object[] = [];
  readonly #listeners = new Set<(message: object) => void>();
  #nextId = 1;

  constructor(readonly connection: ClientConnection) {}

  readonly subscribe: Subscribe<object> = (listener) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  deliver(message: object): void {
    this.received.push(message);
    for (const l of [...this.#listeners]) l(message);
  }

  /** Sends a request and resolves with its whole reply (result or error). */
  async call(method: string, params: unknown): Promise<RpcReply> {
    const id = this.#nextId++;
    const reply = waitFor(this.subscribe, (m) => 'id' in m && m.id === id && !('method' in m), {
      label: `reply to ${method}`,
    });
    this.connection.receive({ id, method, params });
    return (await reply) as RpcReply;
  }

  notifications(method: string): Notification[] {
    return this.received.filter((m): m is Notification => 'method' in m && !('id' in m) && m.method === method);
  }
}

/** The result of a request that must succeed; an error answer throws, naming its code and message. */
export async function ok<T>(client: InProcessClient, method: string, params: unknown): Promise<T> {
  const reply = await client.call(method, params);
  if (reply.error) throw new Error(`${method}: ${reply.error.code} ${reply.error.message}`);
  return reply.result as T;
}

export interface InProcessHost {
  host: AppHost;
  client: InProcessClient;
  logs: string[];
  close(): Promise<void>;
}

/** Starts the app host and attaches one initialized client. */
export async function startInProcessHost(options: AppHostOptions): Promise<InProcessHost> {
  const logs: string[] = [];
  const host = await createAppHost({ log: (line) => logs.push(line), ...options });
  let client: InProcessClient | null = null;
  const connection = host.host.connect({ label: 'test', send: (message) => client?.deliver(message) });
  client = new InProcessClient(connection);
  const init = await client.call('initialize', { clientInfo: { name: 'test', version: '0' } });
  if (init.error) throw new Error(`initialize failed: ${init.error.message}`);
  const attached = client;
  return {
    host,
    client: attached,
    logs,
    close: async () => {
      connection.close();
      await host.close();
    },
  };
}
