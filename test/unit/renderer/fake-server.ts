// The server side of one renderer connection, for tests of the real controller and RPC client: it
// records what the client sent, waits for requests by method, and delivers answers and notifications.
import { createRpcClient, type ConnectionHandlers, type Connector } from '../../../src-renderer/client';
import { createController, type Controller } from '../../../src-renderer/store/controller';
import { createAppStore, type AppStore } from '../../../src-renderer/store/store';
import { CWD } from './fixtures';

/** The server side of one connection: what the client sent, and a way to answer. */
export class FakeServer {
  readonly sent: Record<string, unknown>[] = [];
  private handlers: ConnectionHandlers | null = null;
  private waiters: {
    predicate: (m: Record<string, unknown>) => boolean;
    resolve: (m: Record<string, unknown>) => void;
  }[] = [];

  readonly connector: Connector = (handlers) => {
    this.handlers = handlers;
    return Promise.resolve({
      send: (text: string) => this.receive(text),
      close: () => undefined,
    });
  };

  private receive(text: string): void {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error(`not an object: ${text}`);
    const message = Object.fromEntries(Object.entries(parsed));
    this.sent.push(message);
    for (const waiter of this.waiters.filter((w) => w.predicate(message))) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve(message);
    }
  }

  /** The n-th request (0-based) of `method` the client sent, once sent. */
  request(method: string, n = 0): Promise<Record<string, unknown>> {
    const matches = (m: Record<string, unknown>): boolean => m.method === method && 'id' in m;
    const seen = this.sent.filter(matches)[n];
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) =>
      this.waiters.push({ predicate: (m) => matches(m) && this.sent.filter(matches).length > n, resolve }),
    ).then(() => this.sent.filter(matches)[n] ?? {});
  }

  /** The params of every request of `method` sent so far, in order. */
  params(method: string): unknown[] {
    return this.sent.filter((m) => m.method === method && 'id' in m).map((m) => m['params']);
  }

  deliver(message: object): void {
    this.handlers?.onMessage(JSON.stringify(message));
  }

  async answer(method: string, n: number, result: object): Promise<void> {
    const request = await this.request(method, n);
    this.deliver({ id: request['id'], result });
  }
}

export interface RunningController {
  server: FakeServer;
  store: AppStore;
  controller: Controller;
  dispose(): void;
}

/** The real controller and RPC client on the project CWD, connected (initialize answered) to a fake server. */
export async function startController(): Promise<RunningController> {
  const server = new FakeServer();
  const client = createRpcClient({ connector: server.connector, clientInfo: { name: 'weft-ui', version: '0.1.0' } });
  const store = createAppStore(CWD);
  const controller = createController(client, store, {
    scheduler: { schedule: (callback) => (queueMicrotask(callback), () => undefined) },
    href: () => `http://127.0.0.1/?cwd=${encodeURIComponent(CWD)}`,
    replaceHref: () => undefined,
    storage: null,
  });
  controller.start();
  await server.answer('initialize', 0, {
    userAgent: 'weft/0.1',
    codexHome: '/h',
    platformFamily: 'unix',
    platformOs: 'linux',
  });
  return {
    server,
    store,
    controller,
    dispose: () => {
      controller.dispose();
      client.dispose();
    },
  };
}
