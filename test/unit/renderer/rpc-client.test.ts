import { afterEach, describe, expect, it } from 'vitest';
import { createRpcClient, CONNECTION_LOST, RpcError, socketUrlFor } from '../../../src-renderer/client';
import type {
  ConnectionHandlers,
  ConnectionState,
  Connector,
  IncomingServerRequest,
  Timers,
  WeftClient,
} from '../../../src-renderer/client';
import { makeThread } from './fixtures';

/** One fake connection: records what the client sends, and lets the test speak as the server. */
class FakeConnection {
  readonly sent: Record<string, unknown>[] = [];
  closed = false;
  private waiters: {
    predicate: (m: Record<string, unknown>) => boolean;
    resolve: (m: Record<string, unknown>) => void;
  }[] = [];

  constructor(private readonly handlers: ConnectionHandlers) {}

  send(text: string): void {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error(`client sent a non-object: ${text}`);
    const message = Object.fromEntries(Object.entries(parsed));
    this.sent.push(message);
    for (const waiter of this.waiters.filter((w) => w.predicate(message))) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve(message);
    }
  }

  /** Resolves with the first sent message (past or future) matching `predicate`. */
  next(predicate: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    const seen = this.sent.find(predicate);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ predicate, resolve }));
  }

  request(method: string): Promise<Record<string, unknown>> {
    return this.next((m) => m.method === method && 'id' in m);
  }

  deliver(message: object): void {
    this.handlers.onMessage(JSON.stringify(message));
  }

  drop(reason = 'the connection dropped'): void {
    this.handlers.onClose(reason);
  }
}

/** A server that accepts (or refuses) connections and answers the handshake when asked to. */
function fakeServer() {
  const connections: FakeConnection[] = [];
  let opened: { n: number; resolve: (c: FakeConnection) => void }[] = [];
  let refuse = false;
  const connector: Connector = (handlers) => {
    if (refuse) return Promise.reject(new Error('connection refused'));
    const connection = new FakeConnection(handlers);
    connections.push(connection);
    const ready = opened.filter((w) => w.n < connections.length);
    opened = opened.filter((w) => w.n >= connections.length);
    for (const waiter of ready) waiter.resolve(connections[waiter.n] ?? connection);
    return Promise.resolve({ send: (text: string) => connection.send(text), close: () => (connection.closed = true) });
  };
  return {
    connector,
    connections,
    setRefuse(value: boolean) {
      refuse = value;
    },
    /** The n-th connection (0-based), once it exists. */
    connection(n: number): Promise<FakeConnection> {
      const existing = connections[n];
      if (existing !== undefined) return Promise.resolve(existing);
      return new Promise((resolve) => opened.push({ n, resolve }));
    },
  };
}

async function handshake(connection: FakeConnection): Promise<void> {
  const init = await connection.request('initialize');
  connection.deliver({
    id: init.id,
    result: { userAgent: 'weft/0.1', codexHome: '/h', platformFamily: 'unix', platformOs: 'linux' },
  });
  await connection.next((m) => m.method === 'initialized');
}

/** Timers the test fires by hand: reconnect delays never really elapse. */
function manualTimers() {
  const pending = new Map<number, { callback: () => void; ms: number }>();
  let next = 1;
  const timers: Timers = {
    setTimeout(callback, ms) {
      const id = next++;
      pending.set(id, { callback, ms });
      return id;
    },
    clearTimeout(handle) {
      if (typeof handle === 'number') pending.delete(handle);
    },
  };
  return {
    timers,
    delays: () => [...pending.values()].map((p) => p.ms),
    fireAll() {
      const due = [...pending.values()];
      pending.clear();
      for (const p of due) p.callback();
    },
  };
}

