// The thread list while the server builds a new index: the real controller and RPC client, the test
// speaking as the server. A list answered with `weftIndexing` marks the lists partial ("Indexing
// threads…"); `weft/threads/indexed` makes the controller list again, and the whole list replaces it.
import { afterEach, expect, it } from 'vitest';
import {
  createRpcClient,
  type ConnectionHandlers,
  type Connector,
  type WeftClient,
} from '../../../src-renderer/client';
import { createController } from '../../../src-renderer/store/controller';
import { createAppStore } from '../../../src-renderer/store/store';
import { CWD, makeThread } from './fixtures';

/** The server side of one connection: what the client sent, and a way to answer. */
class Server {
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

  deliver(message: object): void {
    this.handlers?.onMessage(JSON.stringify(message));
  }

  async answer(method: string, n: number, result: object): Promise<void> {
    const request = await this.request(method, n);
    this.deliver({ id: request['id'], result });
  }
}

let client: WeftClient | undefined;
afterEach(() => {
  client?.dispose();
  client = undefined;
});

it('marks the lists partial while the index is built, and lists again once it is whole', async () => {
  const server = new Server();
  client = createRpcClient({ connector: server.connector, clientInfo: { name: 'weft-ui', version: '0.1.0' } });
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
  await server.answer('weft/forks/list', 0, { data: [] });
  const first = makeThread({ id: 'thr_1', preview: 'first' });
  const second = makeThread({ id: 'thr_2', preview: 'second' });
  await server.answer('thread/list', 0, { data: [first], nextCursor: null, weftIndexing: true });
  await server.answer('thread/list', 1, { data: [], nextCursor: null, weftIndexing: true });
  await new Promise<void>((resolve) => {
    const stop = store.subscribe((state) => {
      if (!state.ui.listsLoaded) return;
      stop();
      resolve();
    });
  });
  expect(store.getState().ui.indexing).toBe(true);
  expect(store.getState().data.live.map((t) => t.id)).toEqual(['thr_1']);

  server.deliver({ method: 'weft/threads/indexed', params: {} });
  await server.answer('weft/forks/list', 1, { data: [] });
  await server.answer('thread/list', 2, { data: [second, first], nextCursor: null });
  await server.answer('thread/list', 3, { data: [], nextCursor: null });
  await new Promise<void>((resolve) => {
    const check = (): boolean => !store.getState().ui.indexing;
    if (check()) return resolve();
    const stop = store.subscribe(() => {
      if (!check()) return;
      stop();
      resolve();
    });
  });
  expect(store.getState().data.live.map((t) => t.id)).toEqual(['thr_2', 'thr_1']);
  controller.dispose();
});
