import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { StdioRpcClient, WsRpcClient, startWeftServe, type RpcClient } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall, evOutputTextDelta } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'one\ntwo\nthree\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

const env = (): Record<string, string> => ({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' });
const answer = (text: string) => ({
  kind: 'sse' as const,
  events: [
    evCreated(),
    evOutputTextDelta(text.slice(0, 4)),
    evOutputTextDelta(text.slice(4)),
    evAssistantMessage(text),
    evCompleted(),
  ],
});
const calls = (...c: ReturnType<typeof evFunctionCall>[]) => ({
  kind: 'sse' as const,
  events: [evCreated(), ...c, evCompleted()],
});

type Transport = 'stdio' | 'websocket';

async function connect(transport: Transport): Promise<RpcClient> {
  if (transport === 'stdio') {
    const client = StdioRpcClient.start(env(), ws.dir);
    cleanups.push(() => client.close());
    return client;
  }
  const served = await startWeftServe(env(), ws.dir);
  cleanups.push(() => served.stop());
  const client = await WsRpcClient.connect(served.wsUrl);
  cleanups.push(() => client.close());
  return client;
}

async function startThread(client: RpcClient, params: Record<string, unknown> = {}): Promise<string> {
  const result = await client.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir, ...params });
  return result.thread.id;
}

async function runTurn(
  client: RpcClient,
  threadId: string,
  text: string,
): Promise<{ turn: { id: string; status: string; error: unknown } }> {
  const from = client.received.length;
  const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
    threadId,
    input: [{ type: 'text', text }],
  });
  const done = await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id, from);
  return done as { turn: { id: string; status: string; error: unknown } };
}

