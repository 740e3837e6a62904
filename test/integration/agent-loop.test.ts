import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAgent, paramsOf, type AgentHarness } from '../support/agent';
import {
  assertAllToolOutputsAnswered,
  createGate,
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
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let agent: AgentHarness | undefined;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'README.md': 'hello\n' });
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server.close();
  await ws.cleanup();
});

function answer(text: string, usage = { input_tokens: 10, output_tokens: 5 }) {
  return {
    kind: 'sse' as const,
    events: [
      evCreated(),
      evOutputTextDelta(text.slice(0, 3)),
      evOutputTextDelta(text.slice(3)),
      evAssistantMessage(text),
      evCompleted('resp', usage),
    ],
  };
}

function toolCalls(...calls: ReturnType<typeof evFunctionCall>[]) {
  return { kind: 'sse' as const, events: [evCreated(), ...calls, evCompleted()] };
}

function inputOf(n: number): unknown[] {
  const body = server.requests[n - 1]?.body;
  if (!body || typeof body !== 'object' || !('input' in body) || !Array.isArray(body.input))
    throw new Error(`request ${n} has no input`);
  return body.input;
}

describe('agent loop', () => {
  it('streams a plain answer and sends a Codex-shaped request', async () => {
    server.enqueue({
      kind: 'sse',
      events: [
        evCreated(),
        evReasoningSummaryPartAdded(0, 'rs_1'),
        evReasoningSummaryDelta('Thinking', 0, 'rs_1'),
        evReasoningSummaryDelta(' hard', 0, 'rs_1'),
        evReasoning(['Thinking hard'], 'rs_1', 'enc-1'),
        evOutputTextDelta('Hel'),
        evOutputTextDelta('lo!'),
        evAssistantMessage('Hello!'),
        evCompleted('resp', { input_tokens: 100, output_tokens: 20, cached_tokens: 40, reasoning_tokens: 7 }),
      ],
    });
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir, model: 'gpt-5.1-codex' });
    const events = await agent.runTurn('say hello');

    const deltas = paramsOf(events, 'item/agentMessage/delta').map((d) => d.delta);
    expect(deltas).toEqual(['Hel', 'lo!']);
    const completed = paramsOf(events, 'item/completed').map((p) => p.item);
    expect(completed.map((i) => i.type)).toEqual(['userMessage', 'reasoning', 'agentMessage']);
    const message = completed[2];
    expect(message?.type === 'agentMessage' && message.text).toBe('Hello!');
    const reasoning = completed[1];
    expect(reasoning?.type === 'reasoning' && reasoning.summary).toEqual(['Thinking hard']);
    expect(
      paramsOf(events, 'item/reasoning/summaryTextDelta')
        .map((d) => d.delta)
        .join(''),
    ).toBe('Thinking hard');

    const usage = paramsOf(events, 'thread/tokenUsage/updated').at(-1)?.tokenUsage;
    expect(usage).toEqual({
      total: { totalTokens: 120, inputTokens: 100, cachedInputTokens: 40, outputTokens: 20, reasoningOutputTokens: 7 },
      last: { totalTokens: 120, inputTokens: 100, cachedInputTokens: 40, outputTokens: 20, reasoningOutputTokens: 7 },
      modelContextWindow: 272000,
    });
    const turn = paramsOf(events, 'turn/completed')[0]?.turn;
    expect(turn?.status).toBe('completed');
    expect(turn?.error).toBeNull();

    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(body['model']).toBe('gpt-5.1-codex');
    expect(body['store']).toBe(false);
    expect(body['stream']).toBe(true);
    expect(body['include']).toEqual(['reasoning.encrypted_content']);
    expect(body['prompt_cache_key']).toBe(agent.session.threadId);
    expect(body['reasoning']).toEqual({ summary: 'auto' });
    expect(typeof body['instructions']).toBe('string');
    expect((body['tools'] as { name: string }[]).map((t) => t.name)).toEqual([
      'exec_command',
      'write_stdin',
      'update_plan',
      'view_image',
      'request_user_input',
      'apply_patch',
      // Offered because the machine has Chromium (test/integration/browser-tool.test.ts: not when it has none).
      'browser',
    ]);
    const input = inputOf(1) as { role: string; content: { text: string }[] }[];
    expect(input.map((i) => i.role)).toEqual(['developer', 'user', 'user']);
    expect(input[0]?.content[0]?.text).toMatch(/^<permissions instructions>\n[\s\S]+\n<\/permissions instructions>$/);
    expect(input[1]?.content[0]?.text).toMatch(
      new RegExp(
        `^<environment_context>\\n  <cwd>${ws.dir}</cwd>\\n  <shell>bash</shell>\\n  <current_date>\\d{4}-\\d\\d-\\d\\d</current_date>\\n  <timezone>.+</timezone>\\n  <network enabled="true" />\\n</environment_context>$`,
      ),
    );
    expect(input[2]).toEqual({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'say hello' }] });
    expect(server.unexpected).toEqual([]);
  });

  it('runs a tool call and feeds its output back with the same call_id', async () => {
    server.enqueueMany([
      toolCalls(evFunctionCall('call_1', 'exec_command', { cmd: 'echo from-tool', yield_time_ms: 5000 })),
      answer('done'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const events = await agent.runTurn('run it');

    const outputs = assertAllToolOutputsAnswered(server.requests[1]?.body);
    expect(outputs.map((o) => o.call_id)).toEqual(['call_1']);
    expect(String(outputs[0]?.output)).toMatch(
      /^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 0\nOutput:\nfrom-tool\r?\n$/,
    );
    const cmd = paramsOf(events, 'item/completed')
      .map((p) => p.item)
      .find((i) => i.type === 'commandExecution');
    expect(cmd).toMatchObject({
      type: 'commandExecution',
      command: 'echo from-tool',
      cwd: ws.dir,
      status: 'completed',
      exitCode: 0,
    });
    expect(cmd?.type === 'commandExecution' && cmd.aggregatedOutput?.trim()).toBe('from-tool');
    const streamed = paramsOf(events, 'item/commandExecution/outputDelta')
      .map((d) => d.delta)
      .join('');
    expect(streamed.trim()).toBe('from-tool');
    expect(paramsOf(events, 'turn/completed')[0]?.turn.status).toBe('completed');
  });

  it('answers several calls in call order', async () => {
    server.enqueueMany([
      toolCalls(
        evFunctionCall('a', 'exec_command', { cmd: 'sleep 0.3; echo first' }),
        evFunctionCall('b', 'exec_command', { cmd: 'echo second' }),
        evFunctionCall('c', 'exec_command', { cmd: 'exit 3' }),
      ),
      answer('ok'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    await agent.runTurn('three');
    const outputs = assertAllToolOutputsAnswered(server.requests[1]?.body);
    expect(outputs.map((o) => o.call_id)).toEqual(['a', 'b', 'c']);
    expect(String(outputs[0]?.output)).toContain('first');
    expect(String(outputs[1]?.output)).toContain('second');
    expect(String(outputs[2]?.output)).toContain('Process exited with code 3');
  });

  it('runs parallel-safe calls concurrently', async () => {
    // The first command cannot finish until the second one has run: only overlap completes it quickly.
    server.enqueueMany([
      toolCalls(
        evFunctionCall('reader', 'exec_command', { cmd: 'mkfifo pipe && cat pipe', yield_time_ms: 20000 }),
        evFunctionCall('writer', 'exec_command', {
          cmd: 'while [ ! -p pipe ]; do sleep 0.01; done; echo through > pipe',
          yield_time_ms: 20000,
        }),
      ),
      answer('ok'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const events = await agent.runTurn('parallel');
    const order = events
      .filter(
        (n) =>
          (n.method === 'item/started' || n.method === 'item/completed') && n.params.item.type === 'commandExecution',
      )
      .map((n) => {
        const item = n.method === 'item/started' || n.method === 'item/completed' ? n.params.item : null;
        return `${n.method === 'item/started' ? 'start' : 'end'}:${item?.type === 'commandExecution' ? item.command.slice(0, 6) : ''}`;
      });
    expect(order.slice(0, 2)).toEqual(['start:mkfifo', 'start:while ']);
    const outputs = assertAllToolOutputsAnswered(server.requests[1]?.body);
    expect(String(outputs[0]?.output)).toContain('through');
  });

  it('tells the model about an unknown tool and keeps going', async () => {
    server.enqueueMany([toolCalls(evFunctionCall('x', 'no_such_tool', {})), answer('sorry')]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const events = await agent.runTurn('use a bad tool');
    const outputs = assertAllToolOutputsAnswered(server.requests[1]?.body);
    expect(outputs).toEqual([{ type: 'function_call_output', call_id: 'x', output: 'unsupported call: no_such_tool' }]);
    expect(paramsOf(events, 'turn/completed')[0]?.turn.status).toBe('completed');
  });

  it('answers malformed arguments with an error naming the problem', async () => {
    server.enqueueMany([
      toolCalls(
        evFunctionCall('bad-json', 'exec_command', '{"cmd": "ls"'),
        evFunctionCall('bad-type', 'exec_command', { cmd: 42 }),
      ),
      answer('fixed'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    await agent.runTurn('malformed');
    const outputs = assertAllToolOutputsAnswered(server.requests[1]?.body);
    expect(String(outputs[0]?.output)).toMatch(/^failed to parse function arguments: .*JSON/);
    expect(String(outputs[1]?.output)).toMatch(/^failed to parse function arguments: .*cmd/);
  });

  it('retries a stream cut mid-response and then succeeds', async () => {
    server.enqueueMany([
      { kind: 'sse-cut', events: [evCreated(), evOutputTextDelta('partial')] },
      answer('complete answer'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const events = await agent.runTurn('flaky');
    const errors = paramsOf(events, 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      willRetry: true,
      error: { message: 'Reconnecting... 1/5', codexErrorInfo: 'responseStreamDisconnected' },
    });
    expect(paramsOf(events, 'turn/completed')[0]?.turn.status).toBe('completed');
    const messages = paramsOf(events, 'item/completed')
      .map((p) => p.item)
      .filter((i) => i.type === 'agentMessage');
    expect(messages.at(-1)).toMatchObject({ text: 'complete answer' });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.body).toEqual(server.requests[0]?.body);
  });

  it('retries a 500, honouring Retry-After, then succeeds', async () => {
    server.enqueueMany([{ kind: 'http-error', status: 500, headers: { 'retry-after-ms': '5' } }, answer('after 500')]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const events = await agent.runTurn('server error');
    expect(paramsOf(events, 'error')).toMatchObject([{ willRetry: true, error: { message: 'Reconnecting... 1/4' } }]);
    expect(paramsOf(events, 'turn/completed')[0]?.turn.status).toBe('completed');
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after the request retry budget', async () => {
    server.enqueueMany([
      { kind: 'http-error', status: 503, headers: { 'retry-after-ms': '1' } },
      { kind: 'http-error', status: 503, headers: { 'retry-after-ms': '1' } },
      { kind: 'http-error', status: 503, headers: { 'retry-after-ms': '1' } },
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir, requestMaxRetries: 2 });
    const events = await agent.runTurn('always failing');
    expect(paramsOf(events, 'error').map((e) => e.willRetry)).toEqual([true, true, false]);
    const turn = paramsOf(events, 'turn/completed')[0]?.turn;
    expect(turn?.status).toBe('failed');
    expect(turn?.error?.message).toMatch(/HTTP 503.*gave up after 2 retries/);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 401 and ends the turn with a clear error', async () => {
    server.enqueue({
      kind: 'http-error',
      status: 401,
      body: {
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
      },
    });
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const events = await agent.runTurn('auth');
    const turn = paramsOf(events, 'turn/completed')[0]?.turn;
    expect(turn?.status).toBe('failed');
    expect(turn?.error).toEqual({
      message: 'the model endpoint refused the credentials (HTTP 401): Incorrect API key provided',
      codexErrorInfo: 'unauthorized',
      additionalDetails: null,
    });
    expect(paramsOf(events, 'error')).toEqual([
      { error: turn?.error, willRetry: false, threadId: agent.session.threadId, turnId: turn?.id },
    ]);
    expect(server.requests).toHaveLength(1);
  });

  it('interrupts a streaming response promptly', async () => {
    const handle = server.enqueue({ kind: 'sse-hang', events: [evCreated(), evOutputTextDelta('thinking about it')] });
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const delta = agent.next('item/agentMessage/delta');
    const completed = agent.next('turn/completed');
    await agent.session.startTurn([{ type: 'text', text: 'long' }]);
    await delta;
    await agent.session.interrupt();
    const turn = (await completed).params.turn;
    expect(turn.status).toBe('interrupted');
    await handle.whenAborted;
    // The partially streamed message still gets its item/completed.
    const message = paramsOf(agent.events, 'item/completed')
      .map((p) => p.item)
      .find((i) => i.type === 'agentMessage');
    expect(message).toMatchObject({ text: 'thinking about it' });
  });

  it('interrupts a running command and kills its process', async () => {
    server.enqueueMany([
      toolCalls(
        evFunctionCall('long', 'exec_command', {
          cmd: 'echo $$ > pid.txt; echo started; exec sleep 60',
          yield_time_ms: 30000,
        }),
      ),
      answer('never sent'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const started = agent.next('item/commandExecution/outputDelta', (n) => n.params.delta.includes('started'));
    const completed = agent.next('turn/completed');
    await agent.session.startTurn([{ type: 'text', text: 'sleep' }]);
    await started;
    const pid = Number(readFileSync(ws.path('pid.txt'), 'utf8').trim());
    expect(existsSync(`/proc/${pid}`)).toBe(true);
    await agent.session.interrupt();
    expect((await completed).params.turn.status).toBe('interrupted');
    expect(processAlive(pid)).toBe(false);
    expect(server.requests).toHaveLength(1);
    // The next turn's request still answers the interrupted call.
    server.enqueue(answer('next'));
    await agent.runTurn('again');
    const outputs = assertAllToolOutputsAnswered(server.requests[1]?.body);
    expect(outputs.map((o) => o.call_id)).toEqual(['long']);
  });

  it('adds steer input to the next model request of the running turn', async () => {
    const gate = createGate();
    server.enqueueMany([
      {
        kind: 'sse-slow',
        events: [evCreated(), evOutputTextDelta('Working'), gate, evAssistantMessage('Working'), evCompleted()],
      },
      answer('Steered answer'),
    ]);
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const firstDelta = agent.next('item/agentMessage/delta');
    const completed = agent.next('turn/completed');
    const turn = await agent.session.startTurn([{ type: 'text', text: 'start' }]);
    await firstDelta;
    await agent.session.steer([{ type: 'text', text: 'also do X' }], turn.id);
    // A second user turn while one runs joins it too, rather than running in parallel.
    const joined = await agent.session.startTurn([{ type: 'text', text: 'and Y' }]);
    expect(joined.id).toBe(turn.id);
    gate.release();
    expect((await completed).params.turn.status).toBe('completed');
    expect(server.requests).toHaveLength(2);
    const input = inputOf(2) as { type: string; role?: string; content?: { text?: string }[] }[];
    const userTexts = input.filter((i) => i.type === 'message' && i.role === 'user').map((i) => i.content?.[0]?.text);
    expect(userTexts.slice(-2)).toEqual(['also do X', 'and Y']);
    expect(paramsOf(agent.events, 'item/completed').filter((p) => p.item.type === 'userMessage')).toHaveLength(3);
  });

  it('rejects a steer for the wrong turn', async () => {
    const gate = createGate();
    server.enqueue({
      kind: 'sse-slow',
      events: [evCreated(), evOutputTextDelta('x'), gate, evAssistantMessage('x'), evCompleted()],
    });
    agent = startAgent({ baseUrl: server.url, cwd: ws.dir });
    const delta = agent.next('item/agentMessage/delta');
    await agent.session.startTurn([{ type: 'text', text: 'go' }]);
    await delta;
    await expect(agent.session.steer([{ type: 'text', text: 'late' }], 'not-the-turn')).rejects.toThrow(
      /expected turn not-the-turn/,
    );
    gate.release();
    await agent.session.whenIdle();
    await expect(agent.session.steer([{ type: 'text', text: 'late' }])).rejects.toThrow(/no running turn/);
  });
});

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie is dead for our purposes.
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
