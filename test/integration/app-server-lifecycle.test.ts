// A thread's life in the host, driven over the real `weft app-server` (and the real host in-process where
// the unload grace must be short): requests on one thread are handled in the order they were sent (a
// client never sees its own requests collide), a turn holds nothing but itself (reads, renames and
// interrupts go through while it runs), an unarchived thread can be resumed and run, and idle threads
// nobody watches are unloaded with their MCP servers.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { getPriority } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AttentionEvent } from '../../src-main/server/app-host';
import { ThreadStore } from '../../src-main/store';
import { uuidv7 } from '../../src-main/util/ids';
import { BACKGROUND_NICE } from '../../src-main/util/pool-priority';
import { InProcessClient, startInProcessHost, type InProcessHost } from '../support/in-process-host';
import { childrenRunning } from '../support/proc';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient, type RpcMessage } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { waitFor } from '../support/wait';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';
import { ScriptedSession, meta } from '../unit/store/helpers';

const PROBE = resolve(__dirname, '../support/mcp-probe-server.mjs');

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
const clients: StdioRpcClient[] = [];
let app: InProcessHost | null = null;

const modelConfig = (): string =>
  `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  home = await makeWeftHome(modelConfig());
});

afterEach(async () => {
  for (const client of clients.splice(0).reverse()) await client.close();
  await app?.close();
  app = null;
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

async function appServer(): Promise<StdioRpcClient> {
  const client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
  clients.push(client);
  await client.initialize();
  return client;
}

const answer = (text: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evAssistantMessage(text), evCompleted()],
});

/** Sends a request without waiting; the promise holds its whole response. */
function send(client: StdioRpcClient, id: string, method: string, params: unknown): Promise<RpcMessage> {
  client.send({ id, method, params });
  return client.waitFor((m) => m.id === id && m.method === undefined, `response to ${method} (${id})`);
}

/** Saved threads of one finished turn each, written straight to WEFT_HOME (no server is running). */
async function savedThreads(count: number): Promise<string[]> {
  const store = ThreadStore.open(home.dir, { onWarning: () => undefined });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = uuidv7();
    const { recorder } = store.createThread({ ...meta(id, ws.dir), modelProvider: 'mock', model: 'mock-model' });
    await new ScriptedSession(id, recorder).turn([{ type: 'text', text: `question ${i}` }], 'completed');
    await recorder.close();
    ids.push(id);
  }
  await store.close();
  return ids;
}

describe('requests on one thread', () => {
  it('handles a rename and a resume sent back to back in order: both succeed, the resume sees the name', async () => {
    const ids = await savedThreads(3);
    const client = await appServer();
    for (const [i, threadId] of ids.entries()) {
      const renamed = send(client, `name-${i}`, 'thread/name/set', { threadId, name: `Renamed ${i}` });
      const resumed = send(client, `resume-${i}`, 'thread/resume', { threadId });
      expect(await renamed).toEqual({ id: `name-${i}`, result: {} });
      const reply = await resumed;
      expect(reply.error).toBeUndefined();
      expect(reply.result).toMatchObject({ thread: { id: threadId, name: `Renamed ${i}` } });
    }
    const loaded = await client.request<{ data: string[] }>('thread/loaded/list', {});
    expect([...loaded.data].sort()).toEqual([...ids].sort());
  });

  it('leaves a thread free to resume after a resume refused for its config', async () => {
    const [threadId = ''] = await savedThreads(1);
    const client = await appServer();
    const refused = await client.call('thread/resume', { threadId, config: { model_reasoning_effort: 'bogus' } });
    expect(refused.error).toEqual({
      code: -32602,
      message: expect.stringContaining('`model_reasoning_effort` must be one of') as unknown,
    });
    const resumed = await client.call('thread/resume', { threadId, cwd: ws.dir });
    expect(resumed.error).toBeUndefined();
    expect(await client.request('thread/loaded/list', {})).toEqual({ data: [threadId], nextCursor: null });
  });

  it('runs a turn on a thread archived, unarchived and resumed, sent back to back or one by one', async () => {
    server.enqueueMany([answer('first'), answer('after unarchive'), answer('one by one')]);
    const client = await appServer();
    const started = await client.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    const threadId = started.thread.id;
    let from = client.received.length;
    await client.request('turn/start', { threadId, input: [{ type: 'text', text: 'hello' }] });
    await client.notification('turn/completed', () => true, from);

    from = client.received.length;
    const replies = await Promise.all([
      send(client, 'archive', 'thread/archive', { threadId }),
      send(client, 'unarchive', 'thread/unarchive', { threadId }),
      send(client, 'resume', 'thread/resume', { threadId }),
      send(client, 'turn', 'turn/start', { threadId, input: [{ type: 'text', text: 'again' }] }),
    ]);
    expect(replies.map((r) => [r.id, r.error ?? 'ok'])).toEqual([
      ['archive', 'ok'],
      ['unarchive', 'ok'],
      ['resume', 'ok'],
      ['turn', 'ok'],
    ]);
    const done = await client.notification('turn/completed', () => true, from);
    expect(done['turn']).toMatchObject({ status: 'completed' });

    await client.request('thread/archive', { threadId });
    await client.request('thread/unarchive', { threadId });
    await client.request('thread/resume', { threadId });
    from = client.received.length;
    await client.request('turn/start', { threadId, input: [{ type: 'text', text: 'once more' }] });
    const third = await client.notification('turn/completed', () => true, from);
    expect(third['turn']).toMatchObject({ status: 'completed' });
    expect(server.requests).toHaveLength(3);
  });

  it('answers reads, renames and an interrupt while a turn waits on an approval', async () => {
    server.enqueueMany([
      {
        kind: 'sse',
        events: [evCreated(), evFunctionCall('c1', 'exec_command', { cmd: 'touch x.txt' }), evCompleted()],
      },
    ]);
    const client = await appServer();
    const started = await client.request<{ thread: { id: string } }>('thread/start', {
      cwd: ws.dir,
      approvalPolicy: 'untrusted',
      sandbox: 'workspace-write',
    });
    const threadId = started.thread.id;
    const from = client.received.length;
    const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
      threadId,
      input: [{ type: 'text', text: 'run it' }],
    });
    await client.serverRequest('item/commandExecution/requestApproval', from);
    const read = await client.request<{ thread: { status: unknown } }>('thread/read', { threadId });
    expect(read.thread.status).toEqual({
      type: 'active',
      activeFlags: ['waitingOnApproval'],
      weftStep: { type: 'command', command: 'touch x.txt' },
    });
    expect(await client.request('thread/name/set', { threadId, name: 'busy' })).toEqual({});
    const turns = await client.request<{ data: unknown[] }>('thread/turns/list', { threadId });
    expect(turns.data).toHaveLength(1);
    expect(await client.request('turn/interrupt', { threadId, turnId: turn.id })).toEqual({});
    const done = await client.notification('turn/completed', () => true, from);
    expect(done['turn']).toMatchObject({ id: turn.id, status: 'interrupted' });
  });
});

describe('what every client hears', () => {
  it('titles what needs the person by the thread’s title: its first message’s first line, then its name', async () => {
    server.enqueueMany([answer('done'), answer('done again')]);
    app = await startInProcessHost({
      weftHome: home.dir,
      cwd: ws.dir,
      env: { WEFT_HOME: home.dir, MOCK_API_KEY: 'x' },
    });
    const { client, host } = app;
    const events: AttentionEvent[] = [];
    const off = host.onAttention((event) => events.push(event));
    const started = await client.call('thread/start', { cwd: ws.dir });
    const threadId = (started.result as { thread: { id: string } }).thread.id;
    const finished = (n: number) => (m: object) =>
      client.notifications('turn/completed').length >= n && 'method' in m && m.method === 'turn/completed';
    const first = waitFor(client.subscribe, finished(1), { label: 'the first turn/completed' });
    await client.call('turn/start', {
      threadId,
      input: [{ type: 'text', text: 'Fix the parser\nIt fails on empty input' }],
    });
    await first;
    expect((await client.call('thread/name/set', { threadId, name: '  Parser fix ' })).error).toBeUndefined();
    const second = waitFor(client.subscribe, finished(2), { label: 'the second turn/completed' });
    await client.call('turn/start', { threadId, input: [{ type: 'text', text: 'And the lexer' }] });
    await second;
    off();
    expect(events.map((e) => [e.kind, e.title])).toEqual([
      ['turnFinished', 'Fix the parser'],
      ['turnFinished', 'Parser fix'],
    ]);
  });

  it('tells every client a thread’s status, also a client that never watched it', async () => {
    server.enqueueMany([
      {
        kind: 'sse',
        events: [evCreated(), evFunctionCall('c1', 'exec_command', { cmd: 'touch x.txt' }), evCompleted()],
      },
      answer('done'),
    ]);
    app = await startInProcessHost({
      weftHome: home.dir,
      cwd: ws.dir,
      env: { WEFT_HOME: home.dir, MOCK_API_KEY: 'x' },
    });
    const { client } = app;
    // A second window: it lists threads (as the UI does first) and watches none.
    let observer: InProcessClient | null = null;
    const connection = app.host.host.connect({ label: 'observer', send: (message) => observer?.deliver(message) });
    observer = new InProcessClient(connection);
    expect(
      (await observer.call('initialize', { clientInfo: { name: 'observer', version: '0' } })).error,
    ).toBeUndefined();
    expect((await observer.call('thread/list', {})).error).toBeUndefined();

    const started = await client.call('thread/start', {
      cwd: ws.dir,
      approvalPolicy: 'untrusted',
      sandbox: 'workspace-write',
    });
    const threadId = (started.result as { thread: { id: string } }).thread.id;
    const statusOf = (flags: string[] | null) => (m: object) =>
      'method' in m &&
      m.method === 'thread/status/changed' &&
      'params' in m &&
      JSON.stringify(m.params) ===
        JSON.stringify({
          threadId,
          status:
            flags === null
              ? { type: 'idle' }
              : { type: 'active', activeFlags: flags, weftStep: { type: 'command', command: 'touch x.txt' } },
        });
    const waiting = waitFor(observer.subscribe, statusOf(['waitingOnApproval']), {
      label: 'waiting, told the observer',
    });
    const asked = waitFor(client.subscribe, (m) => 'method' in m && 'id' in m, { label: 'approval request' });
    expect(
      (await client.call('turn/start', { threadId, input: [{ type: 'text', text: 'go' }] })).error,
    ).toBeUndefined();
    const request = (await asked) as { id: number };
    await waiting;
    const idle = waitFor(observer.subscribe, statusOf(null), { label: 'idle, told the observer' });
    const unreadTold = waitFor(observer.subscribe, (m) => 'method' in m && m.method === 'thread/readState/changed', {
      label: 'unread, told the observer',
    });
    client.connection.receive({ id: request.id, result: { decision: 'decline' } });
    await idle;

    // Statuses and read states only: the turn's items, and the approval itself, stay with the client that
    // watches. (The turn that ended is unread: its mark follows the idle status.)
    await unreadTold;
    const about = observer.received.filter((m) => 'params' in m && JSON.stringify(m.params).includes(threadId));
    expect(new Set(about.map((m) => ('method' in m ? m.method : 'reply')))).toEqual(
      new Set(['thread/started', 'thread/status/changed', 'thread/readState/changed']),
    );
    // The watching client hears each status once.
    const watched = client.notifications('thread/status/changed').filter((n) => n.params['threadId'] === threadId);
    const seenByObserver = observer
      .notifications('thread/status/changed')
      .filter((n) => n.params['threadId'] === threadId);
    expect(watched).toEqual(seenByObserver);
    connection.close();
  });
});

describe('idle threads', () => {
  it('unloads a thread nobody watches once it is idle, never while a turn runs, and resumes it again', async () => {
    const [busy = '', quiet = ''] = await savedThreads(2);
    server.enqueueMany([
      {
        kind: 'sse',
        events: [evCreated(), evFunctionCall('c1', 'exec_command', { cmd: 'touch x.txt' }), evCompleted()],
      },
      answer('done'),
    ]);
    app = await startInProcessHost({
      weftHome: home.dir,
      cwd: ws.dir,
      env: { WEFT_HOME: home.dir, MOCK_API_KEY: 'x' },
      unloadAfterMs: 0,
    });
    const { client } = app;
    const closed = (threadId: string) =>
      waitFor(
        client.subscribe,
        (m) => 'method' in m && m.method === 'thread/closed' && JSON.stringify(m).includes(threadId),
        {
          label: `thread/closed of ${threadId}`,
        },
      );
    const loadedIds = async () => ((await client.call('thread/loaded/list', {})).result as { data: string[] }).data;

    const resumed = await client.call('thread/resume', {
      threadId: busy,
      cwd: ws.dir,
      approvalPolicy: 'untrusted',
      sandbox: 'workspace-write',
    });
    expect(resumed.error).toBeUndefined();
    const asked = waitFor(client.subscribe, (m) => 'method' in m && 'id' in m, { label: 'approval request' });
    expect(
      (await client.call('turn/start', { threadId: busy, input: [{ type: 'text', text: 'go' }] })).error,
    ).toBeUndefined();
    const request = (await asked) as { id: number };
    expect((await client.call('thread/unsubscribe', { threadId: busy })).result).toEqual({ status: 'unsubscribed' });

    // Another thread left alone is unloaded at once (the grace is 0 here); the busy one stays.
    expect((await client.call('thread/resume', { threadId: quiet, cwd: ws.dir })).error).toBeUndefined();
    const quietClosed = closed(quiet);
    await client.call('thread/unsubscribe', { threadId: quiet });
    await quietClosed;
    expect(await loadedIds()).toEqual([busy]);

    const busyClosed = closed(busy);
    client.connection.receive({ id: request.id, result: { decision: 'decline' } });
    await busyClosed;
    expect(await loadedIds()).toEqual([]);

    const again = await client.call('thread/resume', { threadId: busy, cwd: ws.dir });
    expect(again.error).toBeUndefined();
    expect((again.result as { thread: { turns: { status: string }[] } }).thread.turns.map((t) => t.status)).toEqual([
      'completed',
      'completed',
    ]);
    expect(await loadedIds()).toEqual([busy]);
  });

  it('unloads threads nobody watches beyond the bound, stopping their MCP servers; a resume loads one again', async () => {
    // The host's default bound.
    const bound = 4;
    const ids = await savedThreads(8);
    await writeFile(
      join(home.dir, 'config.toml'),
      `${modelConfig()}[mcp_servers.probe]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(PROBE)}]\n`,
    );
    const client = await appServer();
    const pid = client.child.pid ?? 0;
    for (const threadId of ids) {
      const from = client.received.length;
      await client.request('thread/resume', { threadId, cwd: ws.dir });
      await client.notification(
        'mcpServer/startupStatus/updated',
        (p) => p['threadId'] === threadId && p['status'] === 'ready',
        from,
      );
      expect(await client.request('thread/unsubscribe', { threadId })).toEqual({ status: 'unsubscribed' });
    }
    // Those left longest go first; on a machine slow enough for the 5 minutes' grace to pass meanwhile,
    // the next ones follow in the same order.
    const evicted = ids.slice(0, ids.length - bound);
    await client.notification('thread/closed', (p) => p['threadId'] === evicted[evicted.length - 1]);
    const closed = client.notifications('thread/closed').map((p) => p['threadId']);
    expect(closed.slice(0, evicted.length)).toEqual(evicted);
    const loaded = await client.request<{ data: string[] }>('thread/loaded/list', {});
    const stillLoaded = ids.filter((id) => loaded.data.includes(id));
    expect(stillLoaded).toEqual(ids.slice(ids.length - stillLoaded.length));
    expect(stillLoaded.length).toBeLessThanOrEqual(bound);
    expect(childrenRunning(pid, PROBE).length).toBeLessThanOrEqual(bound);

    // The first thread was unloaded: a resume brings it (and its MCP server) back, and it runs a turn.
    const first = ids[0] ?? '';
    server.enqueue(answer('back again'));
    const from = client.received.length;
    await client.request('thread/resume', { threadId: first, cwd: ws.dir });
    await client.request('turn/start', { threadId: first, input: [{ type: 'text', text: 'still there?' }] });
    const done = await client.notification('turn/completed', (p) => p['threadId'] === first, from);
    expect(done['turn']).toMatchObject({ status: 'completed' });
    const status = await client.request<{ data: { name: string; startupStatus?: string }[] }>('mcpServerStatus/list', {
      threadId: first,
    });
    expect(status.data.map((s) => s.name)).toEqual(['probe']);
  });
});

/** libuv names its pool's threads from 1.50 on (the server runs on the same Node as the tests). */
const [uvMajor = 0, uvMinor = 0] = process.versions.uv.split('.').map(Number);
const poolNamed = process.platform === 'linux' && (uvMajor > 1 || (uvMajor === 1 && uvMinor >= 50));

describe.runIf(poolNamed)('the host’s threads', () => {
  it('runs the thread pool BACKGROUND_NICE below the main thread, which keeps its priority, from the first answer on', async () => {
    const client = await appServer();
    const pid = client.child.pid ?? 0;
    const threads = await Promise.all(
      (await readdir(`/proc/${pid}/task`)).map(async (tid) => {
        const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        return {
          tid: Number(tid),
          name: (await readFile(`/proc/${pid}/task/${tid}/comm`, 'utf8')).trim(),
          nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]),
        };
      }),
    );
    const main = threads.find((t) => t.tid === pid);
    const pool = threads.filter((t) => t.name === 'libuv-worker');
    expect(main?.nice).toBe(getPriority(process.pid));
    expect(pool.length).toBeGreaterThan(0);
    for (const t of pool) expect(t.nice).toBe(Math.min(19, (main?.nice ?? 0) + BACKGROUND_NICE));
    // And the pool still does the host's work: a turn runs and is saved.
    server.enqueue(answer('pool fine'));
    const started = await client.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    const threadId = started.thread.id;
    await client.request('turn/start', { threadId, input: [{ type: 'text', text: 'hi' }] });
    await client.waitFor((m) => m.method === 'turn/completed', 'turn/completed');
    const read = await client.request<{ thread: { turns: unknown[] } }>('thread/read', {
      threadId,
      includeTurns: true,
    });
    expect(JSON.stringify(read.thread.turns)).toContain('pool fine');
  });
});