describe.each<Transport>(['stdio', 'websocket'])('app server over %s', (transport) => {
  it('enforces the handshake and answers bad input with clear errors', async () => {
    const client = await connect(transport);
    expect((await client.call('thread/list', {})).error).toEqual({ code: -32600, message: 'Not initialized' });
    await client.initialize();
    expect((await client.call('initialize', { clientInfo: { name: 'x', version: '1' } })).error?.message).toBe(
      'Already initialized',
    );
    expect((await client.call('no/such/method', {})).error).toEqual({
      code: -32601,
      message: 'Method not found: no/such/method',
    });
    const bad = await client.call('turn/start', { threadId: 42, input: [] });
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.message).toMatch(/params\.threadId/);
    const from = client.received.length;
    client.sendRaw('this is not json\n');
    expect((await client.waitFor((m) => m.error !== undefined, 'parse error', from)).error?.code).toBe(-32700);
    if (transport === 'stdio') {
      const big = `{"id":"big","method":"thread/list","params":{"x":"${'a'.repeat(11 * 1024 * 1024)}"}}\n`;
      const at = client.received.length;
      client.sendRaw(big);
      const rejected = await client.waitFor((m) => m.error !== undefined, 'too large', at);
      expect(rejected.error?.message).toMatch(/too large/);
    }
    // The server is still fine.
    expect(await client.request('thread/list', {})).toMatchObject({ data: [] });
  });

  it('runs a full turn with deltas that add up to the final text', async () => {
    server.enqueue(answer('Hello from the mock model'));
    const client = await connect(transport);
    await client.initialize();
    const threadId = await startThread(client);
    const done = await runTurn(client, threadId, 'hi');
    expect(done.turn.status).toBe('completed');
    const deltas = client
      .notifications('item/agentMessage/delta')
      .map((p) => p['delta'])
      .join('');
    const completed = client.notifications('item/completed').map((p) => p['item'] as { type: string; text?: string });
    expect(completed.map((i) => i.type)).toEqual(['userMessage', 'agentMessage']);
    expect(deltas).toBe('Hello from the mock model');
    expect(completed[1]?.text).toBe(deltas);
    const list = await client.request<{ data: { id: string; preview: string }[] }>('thread/list', { cwd: ws.dir });
    expect(list.data).toEqual([expect.objectContaining({ id: threadId, preview: 'hi' })]);
  });

  it('asks for command approval: accept, acceptForSession, decline and cancel', async () => {
    server.enqueueMany([
      calls(evFunctionCall('a', 'exec_command', { cmd: 'touch accepted.txt' })),
      calls(evFunctionCall('b', 'exec_command', { cmd: 'touch session.txt' })),
      calls(evFunctionCall('c', 'exec_command', { cmd: 'touch session.txt' })),
      calls(evFunctionCall('d', 'exec_command', { cmd: 'touch declined.txt' })),
      answer('done'),
      calls(evFunctionCall('e', 'exec_command', { cmd: 'touch cancelled.txt' })),
    ]);
    const client = await connect(transport);
    await client.initialize();
    const decisions = ['accept', 'acceptForSession', 'decline', 'cancel'];
    const order: string[] = [];
    client.onServerRequest = (method) => {
      order.push(method);
      return { decision: decisions.shift() };
    };
    const threadId = await startThread(client, { approvalPolicy: 'untrusted', sandbox: 'workspace-write' });
    const first = await runTurn(client, threadId, 'go');
    expect(first.turn.status).toBe('completed');
    expect(order).toEqual([
      'item/commandExecution/requestApproval',
      'item/commandExecution/requestApproval',
      'item/commandExecution/requestApproval',
    ]);
    expect(existsSync(ws.path('accepted.txt'))).toBe(true);
    expect(existsSync(ws.path('session.txt'))).toBe(true);
    expect(existsSync(ws.path('declined.txt'))).toBe(false);
    const outputs = assertAllToolOutputsAnswered(server.requests[4]?.body).map((o) => String(o.output));
    expect(outputs[3]).toBe('exec command rejected by user');
    // Each request is resolved for every client, and the item completes after it.
    const resolved = client.notifications('serverRequest/resolved');
    expect(resolved).toHaveLength(3);
    const second = await runTurn(client, threadId, 'again');
    expect(second.turn.status).toBe('interrupted');
    expect(existsSync(ws.path('cancelled.txt'))).toBe(false);
  });

  it('asks for patch approval: accept writes, decline does not', async () => {
    const patch = (name: string) => `*** Begin Patch\n*** Add File: ${name}\n+content\n*** End Patch`;
    server.enqueueMany([
      calls(evFunctionCall('p1', 'apply_patch', { input: patch('yes.txt') })),
      calls(evFunctionCall('p2', 'apply_patch', { input: patch('no.txt') })),
      answer('ok'),
    ]);
    const client = await connect(transport);
    await client.initialize();
    const decisions = ['accept', 'decline'];
    client.onServerRequest = (method) =>
      method === 'item/fileChange/requestApproval' ? { decision: decisions.shift() } : undefined;
    const threadId = await startThread(client, { approvalPolicy: 'untrusted' });
    await runTurn(client, threadId, 'patch');
    expect(await ws.read('yes.txt')).toBe('content\n');
    expect(existsSync(ws.path('no.txt'))).toBe(false);
    const statuses = client
      .notifications('item/completed')
      .map((p) => p['item'] as { type: string; status?: string })
      .filter((i) => i.type === 'fileChange')
      .map((i) => i.status);
    expect(statuses).toEqual(['completed', 'declined']);
  });

  it('relays user-input questions and interrupts a running command', async () => {
    server.enqueueMany([
      calls(
        evFunctionCall('q', 'request_user_input', {
          questions: [
            {
              id: 'color',
              header: 'Color',
              question: 'Which colour?',
              options: [
                { label: 'Red', description: '' },
                { label: 'Blue', description: '' },
              ],
            },
          ],
        }),
      ),
      answer('noted'),
      calls(evFunctionCall('s', 'exec_command', { cmd: 'echo started; sleep 60', yield_time_ms: 30000 })),
    ]);
    const client = await connect(transport);
    await client.initialize();
    client.onServerRequest = (method) =>
      method === 'item/tool/requestUserInput' ? { answers: { color: { answers: ['Blue'] } } } : undefined;
    const threadId = await startThread(client, { approvalPolicy: 'never', sandbox: 'danger-full-access' });
    await runTurn(client, threadId, 'ask me');
    expect(assertAllToolOutputsAnswered(server.requests[1]?.body)[0]?.output).toBe(
      '{"answers":{"color":{"answers":["Blue"]}}}',
    );

    const from = client.received.length;
    const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
      threadId,
      input: [{ type: 'text', text: 'sleep' }],
    });
    await client.notification('item/commandExecution/outputDelta', (p) => String(p['delta']).includes('started'), from);
    await client.request('turn/interrupt', { threadId, turnId: turn.id });
    const done = await client.notification('turn/completed', () => true, from);
    expect((done['turn'] as { status: string }).status).toBe('interrupted');
  });

  it('forks at a turn, rolls back, renames, archives and lists', async () => {
    server.enqueueMany([answer('first answer'), answer('second answer')]);
    const client = await connect(transport);
    await client.initialize();
    const threadId = await startThread(client);
    const t1 = await runTurn(client, threadId, 'first question');
    await runTurn(client, threadId, 'second question');

    const fork = await client.request<{ thread: { id: string; forkedFromId: string; turns: { id: string }[] } }>(
      'thread/fork',
      { threadId, weftTurnId: t1.turn.id },
    );
    expect(fork.thread.forkedFromId).toBe(threadId);
    expect(fork.thread.turns).toHaveLength(1);

    const rolled = await client.request<{ thread: { turns: unknown[] } }>('thread/rollback', { threadId, numTurns: 1 });
    expect(rolled.thread.turns).toHaveLength(1);
    await client.request('thread/name/set', { threadId, name: 'Renamed thread' });
    await client.notification('thread/name/updated', (p) => p['name'] === 'Renamed thread');

    await client.request('thread/archive', { threadId });
    const active = await client.request<{ data: { id: string }[] }>('thread/list', { cwd: ws.dir });
    expect(active.data.map((t) => t.id)).not.toContain(threadId);
    const archived = await client.request<{ data: { id: string; name: string | null }[] }>('thread/list', {
      cwd: ws.dir,
      archived: true,
    });
    expect(archived.data).toEqual([expect.objectContaining({ id: threadId, name: 'Renamed thread' })]);
    const found = await client.request<{ data: { id: string }[] }>('thread/list', { searchTerm: 'second' });
    expect(found.data.map((t) => t.id)).toEqual([]);
    const unarchived = await client.request<{ thread: { id: string } }>('thread/unarchive', { threadId });
    expect(unarchived.thread.id).toBe(threadId);
  });
});

