// `weft app-server` as a client written against Codex 0.169's app-server schema sees it: every message
// parses with the protocol's own schemas, the fields Codex requires are there, responses come before
// the notifications they cause, and Codex's methods (`thread/revert`, `account/read`, `skills/list`)
// answer. The real binary over stdio, the real model client against the mock model.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ServerNotifications,
  ServerRequests,
  isServerNotificationMethod,
  isServerRequestMethod,
} from '../../src-preload/protocol';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient, type RpcClient, type RpcMessage } from '../support/rpc-client';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let client: StdioRpcClient;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
  await client.initialize();
});

afterEach(async () => {
  await client.close();
  // Every notification and server request the server sent parses with the protocol's own schemas.
  const invalid = client.received.flatMap((m) => problemsOf(m));
  expect(invalid).toEqual([]);
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

function problemsOf(message: RpcMessage): string[] {
  const method = message.method;
  if (method === undefined) return [];
  const isRequest = message.id !== undefined && message.id !== null;
  if (isRequest && isServerRequestMethod(method)) {
    const parsed = ServerRequests[method].params.safeParse(message.params);
    return parsed.success ? [] : [`${method}: ${parsed.error.message}`];
  }
  if (!isRequest && isServerNotificationMethod(method)) {
    const parsed = ServerNotifications[method].safeParse(message.params);
    return parsed.success ? [] : [`${method}: ${parsed.error.message}`];
  }
  return [`unknown message ${method}`];
}

const calls = (...c: ReturnType<typeof evFunctionCall>[]) => ({
  kind: 'sse' as const,
  events: [evCreated(), ...c, evCompleted()],
});

/** Index in `received` of the response to the request sent after `from`, and of a notification. */
function indexOf(c: RpcClient, predicate: (m: RpcMessage) => boolean, from: number): number {
  const at = c.received.slice(from).findIndex(predicate);
  return at < 0 ? -1 : from + at;
}

async function runTurn(threadId: string, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const from = client.received.length;
  const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
    threadId,
    input: [{ type: 'text', text }],
    ...extra,
  });
  await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id, from);
  return turn.id;
}

