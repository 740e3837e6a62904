// Codex → Weft → Codex: a fork made by the real Codex 0.169 (test/fixtures/codex-0.169), imported and
// continued in Weft's app server (real core, mock model) with a command and a patch, then the rollout Weft
// wrote is checked against the rules Codex 0.169's reader follows. Those rules are facts observed with the
// real program (`node scripts/codex-tools.mjs check-resume`), each noted where it is checked:
//  1. a rollout whose session_meta says `history_mode: "paginated"` must end with a line carrying an
//     `ordinal` ("final paginated rollout record … is missing an ordinal" otherwise: resume fails);
//  2. in that mode `thread/read` rebuilds turns only from `event_msg` `item_completed` lines (old
//     `user_message` / `agent_message` events show nothing), per turn opened by `task_started`;
//  3. unknown line types, unknown `event_msg` types and unknown fields are ignored;
//  4. ordinals may have gaps; `response_item` lines need no `metadata`; `world_state`,
//     `token_usage_record` and `thread_settings_applied` lines may be absent;
//  5. the model history on resume comes from the `response_item` lines.
import { cpSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ThreadStore } from '../../src-main/store';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const FIXTURES = join(__dirname, '../fixtures/codex-0.169');
const ids = JSON.parse(readFileSync(join(FIXTURES, 'threads.json'), 'utf8')) as { main: string; fork: string };

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let codexHome: string;
let client: StdioRpcClient | null = null;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  codexHome = join(ws.dir, '..', `codex-home-${Date.now()}`);
  cpSync(FIXTURES, codexHome, { recursive: true });
});