describe('app server: lasting threads and many clients', () => {
  it('resumes a thread after the server restarts and continues its history', async () => {
    server.enqueueMany([answer('remembered'), answer('continued')]);
    const first = StdioRpcClient.start(env(), ws.dir);
    await first.initialize();
    const threadId = await startThread(first);
    await runTurn(first, threadId, 'remember the number 42');
    await first.close();

    const second = StdioRpcClient.start(env(), ws.dir);
    cleanups.push(() => second.close());
    await second.initialize();
    const resumed = await second.request<{ thread: { id: string; turns: { items: { type: string }[] }[] } }>(
      'thread/resume',
      { threadId },
    );
    expect(resumed.thread.id).toBe(threadId);
    expect(resumed.thread.turns).toHaveLength(1);
    expect(resumed.thread.turns[0]?.items.map((i) => i.type)).toEqual(['userMessage', 'agentMessage']);
    await runTurn(second, threadId, 'what was it?');
    const input = (server.requests[1]?.body as { input: { role?: string; content?: { text?: string }[] }[] }).input;
    const texts = input.map((i) => i.content?.[0]?.text);
    expect(texts).toContain('remember the number 42');
    expect(texts).toContain('remembered');
    expect(texts.at(-1)).toBe('what was it?');
  });

  it('resumes a long thread on its newest 100 turns and pages the older ones with thread/turns/list', async () => {
    const TURNS = 104;
    server.enqueueMany(Array.from({ length: TURNS }, (_, i) => answer(`answer ${i}`)));
    const first = StdioRpcClient.start(env(), ws.dir);
    await first.initialize();
    const threadId = await startThread(first);
    for (let i = 0; i < TURNS; i++) await runTurn(first, threadId, `question ${i}`);
    await first.close();

    const second = StdioRpcClient.start(env(), ws.dir);
    cleanups.push(() => second.close());
    await second.initialize();
    type TurnShape = { id: string; items: { type: string; content?: { text?: string }[] }[] };
    const question = (turn: TurnShape | undefined): string | undefined =>
      turn?.items.find((i) => i.type === 'userMessage')?.content?.[0]?.text;
    const resumed = await second.request<{ thread: { turns: TurnShape[] }; weftOlderTurnsCursor: string | null }>(
      'thread/resume',
      { threadId },
    );
    expect(resumed.thread.turns).toHaveLength(100);
    expect(question(resumed.thread.turns[0])).toBe('question 4');
    expect(question(resumed.thread.turns.at(-1))).toBe(`question ${TURNS - 1}`);
    expect(resumed.weftOlderTurnsCursor).toEqual(expect.any(String));

    const older = await second.request<{ data: TurnShape[]; nextCursor: string | null }>('thread/turns/list', {
      threadId,
      cursor: resumed.weftOlderTurnsCursor,
      limit: 3,
    });
    expect(older.data.map(question)).toEqual(['question 1', 'question 2', 'question 3']);
    const oldest = await second.request<{ data: TurnShape[]; nextCursor: string | null }>('thread/turns/list', {
      threadId,
      cursor: older.nextCursor,
      limit: 3,
    });
    expect(oldest.data.map(question)).toEqual(['question 0']);
    expect(oldest.nextCursor).toBeNull();

    // Resumed again while loaded (a window reloading): the same page and cursor. A new thread has none.
    const again = await second.request<{ thread: { turns: TurnShape[] }; weftOlderTurnsCursor: string | null }>(
      'thread/resume',
      { threadId },
    );
    expect(again.thread.turns.map((t) => t.id)).toEqual(resumed.thread.turns.map((t) => t.id));
    expect(again.weftOlderTurnsCursor).toBe(resumed.weftOlderTurnsCursor);
    const short = await second.request<{ weftOlderTurnsCursor?: string | null }>('thread/start', { cwd: ws.dir });
    expect(short.weftOlderTurnsCursor ?? null).toBeNull();
  });

  it('lets two clients watch one thread; an approval left by one is answered by the other', async () => {
    server.enqueueMany([calls(evFunctionCall('a', 'exec_command', { cmd: 'touch shared.txt' })), answer('done')]);
    const served = await startWeftServe(env(), ws.dir);
    cleanups.push(() => served.stop());
    const alice = await WsRpcClient.connect(served.wsUrl);
    const bob = await WsRpcClient.connect(served.wsUrl);
    cleanups.push(() => bob.close());
    await alice.initialize();
    await bob.initialize();
    const threadId = await startThread(alice, { approvalPolicy: 'untrusted' });
    await bob.request('thread/resume', { threadId });
    await alice.request('turn/start', { threadId, input: [{ type: 'text', text: 'touch it' }] });
    await alice.serverRequest('item/commandExecution/requestApproval');
    const request = await bob.serverRequest('item/commandExecution/requestApproval');
    await alice.close();
    bob.send({ id: request.id, result: { decision: 'accept' } });
    await bob.notification('turn/completed');
    expect(existsSync(ws.path('shared.txt'))).toBe(true);
    expect(bob.notifications('serverRequest/resolved')).toHaveLength(1);
  });
});
