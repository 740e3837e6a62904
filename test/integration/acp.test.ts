// `weft acp` driven by an editor-side client written with the official @agentclientprotocol/sdk, against
// the mock model: prompts, commands with permission, patches with diffs, plans, cancel, modes and load.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import {
  evAssistantMessage,
  evCompleted,
  evCreated,
  evFunctionCall,
  evOutputTextDelta,
  evReasoning,
  evReasoningSummaryDelta,
  evReasoningSummaryPartAdded,
} from '../support/sse';
import { answerText, callOutputs, reply, scriptAgents, threadOf } from '../support/agents-model';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const WEFT = resolve(__dirname, '../../bin/weft.js');

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'one\ntwo\nthree\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "untrusted"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

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

type Update = acp.SessionUpdate;

/** An editor: starts `weft acp`, records every update, answers permission requests as the test says. */
class Editor {
  readonly updates: Update[] = [];
  readonly permissions: acp.RequestPermissionRequest[] = [];
  /** Tool calls announced and permissions asked, in the order the agent wrote them. */
  readonly order: string[] = [];
  private wireText = '';
  /** Picks the option for a permission request; default: reject. */
  choose: (request: acp.RequestPermissionRequest) => string | 'cancelled' = () => 'reject';
  onUpdate: (update: Update, sessionId: string) => void = () => undefined;
  private readonly waiters = new Set<() => void>();
  readonly agent: acp.ClientContext;
  private readonly connection: acp.ClientConnection;
  private readonly exited: Promise<void>;

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    const app = acp
      .client({ name: 'test-editor' })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        this.permissions.push(params);
        const choice = this.choose(params);
        return {
          outcome: choice === 'cancelled' ? { outcome: 'cancelled' } : { outcome: 'selected', optionId: choice },
        };
      })
      .onRequest(acp.methods.client.elicitation.create, ({ params }) => {
        if (!Editor.elicit) throw new Error('this editor does not answer elicitations');
        return Editor.elicit(params);
      })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        this.updates.push(params.update);
        this.onUpdate(params.update, params.sessionId);
        for (const wake of [...this.waiters]) wake();
      });
    // The agent's output is read as written, line by line, to check the order of what it sends.
    const decoder = new TextDecoder();
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      transform: (chunk, controller) => {
        this.wireText += decoder.decode(chunk, { stream: true });
        const lines = this.wireText.split('\n');
        this.wireText = lines.pop() ?? '';
        for (const line of lines) this.recordWire(line);
        controller.enqueue(chunk);
      },
    });
    const output = (Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>).pipeThrough(tap);
    this.connection = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin), output));
    this.agent = this.connection.agent;
    this.exited = new Promise((r) => child.on('exit', () => r()));
  }

  /** Answers `elicitation/create` (offered only when set before `start`). */
  static elicit: ((request: acp.CreateElicitationRequest) => acp.CreateElicitationResponse) | null = null;

  private recordWire(line: string): void {
    if (line.trim() === '') return;
    const message = JSON.parse(line) as {
      method?: string;
      params?: { update?: { sessionUpdate?: string; toolCallId?: string }; toolCall?: { toolCallId?: string } };
    };
    if (message.method === 'session/update' && message.params?.update?.sessionUpdate === 'tool_call')
      this.order.push(`tool_call ${message.params.update.toolCallId ?? ''}`);
    if (message.method === 'session/request_permission')
      this.order.push(`permission ${message.params?.toolCall?.toolCallId ?? ''}`);
  }

  static async start(): Promise<Editor> {
    const child = spawn(process.execPath, [WEFT, 'acp'], {
      cwd: ws.dir,
      // HOME is the throwaway Weft home, so the shell reads no profile of this machine's user.
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: home.dir,
        SHELL: '/bin/bash',
        WEFT_HOME: home.dir,
        MOCK_API_KEY: 'x',
      },
    });
    const editor = new Editor(child);
    cleanups.push(() => editor.close());
    const init = await editor.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: false, writeTextFile: false },
        terminal: false,
        ...(Editor.elicit ? { elicitation: { form: {} } } : {}),
      },
    });
    expect(init.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
    });
    return editor;
  }

  newSession(mcpServers: acp.McpServer[] = []): Promise<acp.NewSessionResponse> {
    return this.agent.request(acp.methods.agent.session.new, { cwd: ws.dir, mcpServers });
  }

  prompt(sessionId: string, prompt: acp.ContentBlock[] | string): Promise<acp.PromptResponse> {
    return this.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: typeof prompt === 'string' ? [{ type: 'text', text: prompt }] : prompt,
    });
  }

  /**
   * Resolves once `check` holds. The SDK hands notifications to their handler after a few awaits but
   * settles responses at once, so a response can overtake the updates sent before it: wait for them.
   */
  until(check: () => boolean, label: string): Promise<void> {
    return new Promise((done, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`timed out waiting for ${label}; updates: ${JSON.stringify(this.updates).slice(-1500)}`)),
        20_000,
      );
      const wake = (): void => {
        if (!check()) return;
        this.waiters.delete(wake);
        clearTimeout(timer);
        done();
      };
      this.waiters.add(wake);
      wake();
    });
  }

  text(kind: 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk'): string {
    return this.updates
      .map((u) => (u.sessionUpdate === kind && u.content.type === 'text' ? u.content.text : ''))
      .join('');
  }

  toolCalls(): Extract<Update, { sessionUpdate: 'tool_call' }>[] {
    return this.updates.filter(
      (u): u is Extract<Update, { sessionUpdate: 'tool_call' }> => u.sessionUpdate === 'tool_call',
    );
  }

  /** The last state of a tool call: its `tool_call` with every `tool_call_update` applied. */
  toolCall(id: string): Record<string, unknown> {
    let state: Record<string, unknown> = {};
    for (const u of this.updates) {
      if ((u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') && u.toolCallId === id) {
        state = { ...state, ...Object.fromEntries(Object.entries(u).filter(([, v]) => v !== undefined && v !== null)) };
      }
    }
    return state;
  }

  async close(): Promise<void> {
    this.connection.close();
    this.child.stdin.end();
    await this.exited;
  }
}

