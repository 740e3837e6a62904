// A client that resumes a thread while its answer streams (a second window, a reload) gets the items
// still open as they stand: the message with the text streamed so far, the reasoning so far. Through
// the real `weft app-server`, with the mock model holding the rest of the answer back until the test
// has resumed.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createGate, startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import {
  evAssistantMessage,
  evCompleted,
  evCreated,
  evOutputTextDelta,
  evReasoningSummaryDelta,
  evReasoningSummaryPartAdded,
  evReasoning,
} from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let client: StdioRpcClient | undefined;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
});

afterEach(async () => {
  await client?.close();
  client = undefined;
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

interface Turn {
  id: string;
  status: string;
  items: { type: string; id: string; text?: string; summary?: string[] }[];
}

/** The turn's items as the resume returned them: kind, and text length or reasoning summary. */
async function resumedItems(threadId: string, turnId: string): Promise<unknown[]> {
  const resumed = await client?.request<{ thread: { turns: Turn[] } }>('thread/resume', { threadId });
  const live = resumed?.thread.turns.find((t) => t.id === turnId);
  expect(live?.status).toBe('inProgress');
  return (live?.items ?? []).map((i) => [i.type, i.id, i.text === undefined ? i.summary : i.text.length]);
}

it('returns the open reasoning and message with what has streamed so far', async () => {
  const chunks = Array.from({ length: 200 }, (_, i) => `${String(i).padStart(3, '0')}:${'x'.repeat(296)} `);
  const streamed = chunks.join('');
  const rest = 'and the end.';
  const thinking = createGate();
  const answering = createGate();
  server.enqueue({
    kind: 'sse-slow',
    events: [
      evCreated(),
      evReasoningSummaryPartAdded(0),
      evReasoningSummaryDelta('Reading '),
      evReasoningSummaryDelta('the notes'),
      thinking,
      evReasoning(['Reading the notes']),
      ...chunks.map((c) => ({ ...evOutputTextDelta(c), output_index: 1 })),
      answering,
      { ...evOutputTextDelta(rest), output_index: 1 },
      { ...evAssistantMessage(streamed + rest), output_index: 1 },
      evCompleted(),
    ],
  });
  const rpc = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
  client = rpc;
  await rpc.initialize();
  const { thread } = await rpc.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
  const { turn } = await rpc.request<{ turn: { id: string } }>('turn/start', {
    threadId: thread.id,
    input: [{ type: 'text', text: 'read the notes' }],
  });
  const sent = (method: string, itemId: string): string =>
    rpc
      .notifications(method)
      .filter((p) => p['itemId'] === itemId)
      .map((p) => p['delta'])
      .join('');
  const started = (type: string): Promise<string> =>
    rpc
      .notification('item/started', (p) => (p['item'] as { type: string }).type === type)
      .then((p) => (p['item'] as { id: string }).id);
  const userMessage = ['userMessage', expect.any(String), undefined];

  const reasoningId = await started('reasoning');
  await rpc.waitFor(
    () => sent('item/reasoning/summaryTextDelta', reasoningId) === 'Reading the notes',
    'the reasoning before the first gate',
  );
  expect(await resumedItems(thread.id, turn.id)).toEqual([
    userMessage,
    ['reasoning', reasoningId, ['Reading the notes']],
  ]);

  thinking.release();
  const messageId = await started('agentMessage');
  await rpc.waitFor(
    () => sent('item/agentMessage/delta', messageId).length === streamed.length,
    'every delta before the second gate',
  );
  // 60,000 characters streamed: the resumed message holds them all.
  expect(await resumedItems(thread.id, turn.id)).toEqual([
    userMessage,
    ['reasoning', reasoningId, ['Reading the notes']],
    ['agentMessage', messageId, streamed.length],
  ]);
  const resumed = await rpc.request<{ thread: { turns: Turn[] } }>('thread/resume', { threadId: thread.id });
  expect(resumed.thread.turns.find((t) => t.id === turn.id)?.items[2]?.text === streamed).toBe(true);

  answering.release();
  const done = await rpc.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id);
  expect((done['turn'] as { status: string }).status).toBe('completed');
  expect(sent('item/agentMessage/delta', messageId)).toBe(streamed + rest);
});