function states(client: WeftClient) {
  const seen: ConnectionState[] = [];
  const waiters: { predicate: (s: ConnectionState) => boolean; resolve: (s: ConnectionState) => void }[] = [];
  client.onConnection((state) => {
    seen.push(state);
    for (const waiter of waiters.filter((w) => w.predicate(state))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(state);
    }
  });
  return {
    seen,
    until(predicate: (s: ConnectionState) => boolean): Promise<ConnectionState> {
      const last = seen[seen.length - 1];
      if (last !== undefined && predicate(last)) return Promise.resolve(last);
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
  };
}

const clientInfo = { name: 'weft-ui', version: '0.1.0' };
let client: WeftClient | undefined;
afterEach(() => client?.dispose());

describe('createRpcClient', () => {
  it('completes the handshake before sending anything else, then sends what waited', async () => {
    const server = fakeServer();
    client = createRpcClient({ connector: server.connector, clientInfo });
    const listing = client.request('thread/list', { limit: 5 });
    const connection = await server.connection(0);
    const init = await connection.request('initialize');
    expect(init).toEqual({ id: init.id, method: 'initialize', params: { clientInfo } });
    expect(connection.sent).toHaveLength(1);
    connection.deliver({
      id: init.id,
      result: { userAgent: 'weft/0.1', codexHome: '/h', platformFamily: 'unix', platformOs: 'linux' },
    });
    const list = await connection.request('thread/list');
    expect(connection.sent.map((m) => m.method)).toEqual(['initialize', 'initialized', 'thread/list']);
    expect(list.params).toEqual({ limit: 5 });
    connection.deliver({ id: list.id, result: { data: [makeThread()], nextCursor: null } });
    expect(await listing).toEqual({ data: [makeThread()], nextCursor: null });
    expect(client.state).toEqual({ phase: 'open' });
  });

  it('rejects with the server error, and with a clear error when a result does not match its schema', async () => {
    const server = fakeServer();
    client = createRpcClient({ connector: server.connector, clientInfo });
    const connection = await server.connection(0);
    await handshake(connection);

    const failing = client.request('thread/read', { threadId: 'x' });
    const read = await connection.request('thread/read');
    connection.deliver({ id: read.id, error: { code: -32602, message: 'params.threadId: no such thread' } });
    await expect(failing).rejects.toEqual(new RpcError('thread/read', -32602, 'params.threadId: no such thread'));

    const malformed = client.request('fs/readFile', { path: '/etc/hosts' });
    const file = await connection.request('fs/readFile');
    connection.deliver({ id: file.id, result: { data: 42 } });
    await expect(malformed).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('fs/readFile is malformed (result.dataBase64'),
    });
  });

  it('delivers parsed notifications and drops the ones that do not parse', async () => {
    const server = fakeServer();
    const warnings: string[] = [];
    client = createRpcClient({ connector: server.connector, clientInfo, warn: (m) => warnings.push(m) });
    const seen: unknown[] = [];
    client.onNotification((n) => seen.push(n));
    const connection = await server.connection(0);
    await handshake(connection);
    connection.deliver({ method: 'thread/name/updated', params: { threadId: 't', name: 'New' } });
    connection.deliver({ method: 'thread/name/updated', params: { threadId: 't' } });
    connection.deliver({ method: 'codex/unknown', params: {} });
    expect(seen).toEqual([{ method: 'thread/name/updated', params: { threadId: 't', name: 'New' } }]);
    expect(warnings).toEqual([
      'dropped a message: notification thread/name/updated: params.name: expected string, received undefined',
      'dropped a message: unknown notification codex/unknown',
    ]);
  });

  it('hands server requests to listeners and sends validated answers once', async () => {
    const server = fakeServer();
    client = createRpcClient({ connector: server.connector, clientInfo });
    const requests: IncomingServerRequest[] = [];
    client.onServerRequest((r) => requests.push(r));
    const connection = await server.connection(0);
    await handshake(connection);
    const params = {
      threadId: 't',
      turnId: 'u',
      itemId: 'c',
      startedAtMs: 1_700_000_000_000,
      command: 'rm -rf build',
      cwd: '/p',
    };
    connection.deliver({ id: 'srv-1', method: 'item/commandExecution/requestApproval', params });
    expect(requests).toEqual([{ id: 'srv-1', method: 'item/commandExecution/requestApproval', params }]);
    const request = requests[0];
    if (request?.method !== 'item/commandExecution/requestApproval') throw new Error('no approval request');

    expect(() => client?.respond(request, { decision: 'maybe' as never })).toThrow(/result\.decision/);
    client.respond(request, { decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['rm'] } } });
    expect(connection.sent.at(-1)).toEqual({
      id: 'srv-1',
      result: { decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['rm'] } } },
    });
    expect(() => client?.respond(request, { decision: 'accept' })).toThrow(/no pending/);
  });

  it('refuses to answer a request the server already resolved, and answers unknown server requests with an error', async () => {
    const server = fakeServer();
    client = createRpcClient({ connector: server.connector, clientInfo });
    const requests: IncomingServerRequest[] = [];
    client.onServerRequest((r) => requests.push(r));
    const connection = await server.connection(0);
    await handshake(connection);
    connection.deliver({
      id: 9,
      method: 'item/fileChange/requestApproval',
      params: { threadId: 't', turnId: 'u', itemId: 'f', startedAtMs: 1_700_000_000_000 },
    });
    connection.deliver({ method: 'serverRequest/resolved', params: { threadId: 't', requestId: 9 } });
    const request = requests[0];
    if (request === undefined) throw new Error('no request');
    expect(() => client?.respond(request, { decision: 'accept' })).toThrow(
      /no pending item\/fileChange\/requestApproval request with id 9/,
    );

    connection.deliver({ id: 10, method: 'item/somethingNew', params: {} });
    expect(connection.sent.at(-1)).toEqual({
      id: 10,
      error: { code: -32601, message: 'The Weft UI does not handle the server request "item/somethingNew".' },
    });
  });

  it('reconnects with backoff after a drop, failing what was in flight, and handshakes again', async () => {
    const server = fakeServer();
    const clock = manualTimers();
    client = createRpcClient({
      connector: server.connector,
      clientInfo,
      timers: clock.timers,
      backoffMs: [10, 20, 30],
    });
    const watch = states(client);
    const readies: boolean[] = [];
    client.onReady((e) => readies.push(e.reconnect));
    const first = await server.connection(0);
    await handshake(first);

    const inFlight = client.request('model/list', {});
    await first.request('model/list');
    first.drop('the server restarted');
    await expect(inFlight).rejects.toMatchObject({
      code: CONNECTION_LOST,
      message: expect.stringContaining('model/list (the server restarted)'),
    });
    expect(await watch.until((s) => s.phase === 'reconnecting')).toEqual({
      phase: 'reconnecting',
      attempt: 1,
      maxAttempts: 3,
      lastError: 'the server restarted',
    });
    expect(clock.delays()).toEqual([10]);

    const waiting = client.request('thread/list', {});
    clock.fireAll();
    const second = await server.connection(1);
    await handshake(second);
    const list = await second.request('thread/list');
    second.deliver({ id: list.id, result: { data: [], nextCursor: null } });
    expect(await waiting).toEqual({ data: [], nextCursor: null });
    expect(readies).toEqual([false, true]);
    expect(client.state).toEqual({ phase: 'open' });
  });

  it('gives up after the last attempt, rejects what waited, and starts over on retry()', async () => {
    const server = fakeServer();
    const clock = manualTimers();
    server.setRefuse(true);
    client = createRpcClient({ connector: server.connector, clientInfo, timers: clock.timers, backoffMs: [10, 20] });
    const watch = states(client);
    const waiting = client.request('thread/list', {});
    await watch.until((s) => s.phase === 'reconnecting' && s.attempt === 1);
    clock.fireAll();
    await watch.until((s) => s.phase === 'reconnecting' && s.attempt === 2);
    clock.fireAll();
    expect(await watch.until((s) => s.phase === 'failed')).toEqual({
      phase: 'failed',
      message: 'Could not reach Weft after 2 attempts: connection refused',
      reason: 'unreachable',
    });
    await expect(waiting).rejects.toMatchObject({ code: CONNECTION_LOST });
    await expect(client.request('thread/list', {})).rejects.toThrow(/unreachable/);

    server.setRefuse(false);
    client.retry();
    await handshake(await server.connection(0));
    expect(client.state).toEqual({ phase: 'open' });
  });

  it('closes the connection and rejects pending requests on dispose', async () => {
    const server = fakeServer();
    client = createRpcClient({ connector: server.connector, clientInfo });
    const connection = await server.connection(0);
    await handshake(connection);
    const pending = client.request('model/list', {});
    await connection.request('model/list');
    client.dispose();
    expect(connection.closed).toBe(true);
    await expect(pending).rejects.toMatchObject({ code: CONNECTION_LOST });
  });
});

describe('socketUrlFor', () => {
  it('derives the WebSocket address from the page address and its token', () => {
    expect(socketUrlFor('http://127.0.0.1:4242/?token=a%2Bb&cwd=%2Ftmp')).toBe('ws://127.0.0.1:4242/ws?token=a%2Bb');
    expect(socketUrlFor('https://box.example:8443/index.html?token=t')).toBe('wss://box.example:8443/ws?token=t');
    expect(socketUrlFor('http://127.0.0.1:4242/')).toBeNull();
    expect(socketUrlFor('app://weft/index.html?token=t')).toBeNull();
  });
});