describe('a Codex client against weft app-server', () => {
  it('gets each response before the notifications it causes, and the fields Codex requires', async () => {
    server.enqueueMany([
      calls(evFunctionCall('c1', 'exec_command', { cmd: 'cat notes.txt' })),
      answerTurn('It says one.'),
    ]);
    const before = Date.now();
    let from = client.received.length;
    const started = await client.request<Record<string, unknown> & { thread: { id: string } }>('thread/start', {
      cwd: ws.dir,
      approvalPolicy: 'on-failure',
    });
    const threadId = started.thread.id;
    const startResponse = indexOf(client, (m) => m.result !== undefined, from);
    const threadStarted = await client.notification('thread/started', () => true, from);
    expect(startResponse).toBeGreaterThanOrEqual(0);
    expect(indexOf(client, (m) => m.method === 'thread/started', from)).toBeGreaterThan(startResponse);
    expect(threadStarted['thread']).toMatchObject({ id: threadId, sessionId: threadId, projectId: null });
    expect(started).toMatchObject({
      approvalPolicy: 'on-request',
      weftApprovalPolicy: 'on-failure',
      approvalsReviewer: 'user',
      thread: { sessionId: threadId, projectId: null },
    });

    from = client.received.length;
    const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
      threadId,
      input: [{ type: 'text', text: 'what does notes.txt say?' }],
    });
    await client.notification('turn/completed', () => true, from);
    const turnResponse = indexOf(client, (m) => m.result !== undefined, from);
    const firstNotification = indexOf(client, (m) => m.method !== undefined, from);
    expect(client.received[firstNotification]?.method).not.toBe(undefined);
    expect(turnResponse).toBeLessThan(firstNotification);
    expect(client.received[turnResponse + 1]?.method).toBe('thread/status/changed');
    expect(indexOf(client, (m) => m.method === 'turn/started', from)).toBeGreaterThan(turnResponse);

    const lifecycle = client.received
      .slice(from)
      .filter((m) => m.method === 'item/started' || m.method === 'item/completed');
    expect(lifecycle.length).toBeGreaterThanOrEqual(6);
    const after = Date.now();
    for (const m of lifecycle) {
      const params = m.params as { startedAtMs?: number; completedAtMs?: number; turnId: string };
      const at = m.method === 'item/started' ? params.startedAtMs : params.completedAtMs;
      expect(params.turnId).toBe(turn.id);
      expect(at).toBeGreaterThanOrEqual(before);
      expect(at).toBeLessThanOrEqual(after);
    }
    const command = lifecycle
      .filter((m) => (m.params as { item: { type: string } }).item.type === 'commandExecution')
      .map((m) => m.params as { startedAtMs?: number; completedAtMs?: number });
    expect(command).toHaveLength(2);
    expect(command[1]?.completedAtMs).toBeGreaterThanOrEqual(command[0]?.startedAtMs ?? Infinity);
  });

  it('stamps approval requests and marks questions as blocking', async () => {
    server.enqueueMany([
      calls(evFunctionCall('c1', 'exec_command', { cmd: 'touch made.txt' })),
      calls(
        evFunctionCall('q', 'request_user_input', {
          questions: [
            { id: 'color', header: 'Color', question: 'Which colour?', options: [{ label: 'Red', description: '' }] },
          ],
        }),
      ),
      answerTurn('done'),
    ]);
    client.onServerRequest = (method) =>
      method === 'item/tool/requestUserInput' ? { answers: { color: { answers: ['Red'] } } } : { decision: 'accept' };
    const { thread } = await client.request<{ thread: { id: string } }>('thread/start', {
      cwd: ws.dir,
      approvalPolicy: 'untrusted',
      sandbox: 'workspace-write',
    });
    const before = Date.now();
    await runTurn(thread.id, 'make a file, then ask me');
    const approval = client.received.find((m) => m.method === 'item/commandExecution/requestApproval');
    const question = client.received.find((m) => m.method === 'item/tool/requestUserInput');
    expect((approval?.params as { startedAtMs: number }).startedAtMs).toBeGreaterThanOrEqual(before);
    expect((approval?.params as { startedAtMs: number }).startedAtMs).toBeLessThanOrEqual(Date.now());
    expect(question?.params).toMatchObject({ isBlocking: true, questions: [{ id: 'color' }] });
  });

  it("accepts Codex's granular approval policy, any effort, Codex's sort keys, and mention / skill inputs", async () => {
    const skill = ws.path('.agents/skills/release/SKILL.md');
    await mkdir(dirname(skill), { recursive: true });
    await writeFile(skill, '---\nname: release\ndescription: Cut a release.\n---\nRun the release script.\n');
    server.enqueue(answerTurn('ok'));
    const granular = { granular: { sandbox_approval: false, rules: true, mcp_elicitations: false } };
    const started = await client.request<{
      thread: { id: string };
      approvalPolicy: unknown;
      weftApprovalPolicy: unknown;
    }>('thread/start', { cwd: ws.dir, model: 'gpt-5.1-codex', approvalPolicy: granular });
    expect([started.approvalPolicy, started.weftApprovalPolicy]).toEqual(['never', 'never']);
    const from = client.received.length;
    await client.request('turn/start', {
      threadId: started.thread.id,
      effort: 'max',
      input: [
        { type: 'mention', name: 'notes', path: ws.path('notes.txt') },
        { type: 'skill', name: 'release', path: skill },
        { type: 'text', text: 'release it' },
      ],
    });
    await client.notification('turn/completed', () => true, from);
    const body = server.requests[0]?.body as {
      reasoning: unknown;
      input: { role?: string; content?: { text?: string }[] }[];
    };
    expect(body.reasoning).toEqual({ effort: 'max', summary: 'auto' });
    const user = body.input.at(-1)?.content?.map((c) => c.text);
    // The mentioned file's content reaches the model after the mention.
    expect(user).toEqual([
      `@notes (${ws.path('notes.txt')})`,
      `<file path="${ws.path('notes.txt')}">\none\n</file>`,
      `<skill>\n<name>release</name>\n<path>${skill}</path>\n---\nname: release\ndescription: Cut a release.\n---\nRun the release script.\n\n</skill>`,
      'release it',
    ]);
    for (const sortKey of ['recency_at', 'section_position', 'created_at']) {
      expect(
        (await client.request<{ data: { id: string }[] }>('thread/list', { sortKey })).data.map((t) => t.id),
      ).toEqual([started.thread.id]);
    }
  });

  it('reverts a thread to before a turn (history only) and says so', async () => {
    server.enqueueMany([answerTurn('first'), answerTurn('second'), answerTurn('third'), answerTurn('after revert')]);
    const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    const t1 = await runTurn(thread.id, 'one');
    const t2 = await runTurn(thread.id, 'two');
    const t3 = await runTurn(thread.id, 'three');
    expect((await client.call('thread/revert', { threadId: thread.id, beforeTurnId: 'nope' })).error).toEqual({
      code: -32602,
      message: `params.beforeTurnId: thread ${thread.id} has no turn nope`,
    });
    const from = client.received.length;
    const reverted = await client.request<{ thread: { turns: { id: string }[] } }>('thread/revert', {
      threadId: thread.id,
      beforeTurnId: t2,
    });
    expect(reverted.thread.turns.map((t) => t.id)).toEqual([t1]);
    expect(await client.notification('thread/reverted', () => true, from)).toEqual({
      threadId: thread.id,
      weftBeforeTurnId: t2,
      weftTurnIds: [t2, t3],
      weftFiles: null,
    });
    const response = indexOf(client, (m) => m.result !== undefined, from);
    expect(indexOf(client, (m) => m.method === 'thread/reverted', from)).toBeGreaterThan(response);
    expect(
      (
        await client.request<{ thread: { turns: unknown[] } }>('thread/read', {
          threadId: thread.id,
          includeTurns: true,
        })
      ).thread.turns,
    ).toHaveLength(1);
    await runTurn(thread.id, 'four');
    const messages = (server.requests[3]?.body as { input: { role?: string; content?: { text?: string }[] }[] }).input
      .filter((i) => i.role === 'user' || i.role === 'assistant')
      .map((i) => i.content?.[0]?.text ?? '')
      .filter((text) => !text.startsWith('<'));
    expect(messages).toEqual(['one', 'first', 'four']);
  });

  it('answers model/list, account/read and skills/list with the fields Codex requires', async () => {
    await mkdir(ws.path('.agents/skills/lint'), { recursive: true });
    await writeFile(
      ws.path('.agents/skills/lint/SKILL.md'),
      '---\nname: lint\ndescription: Run the linter.\n---\nnpm run lint\n',
    );
    await mkdir(ws.path('.agents/skills/broken'), { recursive: true });
    await writeFile(ws.path('.agents/skills/broken/SKILL.md'), 'no front matter\n');
    const models = await client.request<{ data: Record<string, unknown>[] }>('model/list', {});
    expect(models.data[0]).toEqual({
      id: 'mock-model',
      model: 'mock-model',
      displayName: 'mock-model',
      description: 'mock-model from Mock',
      hidden: false,
      contextWindow: null,
      supportedReasoningEfforts: [],
      defaultReasoningEffort: 'none',
      isDefault: true,
    });
    expect(await client.request('account/read', {})).toEqual({
      account: { type: 'apiKey' },
      requiresOpenaiAuth: false,
    });
    const skills = await client.request<{ data: unknown[] }>('skills/list', { cwds: [ws.dir] });
    expect(skills).toEqual({
      data: [
        {
          cwd: ws.dir,
          skills: [
            {
              name: 'lint',
              description: 'Run the linter.',
              path: ws.path('.agents/skills/lint/SKILL.md'),
              scope: 'repo',
              enabled: true,
            },
          ],
          errors: [
            {
              path: ws.path('.agents/skills/broken/SKILL.md'),
              message: 'it does not start with a `---` line opening the YAML front matter',
            },
          ],
        },
      ],
    });
  });
});
