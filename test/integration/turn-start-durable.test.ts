// Once `turn/start` is answered, the user's message is on disk: a server killed (SIGKILL) right after the
// answer, while the model has not said anything yet, still has the turn and its message when it starts
// again, for clients (`thread/read`) and for the model (the next turn's request).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evOutputTextDelta } from '../support/sse';
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
  for (const c of clients.splice(0)) {
    if (c.child.exitCode === null && c.child.signalCode === null) await c.close();
  }
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

interface ReadTurn {
  id: string;
  items: { type: string; content?: { type: string; text?: string }[] }[];
}

const KILLS = 3;

it('keeps the user message of a turn whose server was killed right after answering turn/start', async () => {
  const started: { threadId: string; turnId: string; text: string }[] = [];
  for (let i = 0; i < KILLS; i++) {
    // Nothing is scripted: a request that reaches the model before the kill is refused (HTTP 500, no
    // retry), so the user's message is the turn's only item either way.
    const client = await connect();
    const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    const text = `please remember this, number ${i}`;
    const id = 1000 + i;
    client.send({ id, method: 'turn/start', params: { threadId: thread.id, input: [{ type: 'text', text }] } });
    const answer = await client.waitFor((m) => m.id === id, 'the turn/start answer');
    client.child.kill('SIGKILL');
    const { turn } = answer.result as { turn: { id: string } };
    started.push({ threadId: thread.id, turnId: turn.id, text });
    await client.exited;
  }

  const reader = await connect();
  for (const { threadId, turnId, text } of started) {
    const read = await reader.request<{ thread: { turns: ReadTurn[] } }>('thread/read', {
      threadId,
      includeTurns: true,
    });
    expect(read.thread.turns.map((t) => t.id)).toEqual([turnId]);
    expect(read.thread.turns[0]?.items.map((item) => [item.type, item.content])).toEqual([
      ['userMessage', [{ type: 'text', text }]],
    ]);
  }

  // The model is told too: the next turn's request carries the message.
  const last = started.at(-1);
  if (!last) throw new Error('no turn was started');
  server.enqueue({
    kind: 'sse',
    events: [evCreated(), evOutputTextDelta('noted'), evAssistantMessage('noted'), evCompleted()],
  });
  await reader.request('thread/resume', { threadId: last.threadId });
  const from = reader.received.length;
  await reader.request('turn/start', { threadId: last.threadId, input: [{ type: 'text', text: 'and now?' }] });
  await reader.notification('turn/completed', () => true, from);
  const request = server.requests.at(-1);
  const input = JSON.stringify((request?.body as { input: unknown }).input);
  expect(input).toContain(last.text);
  expect(input.indexOf(last.text)).toBeLessThan(input.indexOf('and now?'));
});
