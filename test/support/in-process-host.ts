// The real app host (store, thread manager, dispatcher, handlers) in the test process, with one client
// attached the way a transport attaches it. Responses and notifications are recorded as they arrive.
import { createAppHost, type AppHost, type AppHostOptions } from '../../src-main/server/app-host';
import type { ClientConnection } from '../../src-main/server/transport';
import { afterEach, beforeEach } from 'vitest';
import {
  mockModelConfig,
  startMockResponsesServer,
  type MockResponsesServer,
  type MockStep,
} from './mock-responses-server';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from './sse';
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
 * A project (`files`) and a Weft home (its config from `config`, asked before each test) made before each
 * test of the file, and the host started on them (`env` for its process environment) closed and both
 * removed after it. `start` again restarts the host on the same home.
 */
function perTestHost(
  files: Record<string, string>,
  config: () => string,
  env: (home: string) => NodeJS.ProcessEnv,
): HostPerTest {
  let ws: TempWorkspace | null = null;
  let home: WeftHome | null = null;
  let app: InProcessHost | null = null;
  beforeEach(async () => {
    ws = await makeTempWorkspace(files);
    home = await makeWeftHome(config());
  });
  afterEach(async () => {
    await app?.close();
    app = null;
    await ws?.cleanup();
    await home?.cleanup();
  });
  return {
    get ws() {
      return madeBeforeEach(ws, 'workspace');
    },
    get home() {
      return madeBeforeEach(home, 'home');
    },
    async start(options = {}) {
      const dir = madeBeforeEach(home, 'home').dir;
      await app?.close();
      app = await startInProcessHost({
        weftHome: dir,
        cwd: madeBeforeEach(ws, 'workspace').dir,
        env: env(dir),
        ...options,
      });
      return app;
    },
  };
}

function madeBeforeEach<T>(value: T | null, what: string): T {
  if (value === null) throw new Error(`the test's ${what} is made before each test`);
  return value;
}

/**
 * A project (`files`) and a Weft home (`config`) made before each test of the file, and the host started on
 * them closed and both removed after it. Call at the top of a test file.
 */
export function hostPerTest(files: Record<string, string>, config: string): HostPerTest {
  return perTestHost(
    files,
    () => config,
    (dir) => ({ WEFT_HOME: dir, OPENAI_API_KEY: 'x' }),
  );
}

export interface MockModelHostPerTest extends HostPerTest {
  /** The test's mock Responses server, which the Weft home's config names as its model provider. */
  readonly server: MockResponsesServer;
}

/**
 * `hostPerTest` with the model on a mock Responses server started for each test (the home's config names it;
 * commands never ask, and write the workspace).
 */
export function mockModelHostPerTest(files: Record<string, string>): MockModelHostPerTest {
  let server: MockResponsesServer | null = null;
  beforeEach(async () => {
    server = await startMockResponsesServer();
  });
  // After the host's own clean-up (after-each hooks run last registered first).
  afterEach(async () => {
    await server?.close();
    server = null;
  });
  const host = perTestHost(
    files,
    () => mockModelConfig(madeBeforeEach(server, 'mock server').url),
    (dir) => ({ ...process.env, WEFT_HOME: dir, MOCK_API_KEY: 'x' }),
  );
  return {
    get server() {
      return madeBeforeEach(server, 'mock server');
    },
    get ws() {
      return host.ws;
    },
    get home() {
      return host.home;
    },
    start: (options) => host.start(options),
  };
}

/** A scripted model step that runs `cmd` with exec_command. */
export const commandStep = (callId: string, cmd: string): MockStep => ({
  kind: 'sse',
  events: [evCreated(), evFunctionCall(callId, 'exec_command', { cmd }), evCompleted()],
});

/** A scripted model step that answers `text`. */
export const answerStep = (text: string): MockStep => ({
  kind: 'sse',
  events: [evCreated(), evAssistantMessage(text), evCompleted()],
});

/** Starts a turn of `text` in `threadId` and waits for it to complete; its turn/completed params. */
export async function completedTurn(
  client: InProcessClient,
  threadId: string,
  text: string,
): Promise<{ turn: { id: string; status: string } }> {
  const { turn } = await ok<{ turn: { id: string } }>(client, 'turn/start', {
    threadId,
    input: [{ type: 'text', text }],
  });
  const done = (await waitFor(
    client.subscribe,
    (m) => 'method' in m && m.method === 'turn/completed' && JSON.stringify(m).includes(turn.id),
    { label: 'turn/completed' },
  )) as { params: { turn: { id: string; status: string } } };
  return done.params;
}
