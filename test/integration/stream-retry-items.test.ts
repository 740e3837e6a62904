// A stream that drops midway is retried; what the failed attempts had streamed is not something the
// model said. Through the real `weft app-server`: two attempts cut after part of the answer, the third
// whole. The clients see one agent message, completed once with the final text, whose deltas add up to
// it; the rollout (read back by a new server) holds that one message and the last reasoning; the next
// request's history holds that message only.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evOutputTextDelta, evReasoning } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
const clients: StdioRpcClient[] = [];

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

async function connect(): Promise<StdioRpcClient> {
  const client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
  clients.push(client);
  await client.initialize();
  return client;
}

interface Item {
  type: string;
  id: string;
  text?: string;
  summary?: string[];
}

async function runTurn(client: StdioRpcClient, threadId: string, text: string): Promise<string> {
  const from = client.received.length;
  const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
    threadId,
    input: [{ type: 'text', text }],
  });
  const done = await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id, from);
  expect((done['turn'] as { status: string }).status).toBe('completed');
  return turn.id;
}

/** The assistant messages of a request's input, as text. */
function assistantTexts(body: unknown): string[] {
  const input = (body as { input: { type?: string; role?: string; content?: { text?: string }[] }[] }).input;
  return input
    .filter((i) => i.type === 'message' && i.role === 'assistant')
    .map((i) => (i.content ?? []).map((c) => c.text ?? '').join(''));
}

const FINAL = 'ACK: FAULT drop 2 and the rest of the answer';

it('keeps only what the last attempt said: live, in the rollout and in the history', async () => {
  server.enqueueMany([
    {
      kind: 'sse-cut',
      events: [evCreated(), evReasoning(['Looking']), evOutputTextDelta('ACK: FAULT '), evOutputTextDelta('drop 2 ')],
    },
    { kind: 'sse-cut', events: [evCreated(), evReasoning(['Looking']), evOutputTextDelta('ACK: FAULT drop 2 ')] },
    {
      kind: 'sse',
      events: [
        evCreated(),
        evReasoning(['Looking again']),
        evOutputTextDelta('ACK: FAULT drop 2 '),
        evOutputTextDelta('and the rest of the answer'),
        evAssistantMessage(FINAL),
        evCompleted(),
      ],
    },
    {
      kind: 'sse',
      events: [evCreated(), evOutputTextDelta('second'), evAssistantMessage('second'), evCompleted()],
    },
  ]);
  const client = await connect();
  const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
  const turnId = await runTurn(client, thread.id, 'go');

  const retries = client
    .notifications('error')
    .map((p) => [p['willRetry'], (p['error'] as { message: string }).message]);
  expect(retries).toEqual([
    [true, 'Reconnecting... 1/5'],
    [true, 'Reconnecting... 2/5'],
  ]);
  const ofTurn = (method: string): Item[] =>
    client
      .notifications(method)
      .filter((p) => p['turnId'] === turnId)
      .map((p) => p['item'] as Item);
  const started = ofTurn('item/started').filter((i) => i.type !== 'userMessage');
  const completed = ofTurn('item/completed').filter((i) => i.type !== 'userMessage');
  // One reasoning item and one message, each started once: the retries carried on the items the failed
  // attempts had started. The message, cut each time, completed once with the final text; the reasoning,
  // which each attempt finished, completed each time under the same id, the last time as finally said.
  const reasoningId = started[0]?.id;
  expect(started).toEqual([
    { type: 'reasoning', id: reasoningId, summary: [], content: [] },
    { type: 'agentMessage', id: expect.any(String), text: '', phase: null },
  ]);
  expect(completed).toEqual([
    { type: 'reasoning', id: reasoningId, summary: ['Looking'], content: [] },
    { type: 'reasoning', id: reasoningId, summary: ['Looking'], content: [] },
    { type: 'reasoning', id: reasoningId, summary: ['Looking again'], content: [] },
    { type: 'agentMessage', id: started[1]?.id, text: FINAL, phase: null },
  ]);
  const messageId = started[1]?.id;
  const deltas = client
    .notifications('item/agentMessage/delta')
    .filter((p) => p['itemId'] === messageId)
    .map((p) => p['delta'])
    .join('');
  expect(deltas).toBe(FINAL);

  await runTurn(client, thread.id, 'next');
  const requests = await server.waitForRequestCount(4);
  expect(assistantTexts(requests[3]?.body)).toEqual([FINAL]);
  // The retries sent the same request as the first attempt.
  expect(requests[1]?.body).toEqual(requests[0]?.body);
  expect(requests[2]?.body).toEqual(requests[0]?.body);

  // A new server reads the thread from its rollout.
  await client.close();
  clients.splice(0);
  const reader = await connect();
  const read = await reader.request<{ thread: { turns: { id: string; items: Item[] }[] } }>('thread/read', {
    threadId: thread.id,
    includeTurns: true,
  });
  const first = read.thread.turns[0];
  expect(first?.id).toBe(turnId);
  expect(first?.items.map((i) => [i.type, i.text ?? i.summary])).toEqual([
    ['userMessage', undefined],
    ['reasoning', ['Looking again']],
    ['agentMessage', FINAL],
  ]);
});
