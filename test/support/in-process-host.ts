// The real app host (store, thread manager, dispatcher, handlers) in the test process, with one client
// attached the way a transport attaches it. Responses and notifications are recorded as they arrive.
import { createAppHost, type AppHost, type AppHostOptions } from '../../src-main/server/app-host';
import type { ClientConnection } from '../../src-main/server/transport';
import { afterEach, beforeEach } from 'vitest';
import { waitFor, type Subscribe } from './wait';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from './workspace';

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

export interface HostPerTest {
  /** The test's project folder. */
  readonly ws: TempWorkspace;
  /** The test's WEFT_HOME. */
  readonly home: WeftHome;
  /** Starts the host on them (closed after the test); `options` add to or override the defaults. */
  start(options?: Partial<AppHostOptions>): Promise<InProcessHost>;
}

/**
 * A project (`files`) and a Weft home (`config`) made before each test of the file, and the host started on
 * them closed and both removed after it. Call at the top of a test file.
 */
export function hostPerTest(files: Record<string, string>, config: string): HostPerTest {
  let ws: TempWorkspace | null = null;
  let home: WeftHome | null = null;
  let app: InProcessHost | null = null;
  beforeEach(async () => {
    ws = await makeTempWorkspace(files);
    home = await makeWeftHome(config);
  });
  afterEach(async () => {
    await app?.close();
    app = null;
    await ws?.cleanup();
    await home?.cleanup();
  });
  const made = <T>(value: T | null, what: string): T => {
    if (value === null) throw new Error(`hostPerTest: the ${what} is made before each test`);
    return value;
  };
  return {
    get ws() {
      return made(ws, 'workspace');
    },
    get home() {
      return made(home, 'home');
    },
    async start(options = {}) {
      const dir = made(home, 'home').dir;
      app = await startInProcessHost({
        weftHome: dir,
        cwd: made(ws, 'workspace').dir,
        env: { WEFT_HOME: dir, OPENAI_API_KEY: 'x' },
        ...options,
      });
      return app;
    },
  };
}