describe('weft acp with an @agentclientprotocol/sdk client', { timeout: 60_000 }, () => {
  it('streams a prompt with image and embedded context into a normal Weft thread', async () => {
    server.enqueue({
      kind: 'sse',
      events: [
        evCreated(),
        evReasoningSummaryPartAdded(0),
        evReasoningSummaryDelta('Reading'),
        evReasoningSummaryDelta(' the notes'),
        evReasoning(['Reading the notes']),
        evOutputTextDelta('Three '),
        evOutputTextDelta('lines.'),
        evAssistantMessage('Three lines.'),
        evCompleted(),
      ],
    });
    const editor = await Editor.start();
    const session = await editor.newSession([
      { name: 'docs', command: 'docs-server', args: ['--stdio'], env: [{ name: 'DOCS_TOKEN', value: 't' }] },
    ]);
    expect(session.modes).toEqual({
      currentModeId: 'auto',
      availableModes: [
        { id: 'read-only', name: 'Read only', description: expect.any(String) },
        { id: 'auto', name: 'Auto', description: expect.any(String) },
        { id: 'full-access', name: 'Full access', description: expect.any(String) },
      ],
    });
    const png = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');
    const response = await editor.prompt(session.sessionId, [
      { type: 'text', text: 'How many lines?' },
      {
        type: 'resource',
        resource: { uri: `file://${ws.path('notes.txt')}`, text: 'one\ntwo\nthree\n', mimeType: 'text/plain' },
      },
      { type: 'image', data: png, mimeType: 'image/png' },
    ]);
    expect(response.stopReason).toBe('end_turn');
    await editor.until(() => editor.text('agent_message_chunk') === 'Three lines.', 'the answer');
    expect(editor.text('agent_thought_chunk')).toBe('Reading the notes');
    expect(editor.text('agent_message_chunk')).toBe('Three lines.');
    const body = JSON.stringify(server.requests[0]?.body);
    expect(body).toContain(`<context ref=\\"file://${ws.path('notes.txt')}\\">\\none\\ntwo\\nthree\\n\\n</context>`);
    expect(body).toContain(`data:image/png;base64,${png}`);
    // The session is a Weft thread.
    const { stdout } = await runWeft(['threads', 'list', '--json']);
    expect(
      (JSON.parse(stdout) as { data: { id: string; preview: string }[] }).data.map((t) => ({
        id: t.id,
        preview: t.preview,
      })),
    ).toEqual([{ id: session.sessionId, preview: expect.stringContaining('How many lines?') }]);
  });

  it('asks permission for commands (allow once, always, reject) and streams their output', async () => {
    server.enqueueMany([
      calls(evFunctionCall('a', 'exec_command', { cmd: 'echo hello > allowed.txt; cat allowed.txt' })),
      calls(evFunctionCall('b', 'exec_command', { cmd: 'touch refused.txt' })),
      calls(evFunctionCall('c', 'exec_command', { cmd: 'touch always.txt' })),
      calls(evFunctionCall('d', 'exec_command', { cmd: 'touch always.txt' })),
      answer('Done with commands.'),
    ]);
    const editor = await Editor.start();
    const { sessionId } = await editor.newSession();
    const choices = ['allow-once', 'reject', 'allow-always'];
    editor.choose = () => choices.shift() ?? 'reject';
    const response = await editor.prompt(sessionId, 'run things');
    expect(response.stopReason).toBe('end_turn');
    await editor.until(() => editor.text('agent_message_chunk') === 'Done with commands.', 'the answer');
    // Asked for the first three; the fourth was allowed by "always".
    const calls4 = editor.toolCalls();
    expect(calls4).toHaveLength(4);
    expect(
      editor.permissions.map((p) => ({ id: p.toolCall.toolCallId, options: p.options.map((o) => o.kind) })),
    ).toEqual(
      calls4.slice(0, 3).map((c) => ({ id: c.toolCallId, options: ['allow_once', 'allow_always', 'reject_once'] })),
    );
    expect(editor.toolCall(calls4[3]?.toolCallId ?? '')['status']).toBe('completed');
    // Each permission request came after the tool call it is about.
    expect(editor.order).toEqual([
      ...calls4.slice(0, 3).flatMap((c) => [`tool_call ${c.toolCallId}`, `permission ${c.toolCallId}`]),
      `tool_call ${calls4[3]?.toolCallId ?? ''}`,
    ]);
    expect(existsSync(ws.path('always.txt'))).toBe(true);
    const [first, second] = calls4;
    expect(first).toMatchObject({
      title: 'echo hello > allowed.txt; cat allowed.txt',
      kind: 'execute',
      status: 'pending',
    });
    expect(editor.toolCall(first?.toolCallId ?? '')).toMatchObject({
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: '```\nhello\n```' } }],
      rawOutput: { exitCode: 0, output: 'hello\n' },
    });
    expect(editor.toolCall(second?.toolCallId ?? '')).toMatchObject({ status: 'failed' });
    expect(existsSync(ws.path('allowed.txt'))).toBe(true);
    expect(existsSync(ws.path('refused.txt'))).toBe(false);
    expect(assertAllToolOutputsAnswered(server.requests[4]?.body).map((o) => String(o.output))[1]).toBe(
      'exec command rejected by user',
    );
    expect(editor.text('agent_message_chunk')).toBe('Done with commands.');
  });

  it('shows a patch as a diff with its file, applies it when allowed, and reports the plan', async () => {
    const patch = '*** Begin Patch\n*** Update File: notes.txt\n@@\n one\n-two\n+TWO\n three\n*** End Patch';
    server.enqueueMany([
      calls(
        evFunctionCall('plan', 'update_plan', {
          plan: [
            { step: 'Edit the notes', status: 'in_progress' },
            { step: 'Report', status: 'pending' },
          ],
        }),
      ),
      calls(evFunctionCall('p', 'apply_patch', { input: patch })),
      answer('Patched.'),
    ]);
    const editor = await Editor.start();
    const { sessionId } = await editor.newSession();
    editor.choose = (request) => (request.options.some((o) => o.optionId === 'allow-once') ? 'allow-once' : 'reject');
    expect((await editor.prompt(sessionId, 'fix the notes')).stopReason).toBe('end_turn');
    await editor.until(() => editor.text('agent_message_chunk') === 'Patched.', 'the answer');
    expect(editor.updates.filter((u) => u.sessionUpdate === 'plan')).toEqual([
      {
        sessionUpdate: 'plan',
        entries: [
          { content: 'Edit the notes', priority: 'medium', status: 'in_progress' },
          { content: 'Report', priority: 'medium', status: 'pending' },
        ],
      },
    ]);
    const [call] = editor.toolCalls();
    expect(call).toMatchObject({
      title: 'Edit notes.txt',
      kind: 'edit',
      content: [
        { type: 'diff', path: ws.path('notes.txt'), oldText: 'one\ntwo\nthree\n', newText: 'one\nTWO\nthree\n' },
      ],
      locations: [{ path: ws.path('notes.txt') }],
    });
    expect(editor.permissions.map((p) => p.toolCall.toolCallId)).toEqual([call?.toolCallId]);
    expect(editor.toolCall(call?.toolCallId ?? '')['status']).toBe('completed');
    expect(await ws.read('notes.txt')).toBe('one\nTWO\nthree\n');
  });

  it("asks the agent's questions through elicitation when the editor offers it", async () => {
    server.enqueueMany([
      calls(
        evFunctionCall('q', 'request_user_input', {
          questions: [{ id: 'name', header: 'Name', question: 'What is the name?', options: null }],
        }),
      ),
      answer('Hello, Ada.'),
    ]);
    const asked: acp.CreateElicitationRequest[] = [];
    Editor.elicit = (request) => {
      asked.push(request);
      return { action: 'accept', content: { name: 'Ada' } };
    };
    cleanups.push(async () => {
      Editor.elicit = null;
    });
    const editor = await Editor.start();
    const { sessionId } = await editor.newSession();
    expect((await editor.prompt(sessionId, 'ask my name')).stopReason).toBe('end_turn');
    expect(asked).toEqual([
      {
        mode: 'form',
        sessionId,
        toolCallId: expect.any(String),
        message: 'What is the name?',
        requestedSchema: {
          type: 'object',
          properties: { name: { type: 'string', title: 'Name', description: 'What is the name?' } },
        },
      },
    ]);
    expect(assertAllToolOutputsAnswered(server.requests[1]?.body)[0]?.output).toBe(
      '{"answers":{"name":{"answers":["Ada"]}}}',
    );
  });

  it("asks the editor for a sub-agent's approval in its parent's session, labelled with the sub-agent", async () => {
    scriptAgents(server, {
      parent: [
        () => ({ calls: [{ id: 'call_spawn', name: 'spawn_agent', args: { message: 'make child.txt' } }] }),
        (ctx) => ({
          calls: [{ id: 'call_wait', name: 'wait_agent', args: { targets: ctx.agents, timeout_ms: 60_000 } }],
        }),
        (ctx) => ({ answer: `The child says: ${ctx.outputs[1]?.output ?? ''}` }),
      ],
      child: (_task, request) =>
        callOutputs(request).length > 0
          ? answerText('made it')
          : reply([evFunctionCall('call_touch', 'exec_command', { cmd: 'touch child.txt' })]),
    });
    const editor = await Editor.start();
    const { sessionId } = await editor.newSession();
    editor.choose = () => 'allow-once';
    const response = await editor.prompt(sessionId, 'delegate');
    expect(response.stopReason).toBe('end_turn');
    expect(existsSync(ws.path('child.txt'))).toBe(true);
    const child = server.requests.map(threadOf).find((t) => t !== sessionId) ?? '';
    expect(editor.permissions).toEqual([
      {
        sessionId,
        toolCall: {
          toolCallId: expect.any(String),
          title: expect.stringMatching(/^Sub-agent [A-Z][a-z]+: touch child\.txt$/),
          kind: 'execute',
          status: 'pending',
          rawInput: {
            command: 'touch child.txt',
            cwd: ws.dir,
            reason: 'approvals are set to "Ask unless read-only": only known read-only commands run without asking',
            subAgent: { threadId: child, nickname: expect.stringMatching(/^[A-Z][a-z]+$/) },
          },
        },
        options: [
          { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
          { optionId: 'allow-always', name: 'Always allow `touch child.txt`', kind: 'allow_always' },
          { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
        ],
      },
    ]);
    await editor.until(() => editor.text('agent_message_chunk').startsWith('The child says'), 'the answer');
    expect(editor.text('agent_message_chunk')).toBe(
      `The child says: ${JSON.stringify({ status: { [child]: { completed: 'made it' } }, timed_out: false })}`,
    );
    // The command itself is shown in the parent's session as the parent's own are, labelled with the
    // sub-agent, before its approval is asked, and ends there.
    const [call, ...others] = editor.toolCalls();
    expect(others).toEqual([]);
    expect(call).toEqual({
      sessionUpdate: 'tool_call',
      toolCallId: editor.permissions[0]?.toolCall.toolCallId,
      title: expect.stringMatching(/^Sub-agent [A-Z][a-z]+: touch child\.txt$/),
      kind: 'execute',
      status: 'pending',
      locations: [],
      rawInput: {
        command: 'touch child.txt',
        cwd: ws.dir,
        subAgent: { threadId: child, nickname: expect.stringMatching(/^[A-Z][a-z]+$/) },
      },
    });
    expect(editor.order).toEqual([`tool_call ${call?.toolCallId ?? ''}`, `permission ${call?.toolCallId ?? ''}`]);
    expect(editor.toolCall(call?.toolCallId ?? '')['status']).toBe('completed');
  });

  it("shows a sub-agent's patch in its parent's session as a diff, before its approval is asked", async () => {
    const patch = '*** Begin Patch\n*** Update File: notes.txt\n@@\n one\n-two\n+TWO\n three\n*** End Patch';
    scriptAgents(server, {
      parent: [
        () => ({ calls: [{ id: 'call_spawn', name: 'spawn_agent', args: { message: 'fix the notes' } }] }),
        (ctx) => ({
          calls: [{ id: 'call_wait', name: 'wait_agent', args: { targets: ctx.agents, timeout_ms: 60_000 } }],
        }),
        () => ({ answer: 'The child fixed them.' }),
      ],
      child: (_task, request) =>
        callOutputs(request).length > 0
          ? answerText('fixed')
          : reply([evFunctionCall('call_patch', 'apply_patch', { input: patch })]),
    });
    const editor = await Editor.start();
    const { sessionId } = await editor.newSession();
    const sessions = new Set<string>();
    editor.onUpdate = (_update, id) => sessions.add(id);
    editor.choose = () => 'allow-once';
    expect((await editor.prompt(sessionId, 'delegate')).stopReason).toBe('end_turn');
    await editor.until(() => editor.text('agent_message_chunk') === 'The child fixed them.', 'the answer');
    expect(await ws.read('notes.txt')).toBe('one\nTWO\nthree\n');
    const child = server.requests.map(threadOf).find((t) => t !== sessionId) ?? '';
    const [call, ...others] = editor.toolCalls();
    expect(others).toEqual([]);
    expect(call).toEqual({
      sessionUpdate: 'tool_call',
      toolCallId: expect.any(String),
      title: expect.stringMatching(/^Sub-agent [A-Z][a-z]+: Edit notes\.txt$/),
      kind: 'edit',
      status: 'pending',
      content: [
        { type: 'diff', path: ws.path('notes.txt'), oldText: 'one\ntwo\nthree\n', newText: 'one\nTWO\nthree\n' },
      ],
      locations: [{ path: ws.path('notes.txt') }],
      rawInput: {
        changes: [expect.objectContaining({ path: ws.path('notes.txt') })],
        subAgent: { threadId: child, nickname: expect.stringMatching(/^[A-Z][a-z]+$/) },
      },
    });
    // Asked after the client was shown what it asks about, and shown to end in the one session.
    expect(editor.order).toEqual([`tool_call ${call?.toolCallId ?? ''}`, `permission ${call?.toolCallId ?? ''}`]);
    expect(editor.toolCall(call?.toolCallId ?? '')['status']).toBe('completed');
    expect([...sessions]).toEqual([sessionId]);
  });

  it('cancels a running prompt', async () => {
    server.enqueue({ kind: 'sse-hang', events: [evCreated(), evOutputTextDelta('Working')] });
    const editor = await Editor.start();
    const { sessionId } = await editor.newSession();
    editor.onUpdate = (update) => {
      if (update.sessionUpdate === 'agent_message_chunk')
        void editor.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    };
    const response = await editor.prompt(sessionId, 'take forever');
    expect(response.stopReason).toBe('cancelled');
    expect(editor.text('agent_message_chunk')).toBe('Working');
  });

  it('switches modes: full access runs commands without asking', async () => {
    server.enqueueMany([calls(evFunctionCall('a', 'exec_command', { cmd: 'touch free.txt' })), answer('Ran it.')]);
    const editor = await Editor.start();
    const { sessionId } = await editor.newSession();
    await editor.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'full-access' });
    await editor.until(() => editor.updates.length > 0, 'the mode update');
    expect(editor.updates).toEqual([{ sessionUpdate: 'current_mode_update', currentModeId: 'full-access' }]);
    await expect(
      editor.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'yolo' }),
    ).rejects.toThrow(/Unknown mode "yolo"/);
    expect((await editor.prompt(sessionId, 'touch it')).stopReason).toBe('end_turn');
    await editor.until(() => editor.text('agent_message_chunk') === 'Ran it.', 'the answer');
    expect(editor.permissions).toEqual([]);
    expect(existsSync(ws.path('free.txt'))).toBe(true);
  });

  it('loads a session in a new process: replays it, then continues it', async () => {
    server.enqueueMany([
      calls(evFunctionCall('a', 'exec_command', { cmd: 'echo saved' })),
      answer('First answer.'),
      answer('Second answer.'),
    ]);
    const first = await Editor.start();
    const { sessionId } = await first.newSession();
    first.choose = () => 'allow-once';
    await first.prompt(sessionId, 'first question');
    await first.close();

    const second = await Editor.start();
    const loaded = await second.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: ws.dir,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe('auto');
    await second.until(() => second.updates.length >= 3, 'the replay');
    expect(second.updates.map((u) => u.sessionUpdate)).toEqual([
      'user_message_chunk',
      'tool_call',
      'agent_message_chunk',
    ]);
    expect(second.text('user_message_chunk')).toBe('first question');
    expect(second.text('agent_message_chunk')).toBe('First answer.');
    expect(second.toolCalls()[0]).toMatchObject({
      title: 'echo saved',
      kind: 'execute',
      status: 'completed',
      rawOutput: { exitCode: 0, output: 'saved\n' },
    });

    expect((await second.prompt(sessionId, 'second question')).stopReason).toBe('end_turn');
    const texts = (server.requests[2]?.body as { input: { content?: { text?: string }[] }[] }).input.map(
      (i) => i.content?.[0]?.text,
    );
    expect(texts).toContain('first question');
    expect(texts).toContain('First answer.');
    expect(texts.at(-1)).toBe('second question');
    await expect(
      second.agent.request(acp.methods.agent.session.load, {
        sessionId: '019a0000-0000-7000-8000-000000000000',
        cwd: ws.dir,
        mcpServers: [],
      }),
    ).rejects.toThrow();
  });
});

async function runWeft(args: string[]): Promise<{ stdout: string }> {
  const child = spawn(process.execPath, [WEFT, ...args], {
    cwd: ws.dir,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', WEFT_HOME: home.dir },
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  await new Promise<void>((r) => child.on('exit', () => r()));
  return { stdout };
}