afterEach(async () => {
  await client?.close();
  client = null;
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

function files(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out.set(join(e.parentPath, e.name), readFileSync(join(e.parentPath, e.name)));
  }
  return out;
}

interface Line {
  timestamp: string;
  ordinal?: unknown;
  type: string;
  payload: Record<string, unknown> & { type?: string; item?: Record<string, unknown> & { type: string } };
}

it('a Codex fork continued in Weft keeps its id, stays whole, and Weft writes what Codex reads', async () => {
  const store = ThreadStore.open(home.dir, { onWarning: () => undefined });
  expect(await store.importCodex(codexHome)).toMatchObject({ warnings: [] });
  await store.close();
  const codexBefore = files(codexHome);

  client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
  await client.initialize();
  const resumed = await client.request<{ thread: { id: string; turns: { items: { type: string }[] }[] } }>(
    'thread/resume',
    { threadId: ids.fork },
  );
  expect(resumed.thread.id).toBe(ids.fork);
  expect(resumed.thread.turns.map((t) => t.items.map((i) => i.type))).toEqual([
    ['userMessage', 'commandExecution', 'agentMessage'],
    ['userMessage', 'fileChange', 'agentMessage'],
    ['userMessage', 'reasoning', 'agentMessage'],
    ['userMessage', 'agentMessage'],
  ]);

  const patch = '*** Begin Patch\n*** Add File: weft-added.txt\n+written by weft\n*** End Patch';
  server.enqueueMany([
    {
      kind: 'sse',
      events: [
        evCreated('r1'),
        evFunctionCall('call_w1', 'exec_command', { cmd: 'echo weft-ran-this', yield_time_ms: 30_000 }),
        evCompleted('r1'),
      ],
    },
    {
      kind: 'sse',
      events: [evCreated('r2'), evFunctionCall('call_w2', 'apply_patch', { input: patch }), evCompleted('r2')],
    },
    { kind: 'sse', events: [evCreated('r3'), evAssistantMessage('continued in weft', 'msg_w3'), evCompleted('r3')] },
  ]);
  const from = client.received.length;
  const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
    threadId: ids.fork,
    input: [{ type: 'text', text: 'carry on in weft' }],
    cwd: ws.dir,
    approvalPolicy: 'never',
    sandboxPolicy: { type: 'dangerFullAccess' },
  });
  // A real command and patch run in this turn: on a busy machine it may outlast one wait's guard.
  let done: Record<string, unknown> | null = null;
  for (let attempt = 0; done === null; attempt++) {
    try {
      done = await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id, from);
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
  expect((done['turn'] as { status: string }).status).toBe('completed');
  expect(await ws.read('weft-added.txt')).toBe('written by weft\n');

  // The model got the whole history (the parent's turns too), without Codex's internal fields.
  const first = server.requests[0]?.body;
  assertAllToolOutputsAnswered(first);
  const sent = JSON.stringify(first);
  expect(sent).toContain('RUN echo marker-alpha');
  expect(sent).toContain('please summarise the fork ocelot-epsilon');
  expect(sent).not.toContain('internal_chat_message_metadata_passthrough');

  // Codex's files are untouched; the thread now lives in WEFT_HOME under the same id and file name.
  expect(files(codexHome)).toEqual(codexBefore);
  const read = await client.request<{ thread: { id: string; path: string; turns: { items: { type: string }[] }[] } }>(
    'thread/read',
    { threadId: ids.fork, includeTurns: true },
  );
  expect(read.thread.id).toBe(ids.fork);
  expect(read.thread.path.startsWith(join(home.dir, 'sessions'))).toBe(true);
  expect(read.thread.path.endsWith(`-${ids.fork}.jsonl`)).toBe(true);
  expect(read.thread.turns.at(-1)?.items.map((i) => i.type)).toEqual([
    'userMessage',
    'commandExecution',
    'fileChange',
    'agentMessage',
  ]);
  const listed = await client.request<{ data: { id: string }[] }>('thread/list', {});
  expect(listed.data.filter((t) => t.id === ids.fork)).toHaveLength(1);

  // What Codex reads.
  const lines = readFileSync(read.thread.path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
  const [meta] = lines;
  expect(meta?.type).toBe('session_meta');
  expect(meta?.payload).toMatchObject({ id: ids.fork, history_mode: 'paginated', forked_from_id: ids.main });
  expect(meta?.payload).not.toHaveProperty('history_base'); // the copy is whole: no parent to follow
  // Rule 1: every line (so the last one too) has an integer ordinal; they count up from 0.
  expect(lines.map((l) => l.ordinal)).toEqual(lines.map((_, i) => i));
  // Rule 2: every turn opens with task_started and its items are item_completed events.
  const events = lines.filter((l) => l.type === 'event_msg').map((l) => l.payload);
  const started = events.filter((e) => e.type === 'task_started').map((e) => e['turn_id']);
  expect(started).toHaveLength(5);
  expect(started.at(-1)).toBe(turn.id);
  const weftItems = events.filter((e) => e.type === 'item_completed' && e['turn_id'] === turn.id).map((e) => e.item);
  expect(weftItems.map((i) => i?.type)).toEqual(['UserMessage', 'CommandExecution', 'FileChange', 'AgentMessage']);
  const [user, command, fileChange, agent] = weftItems;
  expect(user).toMatchObject({ content: [{ type: 'text', text: 'carry on in weft', text_elements: [] }] });
  // The command's result as Weft's own item has it (how far `echo` got depends on the machine's load).
  const weftCommand = read.thread.turns.at(-1)?.items.find((i) => i.type === 'commandExecution') as
    { exitCode: number | null; aggregatedOutput: string | null } | undefined;
  expect(command).toMatchObject({
    id: expect.any(String),
    command: ['/bin/bash', '-lc', 'echo weft-ran-this'],
    cwd: `file://${ws.dir}`,
    status: 'completed',
    exit_code: weftCommand?.exitCode,
    aggregated_output: weftCommand?.aggregatedOutput ?? '',
    duration: { secs: expect.any(Number), nanos: expect.any(Number) },
  });
  expect(fileChange).toEqual({
    type: 'FileChange',
    id: expect.any(String),
    changes: { [join(ws.dir, 'weft-added.txt')]: { type: 'add', content: 'written by weft\n' } },
    status: 'completed',
    stdout: '',
    stderr: '',
  });
  expect(agent).toMatchObject({ content: [{ type: 'Text', text: 'continued in weft' }] });
  expect(events.some((e) => e.type === 'user_message' || e.type === 'agent_message')).toBe(false);
  // Rule 5: the model history Codex rebuilds has Weft's calls and their outputs, in pairs.
  const calls = lines.filter(
    (l) =>
      l.type === 'response_item' && (l.payload.type === 'function_call' || l.payload.type === 'function_call_output'),
  );
  expect(calls.map((l) => [l.payload.type, l.payload['call_id']]).slice(-4)).toEqual([
    ['function_call', 'call_w1'],
    ['function_call_output', 'call_w1'],
    ['function_call', 'call_w2'],
    ['function_call_output', 'call_w2'],
  ]);
  // For checking by hand with Codex itself (scripts/codex-tools.mjs check-resume).
  const keep = process.env['WEFT_KEEP_ROUND_TRIP'];
  if (keep) cpSync(read.thread.path, join(keep, basename(read.thread.path)));
}, 90_000);
