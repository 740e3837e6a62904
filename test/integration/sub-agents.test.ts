// Sub-agents over the real `weft app-server`, the model scripted: the parent's model spawns a sub-agent
// (`multi_agent_v1.spawn_agent`), the child runs a turn of its own against the model, its answer comes back
// through `wait_agent`; the collab items and the child's Thread are on the wire as Codex 0.169 shows them
// (test/fixtures/codex-agents-0.169); a child's approval reaches the client that watches the parent;
// "accept for session" stays with the thread it was given in (as in Codex 0.169); interrupting the parent
// stops the child; the child's tokens count in the parent's total; `agents.max_threads`
// refuses one more with a clear error; the child stays a sub-agent after a restart.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerText, callOutputs, reply, scriptAgents, threadOf, userTexts } from '../support/agents-model';
import {
  createGate,
  startMockResponsesServer,
  type MockResponsesServer,
  type RecordedRequest,
} from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall, evNamespacedCall } from '../support/sse';
import { startInProcessHost } from '../support/in-process-host';
import { waitFor } from '../support/wait';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
const clients: StdioRpcClient[] = [];

const config = (extra = ''): string =>
  `model = "mock-model"\nmodel_provider = "mock"\n${extra}[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  home = await makeWeftHome(config());
});

afterEach(async () => {
  for (const client of clients.splice(0).reverse()) await client.close();
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

async function appServer(): Promise<StdioRpcClient> {
  for (const client of clients.splice(0).reverse()) await client.close();
  const client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
  clients.push(client);
  await client.initialize();
  return client;
}

type Json = Record<string, unknown>;
interface Item extends Json {
  type: string;
  id: string;
}

const fixtures = resolve(__dirname, '../fixtures/codex-agents-0.169');
/** The collab items Codex 0.169 sent for the spawn and the wait (test/fixtures/codex-agents-0.169). */
const codexItems = readFileSync(join(fixtures, 'spawn-wait.jsonl'), 'utf8')
  .trimEnd()
  .split('\n')
  .map((line) => JSON.parse(line) as Json)
  .filter((m) => m['method'] === 'item/completed')
  .map((m) => (m['params'] as { item: Item }).item)
  .filter((item) => item.type === 'collabAgentToolCall');
const codexChild = (JSON.parse(readFileSync(join(fixtures, 'child-thread.json'), 'utf8')) as { read: { thread: Json } })
  .read.thread;

/** Codex's script of every collab call (test/fixtures/codex-agents-0.169/calls.json). */
const codexCalls = JSON.parse(readFileSync(join(fixtures, 'calls.json'), 'utf8')) as {
  name: string;
  arguments: Json;
  output: string;
  item: Item;
}[];

const keysOf = (o: Json): string[] =>
  Object.keys(o)
    .filter((k) => !k.endsWith('AtMs'))
    .sort();

async function startParent(client: StdioRpcClient, params: Json = {}): Promise<string> {
  const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir, ...params });
  return thread.id;
}

async function turn(client: StdioRpcClient, threadId: string, text: string): Promise<{ id: string }> {
  const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
    threadId,
    input: [{ type: 'text', text }],
  });
  return turn;
}

function completedItems(client: StdioRpcClient, threadId: string, type: string): Item[] {
  return client
    .notifications('item/completed')
    .filter((p) => p['threadId'] === threadId)
    .map((p) => p['item'] as Item)
    .filter((i) => i.type === type);
}

function lastRequestOf(threadId: string): RecordedRequest {
  const last = server.requests.filter((r) => threadOf(r) === threadId).at(-1);
  if (last === undefined) throw new Error(`thread ${threadId} made no model request`);
  return last;
}

const spawnCall = (message: string) => () => ({
  calls: [{ id: 'call_spawn', name: 'spawn_agent', args: { message } }],
});
const waitCall =
  (id = 'call_wait') =>
  (ctx: { agents: string[] }) => ({
    calls: [{ id, name: 'wait_agent', args: { targets: ctx.agents, timeout_ms: 60_000 } }],
  });

describe('sub-agents over the app server', () => {
  it("spawns a child that runs its own turn, returns its answer through wait_agent, and counts the child's tokens in the parent's", async () => {
    const usage = { input_tokens: 100, output_tokens: 10 };
    const model = scriptAgents(server, {
      parent: [spawnCall('count the lines of notes.txt'), waitCall(), () => ({ answer: 'The child counted.' })],
      usage,
    });
    let client = await appServer();
    const parent = await startParent(client);
    const from = client.received.length;
    await turn(client, parent, 'delegate the counting');
    await client.notification('turn/completed', (p) => p['threadId'] === parent, from);
    expect(model.parentId()).toBe(parent);

    // The tools the parent's model was offered: the multi_agent_v1 namespace.
    const first = server.requests[0]?.body as { tools: Json[] };
    const namespace = first.tools.find((t) => t['name'] === 'multi_agent_v1') as { type: string; tools: Json[] };
    expect(namespace.type).toBe('namespace');
    expect(namespace.tools.map((t) => t['name'])).toEqual([
      'close_agent',
      'resume_agent',
      'send_input',
      'spawn_agent',
      'wait_agent',
    ]);

    // The child: announced with its parent, nickname and source; its own turn against the model.
    const started = client.notifications('thread/started').map((p) => p['thread'] as Json);
    const child = started.find((t) => t['parentThreadId'] === parent);
    if (child === undefined) throw new Error('no child thread was announced');
    const childId = String(child['id']);
    const nickname = String(child['agentNickname']);
    expect(nickname).toMatch(/^[A-Z][a-z]+$/);
    expect({
      source: child['source'],
      sessionId: child['sessionId'],
      parentThreadId: child['parentThreadId'],
      agentNickname: child['agentNickname'],
      agentRole: child['agentRole'],
      cwd: child['cwd'],
      ephemeral: child['ephemeral'],
    }).toEqual({
      source: {
        subAgent: {
          thread_spawn: {
            parent_thread_id: parent,
            depth: 1,
            agent_path: null,
            agent_nickname: nickname,
            agent_role: null,
          },
        },
      },
      sessionId: parent,
      parentThreadId: parent,
      agentNickname: nickname,
      agentRole: null,
      cwd: ws.dir,
      ephemeral: false,
    });
    // Codex's child Thread has the same fields, shaped the same.
    for (const key of ['source', 'parentThreadId', 'agentNickname', 'agentRole', 'sessionId'])
      expect(typeof child[key], key).toBe(typeof codexChild[key]);
    expect(Object.keys((child['source'] as { subAgent: { thread_spawn: Json } }).subAgent.thread_spawn).sort()).toEqual(
      Object.keys((codexChild['source'] as { subAgent: { thread_spawn: Json } }).subAgent.thread_spawn).sort(),
    );

    const childRequests = server.requests.filter((r) => threadOf(r) === childId);
    expect(childRequests).toHaveLength(1);
    const childRequest = childRequests[0];
    if (childRequest === undefined) throw new Error('the child made no request');
    // Its own context: its task, not the parent's conversation; no sub-agent tools of its own.
    expect(userTexts(childRequest).at(-1)).toBe('count the lines of notes.txt');
    expect(userTexts(childRequest).some((t) => t.includes('delegate the counting'))).toBe(false);
    expect((childRequest.body as { tools: Json[] }).tools.some((t) => t['name'] === 'multi_agent_v1')).toBe(false);
    const childDone = client.notifications('turn/completed').find((p) => p['threadId'] === childId);
    expect((childDone?.['turn'] as Json | undefined)?.['status']).toBe('completed');

    // What the parent's model got back.
    const outputs = callOutputs(lastRequestOf(parent));
    expect(outputs.map((o) => [o.name, JSON.parse(o.output) as unknown])).toEqual([
      ['spawn_agent', { agent_id: childId, nickname }],
      ['wait_agent', { status: { [childId]: { completed: 'ACK: count the lines of notes.txt' } }, timed_out: false }],
    ]);

    // The collab items, as Codex sends them.
    const items = completedItems(client, parent, 'collabAgentToolCall');
    expect(items.map((i) => ({ ...i, completedAtMs: undefined, startedAtMs: undefined }))).toEqual([
      {
        type: 'collabAgentToolCall',
        id: 'call_spawn',
        tool: 'spawnAgent',
        status: 'completed',
        senderThreadId: parent,
        receiverThreadIds: [childId],
        prompt: 'count the lines of notes.txt',
        model: 'mock-model',
        reasoningEffort: null,
        agentsStates: { [childId]: { status: 'pendingInit', message: null } },
        completedAtMs: undefined,
        startedAtMs: undefined,
      },
      {
        type: 'collabAgentToolCall',
        id: 'call_wait',
        tool: 'wait',
        status: 'completed',
        senderThreadId: parent,
        receiverThreadIds: [childId],
        prompt: null,
        model: null,
        reasoningEffort: null,
        agentsStates: { [childId]: { status: 'completed', message: 'ACK: count the lines of notes.txt' } },
        completedAtMs: undefined,
        startedAtMs: undefined,
      },
    ]);
    expect(items.map(keysOf)).toEqual(codexItems.map(keysOf));
    const startedSpawn = client
      .notifications('item/started')
      .map((p) => p['item'] as Item)
      .find((i) => i.id === 'call_spawn');
    expect(startedSpawn).toMatchObject({ status: 'inProgress', receiverThreadIds: [], agentsStates: {} });

    // The parent's total holds its three requests and the child's one.
    const totals = client
      .notifications('thread/tokenUsage/updated')
      .filter((p) => p['threadId'] === parent)
      .map((p) => (p['tokenUsage'] as { total: { totalTokens: number } }).total.totalTokens);
    expect(totals.at(-1)).toBe(4 * 110);
    const childTotals = client
      .notifications('thread/tokenUsage/updated')
      .filter((p) => p['threadId'] === childId)
      .map((p) => (p['tokenUsage'] as { total: { totalTokens: number } }).total.totalTokens);
    expect(childTotals).toEqual([110]);

    // After a restart the child is still the parent's sub-agent: read, listed, resumed, and its rollout.
    client = await appServer();
    const read = await client.request<{ thread: Json }>('thread/read', { threadId: childId, includeTurns: true });
    const pick = (t: Json) => ({
      parentThreadId: t['parentThreadId'],
      agentNickname: t['agentNickname'],
      source: t['source'],
      sessionId: t['sessionId'],
    });
    expect(pick(read.thread)).toEqual(pick(child));
    const listed = await client.request<{ data: Json[] }>('thread/list', { sourceKinds: ['subAgentThreadSpawn'] });
    expect(listed.data.map((t) => pick(t))).toEqual([pick(child)]);
    const resumed = await client.request<{ thread: Json }>('thread/resume', { threadId: childId });
    expect(pick(resumed.thread)).toEqual(pick(child));
    const parentRead = await client.request<{ thread: Json }>('thread/read', { threadId: parent, includeTurns: true });
    const turns = parentRead.thread['turns'] as { items: Item[] }[];
    expect(turns[0]?.items.filter((i) => i.type === 'collabAgentToolCall')).toEqual(
      items.map(({ startedAtMs: _s, completedAtMs: _c, ...rest }) => rest),
    );
    const meta = JSON.parse(readFileSync(String(read.thread['path']), 'utf8').split('\n')[0] ?? '{}') as {
      payload: Json;
    };
    expect({
      parent_thread_id: meta.payload['parent_thread_id'],
      agent_nickname: meta.payload['agent_nickname'],
      session_id: meta.payload['session_id'],
      source: meta.payload['source'],
    }).toEqual({
      parent_thread_id: parent,
      agent_nickname: nickname,
      session_id: parent,
      source: { subagent: (child['source'] as { subAgent: unknown }).subAgent },
    });
  });

  it("asks the client that watches the parent for the child's approvals, labelled with the child", async () => {
    const model = scriptAgents(server, {
      parent: [spawnCall('make child.txt'), waitCall(), () => ({ answer: 'done' })],
      child: (task, request) =>
        callOutputs(request).length > 0
          ? answerText('made it')
          : reply([evFunctionCall('call_touch', 'exec_command', { cmd: `touch ${task.split(' ')[1] ?? ''}` })]),
    });
    const client = await appServer();
    const asked: Json[] = [];
    client.onServerRequest = (method, params) => {
      if (method !== 'item/commandExecution/requestApproval') return undefined;
      asked.push(params);
      return { decision: 'accept' };
    };
    const parent = await startParent(client, { approvalPolicy: 'untrusted', sandbox: 'workspace-write' });
    const from = client.received.length;
    await turn(client, parent, 'delegate');
    await client.notification('turn/completed', (p) => p['threadId'] === parent, from);
    const child = client
      .notifications('thread/started')
      .map((p) => p['thread'] as Json)
      .find((t) => t['parentThreadId'] === parent);
    expect(model.parentId()).toBe(parent);
    expect(asked).toHaveLength(1);
    // The request names the child's thread (as Codex's does), which the client knows as the parent's sub-agent.
    expect(asked[0]?.['threadId']).toBe(child?.['id']);
    expect(asked[0]?.['command']).toContain('touch child.txt');
    expect(existsSync(ws.path('child.txt'))).toBe(true);
    const waited = completedItems(client, parent, 'collabAgentToolCall').find((i) => i['tool'] === 'wait');
    expect(waited?.['agentsStates']).toEqual({ [String(child?.['id'])]: { status: 'completed', message: 'made it' } });
    // The approval was resolved for the client, under the child's thread.
    expect(client.notifications('serverRequest/resolved').map((p) => p['threadId'])).toEqual([child?.['id']]);
  });

  it('keeps "accept for session" to the thread it was given in, parent or child, as Codex 0.169 does', async () => {
    const touch = (id: string, file: string) => reply([evFunctionCall(id, 'exec_command', { cmd: `touch ${file}` })]);
    const call = (id: string, name: string, args: object) =>
      reply([evNamespacedCall(id, 'multi_agent_v1', name, args)]);
    let first = '';
    // The parent: touch a.txt, spawn, wait, touch a.txt and b.txt, answer; the child: touch a.txt, touch b.txt
    // twice, answer. Each thread is asked once for what it allowed for its session, the other asked anew.
    const answer = (request: RecordedRequest) => {
      if (first === '') first = threadOf(request);
      const outputs = callOutputs(request);
      if (threadOf(request) !== first) {
        const steps = [touch('call_c1', 'a.txt'), touch('call_c2', 'b.txt'), touch('call_c3', 'b.txt')];
        return steps[outputs.length] ?? answerText('made them');
      }
      const agent = String((JSON.parse(outputs[1]?.output ?? '{}') as Json)['agent_id']);
      const steps = [
        touch('call_p1', 'a.txt'),
        call('call_spawn', 'spawn_agent', { message: 'touch the files' }),
        call('call_wait', 'wait_agent', { targets: [agent], timeout_ms: 60_000 }),
        touch('call_p2', 'a.txt'),
        touch('call_p3', 'b.txt'),
      ];
      return steps[outputs.length] ?? answerText('done');
    };
    for (let i = 0; i < 12; i++) server.enqueue(answer);
    const client = await appServer();
    const asked: string[] = [];
    let parent = '';
    client.onServerRequest = (method, params) => {
      if (method !== 'item/commandExecution/requestApproval') return undefined;
      const who = params['threadId'] === parent ? 'parent' : 'child';
      const command = String(params['command']);
      asked.push(`${who}: ${command}`);
      // The parent allows a.txt for its session, the child b.txt for its own.
      const forSession =
        (who === 'parent' && command.includes('a.txt')) || (who === 'child' && command.includes('b.txt'));
      return { decision: forSession ? 'acceptForSession' : 'accept' };
    };
    parent = await startParent(client, { approvalPolicy: 'untrusted', sandbox: 'workspace-write' });
    const from = client.received.length;
    await turn(client, parent, 'delegate');
    await client.notification('turn/completed', (p) => p['threadId'] === parent, from);
    expect(asked).toEqual(['parent: touch a.txt', 'child: touch a.txt', 'child: touch b.txt', 'parent: touch b.txt']);
  });

  it('stops the child when the parent is interrupted', async () => {
    scriptAgents(server, {
      parent: [spawnCall('think for a long time'), waitCall()],
      // The child's model never finishes: it streams one event and holds the connection.
      child: () => ({ kind: 'sse-hang', events: [evCreated('resp_child')] }),
    });
    const client = await appServer();
    const parent = await startParent(client);
    const from = client.received.length;
    const parentTurn = await turn(client, parent, 'delegate and wait');
    const waiting = await client.notification(
      'item/started',
      (p) => p['threadId'] === parent && (p['item'] as Item)['tool'] === 'wait',
      from,
    );
    const childId = ((waiting['item'] as Json)['receiverThreadIds'] as string[])[0] ?? '';
    await client.notification('turn/started', (p) => p['threadId'] === childId, from);
    await client.request('turn/interrupt', { threadId: parent, turnId: parentTurn.id });
    const parentDone = await client.notification('turn/completed', (p) => p['threadId'] === parent, from);
    const childDone = await client.notification('turn/completed', (p) => p['threadId'] === childId, from);
    expect((parentDone['turn'] as Json)['status']).toBe('interrupted');
    expect((childDone['turn'] as Json)['status']).toBe('interrupted');
    const waited = await client.notification(
      'item/completed',
      (p) => p['threadId'] === parent && (p['item'] as Item)['tool'] === 'wait',
      from,
    );
    expect((waited['item'] as Json)['status']).toBe('interrupted');
    // Nothing of the child runs any more.
    const status = await client.notification(
      'thread/status/changed',
      (p) => p['threadId'] === childId && (p['status'] as Json)['type'] === 'idle',
      from,
    );
    expect(status['status']).toEqual({ type: 'idle' });
  });

  it("answers Codex's script of sub-agent calls (send, wait, close, resume, a limit, unknown ids) as Codex does", async () => {
    await home.cleanup();
    home = await makeWeftHome(config('[agents]\nmax_threads = 1\n'));
    const [first, ...rest] = codexCalls;
    if (first === undefined) throw new Error('no calls in the fixture');
    const codexAgent = String(first.item['receiverThreadIds'] && (first.item['receiverThreadIds'] as string[])[0]);
    // Codex's own calls, with its sub-agent's id replaced by this one's.
    const args = (call: Json, agent: string): Json =>
      JSON.parse(JSON.stringify(call).split(codexAgent).join(agent)) as Json;
    scriptAgents(server, {
      parent: [
        () => ({ calls: [{ id: 'call_0', name: first.name, args: first.arguments }] }),
        ...rest.map((call, i) => (ctx: { agents: string[] }) => ({
          calls: [{ id: `call_${i + 1}`, name: call.name, args: args(call.arguments, ctx.agents[0] ?? '') }],
        })),
        () => ({ answer: 'done' }),
      ],
    });
    const client = await appServer();
    const parent = await startParent(client);
    const from = client.received.length;
    await turn(client, parent, 'DELEGATE first child');
    await client.notification('turn/completed', (p) => p['threadId'] === parent, from);
    const outputs = callOutputs(lastRequestOf(parent));
    const agent = (JSON.parse(outputs[0]?.output ?? '{}') as { agent_id: string }).agent_id;
    // Ids, nicknames and Weft's longer limit message aside, the outputs and items are Codex's.
    const same = (text: string, id: string): string =>
      text
        .split(id)
        .join('<agent>')
        .replace(/"nickname":"[^"]+"/, '"nickname":"<nick>"')
        .replace(/"submission_id":"[^"]+"/, '"submission_id":"<id>"')
        .replace(/^(collab spawn failed: agent thread limit reached).*$/, '$1');
    expect(outputs.map((o) => same(o.output, agent))).toEqual(codexCalls.map((c) => same(c.output, codexAgent)));
    const items = completedItems(client, parent, 'collabAgentToolCall');
    // A send_input shows the state the sub-agent had when the input came: whether its turn had ended by
    // then is a matter of timing, in Codex as in Weft.
    const before = (item: Json): unknown =>
      item['tool'] !== 'sendInput'
        ? item['agentsStates']
        : Object.fromEntries(
            Object.entries(item['agentsStates'] as Record<string, { status: string }>).map(([k, s]) => [
              k,
              ['pendingInit', 'running', 'completed'].includes(s.status) ? 'the state before the input' : s,
            ]),
          );
    const shape = (item: Json, id: string): unknown =>
      JSON.parse(
        same(
          JSON.stringify({
            tool: item['tool'],
            status: item['status'],
            receiverThreadIds: item['receiverThreadIds'],
            prompt: item['prompt'],
            agentsStates: before(item),
          }),
          id,
        ),
      );
    expect(items.map((i) => shape(i, agent))).toEqual(codexCalls.map((c) => shape(c.item, codexAgent)));
  });

  it('refuses a spawn over agents.max_threads with an error the model can act on', async () => {
    await home.cleanup();
    home = await makeWeftHome(config('[agents]\nmax_threads = 1\n'));
    scriptAgents(server, {
      parent: [
        spawnCall('first task'),
        () => ({ calls: [{ id: 'call_second', name: 'spawn_agent', args: { message: 'second task' } }] }),
        waitCall(),
        (ctx) => ({ calls: [{ id: 'call_close', name: 'close_agent', args: { target: ctx.agents[0] } }] }),
        () => ({ calls: [{ id: 'call_third', name: 'spawn_agent', args: { message: 'third task' } }] }),
        () => ({ answer: 'done' }),
      ],
    });
    const client = await appServer();
    const parent = await startParent(client);
    const from = client.received.length;
    await turn(client, parent, 'delegate twice');
    await client.notification('turn/completed', (p) => p['threadId'] === parent, from);
    const outputs = callOutputs(lastRequestOf(parent));
    expect(outputs.map((o) => o.name)).toEqual([
      'spawn_agent',
      'spawn_agent',
      'wait_agent',
      'close_agent',
      'spawn_agent',
    ]);
    expect(outputs[1]?.output).toBe(
      'collab spawn failed: agent thread limit reached: 1 sub-agent is open and agents.max_threads is 1; ' +
        'close one with close_agent (its thread is kept) before spawning another',
    );
    expect(JSON.parse(outputs[3]?.output ?? '')).toEqual({ previous_status: { completed: 'ACK: first task' } });
    expect(JSON.parse(outputs[4]?.output ?? '')).toMatchObject({ agent_id: expect.any(String) });
    const spawns = completedItems(client, parent, 'collabAgentToolCall').filter((i) => i['tool'] === 'spawnAgent');
    expect(spawns.map((i) => i['status'])).toEqual(['completed', 'failed', 'completed']);
    expect(spawns[1]).toMatchObject({ receiverThreadIds: [], agentsStates: {}, prompt: 'second task' });
  });

  it("offers a child the sub-agent tools only within [agents] max_depth (Codex's default 1), and a grandchild runs as a child's child", async () => {
    const offersAgents = (request: RecordedRequest): boolean =>
      ((request.body as { tools?: Json[] }).tools ?? []).some((t) => t['name'] === 'multi_agent_v1');
    const delegate = {
      parent: [spawnCall('LEVEL1 work'), waitCall(), () => ({ answer: 'done' })],
      // A child that is offered the tools delegates on, then answers with what its own child said.
      child: (task: string, request: RecordedRequest) => {
        const outputs = callOutputs(request);
        if (!offersAgents(request)) return answerText(`ACK: ${task}`);
        if (outputs.length === 2) return answerText(`ACK: LEVEL1 work ${outputs[1]?.output ?? ''}`);
        if (outputs.length === 0)
          return reply([evNamespacedCall('call_grand', 'multi_agent_v1', 'spawn_agent', { message: 'LEVEL2 work' })]);
        const agent = String((JSON.parse(outputs[0]?.output ?? '{}') as Json)['agent_id']);
        return reply([
          evNamespacedCall('call_grand_wait', 'multi_agent_v1', 'wait_agent', { targets: [agent], timeout_ms: 60_000 }),
        ]);
      },
    };
    // The default: the child is offered no sub-agent tools.
    scriptAgents(server, delegate);
    let client = await appServer();
    let parent = await startParent(client);
    let from = client.received.length;
    await turn(client, parent, 'delegate');
    await client.notification('turn/completed', (p) => p['threadId'] === parent, from);
    let children = client.notifications('thread/started').map((p) => p['thread'] as Json);
    expect(children.filter((t) => t['parentThreadId'] !== undefined && t['parentThreadId'] !== null)).toHaveLength(1);
    const child = String(children.find((t) => t['parentThreadId'] === parent)?.['id']);
    expect(server.requests.filter((r) => threadOf(r) === child).map(offersAgents)).toEqual([false]);

    // max_depth = 2: the child spawns a grandchild (depth 2), which is offered none.
    for (const c of clients.splice(0)) await c.close();
    await server.close();
    server = await startMockResponsesServer();
    await home.cleanup();
    home = await makeWeftHome(config('[agents]\nmax_depth = 2\n'));
    scriptAgents(server, delegate);
    client = await appServer();
    parent = await startParent(client);
    from = client.received.length;
    await turn(client, parent, 'delegate');
    await client.notification('turn/completed', (p) => p['threadId'] === parent, from);
    children = client.notifications('thread/started').map((p) => p['thread'] as Json);
    const first = children.find((t) => t['parentThreadId'] === parent);
    const grand = children.find((t) => first !== undefined && t['parentThreadId'] === first['id']);
    if (first === undefined || grand === undefined) throw new Error('no child and grandchild were announced');
    expect(grand['source']).toEqual({
      subAgent: {
        thread_spawn: {
          parent_thread_id: first['id'],
          depth: 2,
          agent_path: null,
          agent_nickname: grand['agentNickname'],
          agent_role: null,
        },
      },
    });
    expect(grand['sessionId']).toBe(parent);
    expect(server.requests.filter((r) => threadOf(r) === first['id']).map(offersAgents)).toEqual([true, true, true]);
    expect(server.requests.filter((r) => threadOf(r) === grand['id']).map(offersAgents)).toEqual([false]);
    // The grandchild's answer reached the child through its wait, and the child's the parent.
    const waited = completedItems(client, parent, 'collabAgentToolCall').find((i) => i['tool'] === 'wait');
    expect(waited?.['agentsStates']).toEqual({
      [String(first['id'])]: {
        status: 'completed',
        message: `ACK: LEVEL1 work ${JSON.stringify({ status: { [String(grand['id'])]: { completed: 'ACK: LEVEL2 work' } }, timed_out: false })}`,
      },
    });
  });

  it('keeps a thread loaded while a sub-agent it holds runs, though nobody watches either', async () => {
    const gate = createGate();
    scriptAgents(server, {
      parent: [spawnCall('take your time'), () => ({ answer: 'I will not wait.' })],
      // The child answers once the test lets it.
      child: () => ({
        kind: 'sse-slow',
        events: [
          evCreated('resp_child'),
          gate,
          evAssistantMessage('took my time', 'msg_child'),
          evCompleted('resp_child'),
        ],
      }),
    });
    const app = await startInProcessHost({
      weftHome: home.dir,
      cwd: ws.dir,
      env: { WEFT_HOME: home.dir, MOCK_API_KEY: 'x' },
      unloadAfterMs: 0,
    });
    try {
      const { client } = app;
      const threadOfMessage = (m: object): unknown =>
        'params' in m && typeof m.params === 'object' && m.params !== null && 'threadId' in m.params
          ? m.params.threadId
          : undefined;
      const next = (method: string, threadId: () => string, label: string) =>
        waitFor(client.subscribe, (m) => 'method' in m && m.method === method && threadOfMessage(m) === threadId(), {
          label,
        });
      const started = await client.call('thread/start', { cwd: ws.dir });
      const parent = (started.result as { thread: { id: string } }).thread.id;
      let child = '';
      const childStarted = waitFor(
        client.subscribe,
        (m) =>
          'method' in m && m.method === 'thread/started' && JSON.stringify(m).includes(`"parentThreadId":"${parent}"`),
        { label: 'the child' },
      );
      const parentDone = next('turn/completed', () => parent, "the parent's turn");
      await client.call('turn/start', { threadId: parent, input: [{ type: 'text', text: 'spawn and go' }] });
      child = ((await childStarted) as { params: { thread: { id: string } } }).params.thread.id;
      await parentDone;
      const parentClosed = next('thread/closed', () => parent, 'the parent closed');

      // Let go of the parent; a quiet thread let go after it is unloaded, the parent (its child runs) is not.
      await client.call('thread/unsubscribe', { threadId: parent });
      const quiet = (await client.call('thread/start', { cwd: ws.dir })).result as { thread: { id: string } };
      const quietClosed = next('thread/closed', () => quiet.thread.id, 'the quiet thread closed');
      await client.call('thread/unsubscribe', { threadId: quiet.thread.id });
      await quietClosed;
      const loaded = (await client.call('thread/loaded/list', {})).result as { data: string[] };
      expect(loaded.data.sort()).toEqual([parent, child].sort());

      // The child finishes its turn (not interrupted); then the parent, idle and unwatched, goes.
      gate.release();
      await parentClosed;
      const read = await client.call('thread/read', { threadId: child, includeTurns: true });
      expect((read.result as { thread: { turns: { status: string }[] } }).thread.turns.map((t) => t.status)).toEqual([
        'completed',
      ]);
    } finally {
      await app.close();
    }
  });
});
