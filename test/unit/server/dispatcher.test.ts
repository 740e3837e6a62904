// The JSON-RPC dispatcher on its own, with a recording sink: handshake, validation, routing, response
// order, and server requests awaiting the client's answer (pending requests).
import { describe, expect, it } from 'vitest';
import { ClientRequests, ErrorCodes, type ClientRequestMethod } from '../../../src-preload/protocol';
import { RpcDispatcher, type Client, type Handler, type HandlerTable } from '../../../src-main/server/dispatcher';
import { TOO_DEEP_MESSAGE } from '../../../src-main/server/framing';
import { RpcError } from '../../../src-main/server/rpc-error';
import { ThreadManager } from '../../../src-main/server/thread-manager';

const serverInfo = {
  userAgent: 'weft/0.1.0',
  codexHome: '/home/ada/.weft',
  platformFamily: 'unix',
  platformOs: 'linux',
};

/** Every method answers "not in this test" unless `overrides` gives it a handler. */
function handlers(overrides: Partial<HandlerTable>): HandlerTable {
  const table: Partial<Record<ClientRequestMethod, Handler<ClientRequestMethod>>> = {};
  for (const method of Object.keys(ClientRequests) as ClientRequestMethod[]) {
    table[method] = () => Promise.reject(new RpcError(ErrorCodes.InternalError, `${method} is not in this test`));
  }
  // Each key of `table` now holds a handler; the overrides are typed per method by Partial<HandlerTable>.
  return { ...(table as HandlerTable), ...overrides };
}

function connect(overrides: Partial<HandlerTable> = {}, options: { boundsNesting?: boolean } = {}) {
  const sent: object[] = [];
  const log: string[] = [];
  const closed: Client[] = [];
  const manager = new ThreadManager({ log: () => undefined, unloadAfterMs: 60_000, maxUnwatched: 4 });
  const dispatcher = new RpcDispatcher({
    handlers: handlers(overrides),
    serverInfo: () => serverInfo,
    log: (l) => log.push(l),
    onClientClosed: (c) => closed.push(c),
    threadQueue: manager,
  });
  const connection = dispatcher.connect({ send: (m) => sent.push(m), label: 'test', ...options });
  return { sent, log, closed, connection };
}

/** `{a: {a: … {} }}`, `depth` objects deep. */
function nested(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let at = root;
  for (let i = 1; i < depth; i++) {
    const next: Record<string, unknown> = {};
    at['a'] = next;
    at = next;
  }
  return root;
}

/** A handler that waits until the test releases it, recording when it starts and ends. */
function gated<T>(events: string[], name: string, result: T): { handler: () => Promise<T>; release: () => void } {
  let release: () => void = () => undefined;
  return {
    handler: () => {
      events.push(`start ${name}`);
      return new Promise((resolve) => {
        release = () => {
          events.push(`end ${name}`);
          resolve(result);
        };
      });
    },
    release: () => release(),
  };
}

const init = { id: 0, method: 'initialize', params: { clientInfo: { name: 'test', version: '1' } } };

describe('requests ahead of background work', () => {
  it('holds the foreground from the request until its answer has left, not for initialize', async () => {
    const events: string[] = [];
    let sentNow: () => void = () => undefined;
    const dispatcher = new RpcDispatcher({
      handlers: handlers({
        'thread/archive': () => {
          events.push('handler');
          return Promise.resolve({});
        },
      }),
      serverInfo: () => serverInfo,
      log: () => undefined,
      inForeground: async (work) => {
        events.push('enter');
        try {
          return await work();
        } finally {
          events.push('leave');
        }
      },
    });
    const connection = dispatcher.connect({
      label: 'test',
      send: (m) => events.push(`send ${JSON.stringify(m).slice(0, 14)}`),
      whenSent: () => new Promise<void>((resolve) => (sentNow = resolve)),
    });
    connection.receive(init);
    connection.receive({ id: 1, method: 'thread/archive', params: { threadId: 't' } });
    await flush();
    expect(events).toEqual(['send {"id":0,"resul', 'enter', 'handler', 'send {"id":1,"resul']);
    sentNow();
    await flush();
    expect(events.at(-1)).toBe('leave');
  });
});
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('RpcDispatcher', () => {
  it('refuses requests before initialize, answers initialize once, then routes', async () => {
    let client: Client | null = null;
    const { sent, connection } = connect({
      'thread/archive': (_params, c) => {
        client = c;
        return Promise.resolve({});
      },
    });
    connection.receive({ id: 1, method: 'thread/archive', params: { threadId: 't' } });
    connection.receive(init);
    connection.receive({ method: 'initialized' });
    connection.receive(init);
    await flush();
    expect(sent).toEqual([
      { id: 1, error: { code: ErrorCodes.InvalidRequest, message: 'Not initialized' } },
      { id: 0, result: serverInfo },
      { id: 0, error: { code: ErrorCodes.InvalidRequest, message: 'Already initialized' } },
    ]);
    expect(client).toBeNull();
  });

  it('answers unknown methods, bad params, bad frames and handler failures with JSON-RPC errors', async () => {
    const { sent, connection, log } = connect({
      'thread/archive': () => Promise.reject(new Error('disk on fire')),
    });
    connection.receive(init);
    await flush();
    sent.length = 0;
    connection.receive({ id: 2, method: 'thread/launchRockets', params: {} });
    connection.receive({ id: 3, method: 'thread/archive', params: { threadId: 42 } });
    connection.receive({ kind: 'frame-error', code: ErrorCodes.ParseError, message: 'Parse error: bad JSON', id: 4 });
    connection.receive({ id: 5, method: 'thread/archive', params: { threadId: 't' } });
    connection.receive('not even an object');
    await flush();
    expect(sent).toEqual([
      { id: 2, error: { code: ErrorCodes.MethodNotFound, message: 'Method not found: thread/launchRockets' } },
      {
        id: 3,
        error: {
          code: ErrorCodes.InvalidParams,
          message: 'Invalid params: params.threadId: expected string, received number',
        },
      },
      { id: 4, error: { code: ErrorCodes.ParseError, message: 'Parse error: bad JSON' } },
      {
        id: null,
        error: { code: ErrorCodes.InvalidRequest, message: expect.stringMatching(/^Invalid request: /) as string },
      },
      { id: 5, error: { code: ErrorCodes.InternalError, message: 'disk on fire' } },
    ]);
    expect(log.some((l) => l.includes('thread/archive failed: Error: disk on fire'))).toBe(true);
  });
  it('sends a thread/start response before the notifications it causes', async () => {
    let release: () => void = () => undefined;
    const { sent, connection } = connect({
      'thread/archive': (params, client) =>
        new Promise((resolve) => {
          client.notify({ method: 'thread/archived', params: { threadId: params.threadId } });
          release = () => resolve({});
        }),
    });
    connection.receive(init);
    await flush();
    sent.length = 0;
    connection.receive({ id: 7, method: 'thread/archive', params: { threadId: 't' } });
    await flush();
    expect(sent).toEqual([]);
    release();
    await flush();
    expect(sent).toEqual([
      { id: 7, result: {} },
      { method: 'thread/archived', params: { threadId: 't' } },
    ]);
  });

  it('resolves a server request with the answer to its id, rejects on an error answer and on disconnect', async () => {
    let client: Client | null = null;
    const { sent, connection, log, closed } = connect({
      'thread/archive': (_params, c) => {
        client = c;
        return Promise.resolve({});
      },
    });
    connection.receive(init);
    connection.receive({ id: 1, method: 'thread/archive', params: { threadId: 't' } });
    await flush();
    if (client === null) throw new Error('the handler did not run');
    const c: Client = client;
    const approval = {
      method: 'item/commandExecution/requestApproval' as const,
      params: { threadId: 't', turnId: 'u', itemId: 'i', startedAtMs: 1, command: 'ls', cwd: '/w' },
    };
    sent.length = 0;
    const answered = c.request(approval, 'a1');
    const refused = c.request(approval, 'a2');
    const orphan = c.request(approval, 'a3');
    expect(sent).toEqual([
      { id: 'a1', ...approval },
      { id: 'a2', ...approval },
      { id: 'a3', ...approval },
    ]);
    connection.receive({ id: 'a1', result: { decision: 'accept' } });
    connection.receive({ id: 'a2', error: { code: -32000, message: 'no thanks' } });
    connection.receive({ id: 'zz', result: {} });
    await expect(answered).resolves.toEqual({ decision: 'accept' });
    await expect(refused).rejects.toThrow('no thanks');
    expect(log).toContain('weft app-server: response for unknown request id zz from test');
    connection.close();
    await expect(orphan).rejects.toThrow('client test disconnected');
    expect(closed).toEqual([c]);
    expect(c.closed).toBe(true);
    await expect(c.request(approval, 'a4')).rejects.toThrow('client test is disconnected');
  });

  it('does not send notifications a client opted out of, nor anything before initialize', async () => {
    let client: Client | null = null;
    const { sent, connection } = connect({
      'thread/archive': (_params, c) => {
        client = c;
        return Promise.resolve({});
      },
    });
    connection.receive({
      ...init,
      params: { ...init.params, capabilities: { optOutNotificationMethods: ['warning'] } },
    });
    connection.receive({ id: 1, method: 'thread/archive', params: { threadId: 't' } });
    await flush();
    if (client === null) throw new Error('the handler did not run');
    const c: Client = client;
    sent.length = 0;
    c.notify({ method: 'warning', params: { message: 'careful' } });
    c.notify({ method: 'thread/archived', params: { threadId: 't' } });
    expect(sent).toEqual([{ method: 'thread/archived', params: { threadId: 't' } }]);
  });

  it('answers a request whose id no reply can carry with -32600 and id null, never as a notification', async () => {
    const { sent, connection, log } = connect();
    connection.receive(init);
    await flush();
    sent.length = 0;
    for (const id of [{ a: 1 }, 1.5, null, [2], 2 ** 60]) connection.receive({ id, method: 'thread/list', params: {} });
    await flush();
    const invalid = {
      id: null,
      error: { code: ErrorCodes.InvalidRequest, message: 'Invalid request: id must be a string or an integer' },
    };
    expect(sent).toEqual([invalid, invalid, invalid, invalid, invalid]);
    expect(log).toEqual([]);
  });

  it('refuses objects nested deeper than the bound from transports that hand over objects', async () => {
    const archived: unknown[] = [];
    const archive = (params: { threadId: string }) => {
      archived.push(params.threadId);
      return Promise.resolve({});
    };
    const { sent, connection } = connect({ 'thread/archive': archive });
    connection.receive(init);
    await flush();
    sent.length = 0;
    const cyclic: Record<string, unknown> = { threadId: 'loop' };
    cyclic['self'] = cyclic;
    connection.receive({ id: 1, method: 'thread/archive', params: { threadId: 'deep', x: nested(200) } });
    connection.receive({ id: 2, method: 'thread/archive', params: cyclic });
    connection.receive({ id: 3, method: 'thread/archive', params: { threadId: 'fine', x: nested(90) } });
    await flush();
    expect(sent).toEqual([
      { id: 1, error: { code: ErrorCodes.InvalidRequest, message: TOO_DEEP_MESSAGE } },
      { id: 2, error: { code: ErrorCodes.InvalidRequest, message: TOO_DEEP_MESSAGE } },
      { id: 3, result: {} },
    ]);
    expect(archived).toEqual(['fine']);

    // A stream transport bounds its frames before parsing them: the dispatcher does not walk them again.
    const framed = connect({ 'thread/archive': archive }, { boundsNesting: true });
    framed.connection.receive(init);
    framed.connection.receive({
      id: 4,
      method: 'thread/archive',
      params: { threadId: 'walked by nobody', x: nested(200) },
    });
    await flush();
    expect(framed.sent.at(-1)).toEqual({ id: 4, result: {} });
  });

  it("handles one thread's requests in order, reads side by side, other threads and long calls meanwhile", async () => {
    const events: string[] = [];
    const noTurns = { data: [], nextCursor: null };
    const rename = gated(events, 'rename', {});
    const read1 = gated(events, 'read 1', noTurns);
    const read2 = gated(events, 'read 2', noTurns);
    const interrupt = gated(events, 'interrupt', {});
    const other = gated(events, 'other thread', {});
    const call = gated(events, 'mcp call', { content: [] });
    const { sent, connection } = connect({
      'thread/name/set': (params) => (params.threadId === 'a' ? rename.handler() : other.handler()),
      'thread/turns/list': () => (events.includes('start read 1') ? read2.handler() : read1.handler()),
      'turn/interrupt': () => interrupt.handler(),
      'mcpServer/tool/call': () => call.handler(),
      'thread/list': () => Promise.resolve({ data: [], nextCursor: null }),
    });
    connection.receive(init);
    await flush();
    sent.length = 0;
    connection.receive({ id: 1, method: 'thread/name/set', params: { threadId: 'a', name: 'n' } });
    connection.receive({ id: 2, method: 'thread/turns/list', params: { threadId: 'a' } });
    connection.receive({ id: 3, method: 'thread/turns/list', params: { threadId: 'a' } });
    connection.receive({ id: 4, method: 'turn/interrupt', params: { threadId: 'a', turnId: 'u' } });
    connection.receive({ id: 5, method: 'mcpServer/tool/call', params: { threadId: 'a', server: 's', tool: 't' } });
    connection.receive({ id: 6, method: 'thread/name/set', params: { threadId: 'b', name: 'n' } });
    connection.receive({ id: 7, method: 'thread/list', params: {} });
    await flush();
    expect(events).toEqual(['start rename', 'start other thread']);
    expect(sent).toEqual([{ id: 7, result: { data: [], nextCursor: null } }]);
    rename.release();
    await flush();
    expect(events.slice(2)).toEqual(['end rename', 'start read 1', 'start read 2']);
    read2.release();
    await flush();
    expect(events.slice(5)).toEqual(['end read 2']);
    read1.release();
    await flush();
    expect(events.slice(6)).toEqual(['end read 1', 'start interrupt']);
    interrupt.release();
    await flush();
    // The call waited for the interrupt queued before it; it holds nothing back.
    expect(events.slice(8)).toEqual(['end interrupt', 'start mcp call']);
    other.release();
    call.release();
    await flush();
    expect(sent.map((m) => ('id' in m ? m.id : null))).toEqual([7, 1, 3, 2, 4, 6, 5]);
  });
});
