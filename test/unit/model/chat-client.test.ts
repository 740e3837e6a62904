import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResponseItem } from '../../../src-preload/protocol';
import { ChatCompletionsClient } from '../../../src-main/model/chat-client';
import { ModelError } from '../../../src-main/model/errors';
import type { ModelEvent, ModelRequest, ToolSpec } from '../../../src-main/model/types';
import {
  CHUNK_ID,
  chatChunk,
  chatFinish,
  chatRole,
  chatText,
  chatToolCall,
  chatUsage,
  startMockChatServer,
} from '../../support/mock-chat-server';
import type { MockChatServer } from '../../support/mock-chat-server';

let server: MockChatServer;

beforeEach(async () => {
  server = await startMockChatServer();
});

afterEach(async () => {
  expect(server.unexpected).toEqual([]);
  await server.close();
});

function client(streamIdleTimeoutMs = 15_000): ChatCompletionsClient {
  let n = 0;
  return new ChatCompletionsClient({
    baseUrl: server.url,
    apiKey: 'sk-test',
    streamIdleTimeoutMs,
    ids: (kind) => `${kind}_${++n}`,
  });
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'mock-model',
    instructions: 'You are a test.',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
    tools: [],
    parallelToolCalls: true,
    reasoning: null,
    promptCacheKey: 'thread-1',
    ...overrides,
  };
}

async function collect(
  c: ChatCompletionsClient,
  req: ModelRequest = request(),
  signal = new AbortController().signal,
): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of c.stream(req, signal)) events.push(event);
  return events;
}

async function failure(
  c: ChatCompletionsClient,
  req: ModelRequest = request(),
): Promise<{ error: ModelError; events: ModelEvent[] }> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of c.stream(req, new AbortController().signal)) events.push(event);
  } catch (error) {
    if (error instanceof ModelError) return { error, events };
    throw error;
  }
  throw new Error(`expected the stream to fail, got ${JSON.stringify(events)}`);
}

describe('ChatCompletionsClient streaming', () => {
  it('streams text deltas, then the message and one completed', async () => {
    server.enqueue({ kind: 'sse', chunks: [chatRole(), chatText('Hel'), chatText('lo!'), chatFinish('stop')] });
    expect(await collect(client())).toEqual([
      { type: 'created' },
      { type: 'outputTextDelta', itemId: 'msg_1', outputIndex: 0, delta: 'Hel' },
      { type: 'outputTextDelta', itemId: 'msg_1', outputIndex: 0, delta: 'lo!' },
      {
        type: 'outputItemDone',
        outputIndex: 0,
        item: { type: 'message', role: 'assistant', id: 'msg_1', content: [{ type: 'output_text', text: 'Hello!' }] },
      },
      { type: 'completed', responseId: CHUNK_ID, usage: null },
    ]);
  });

  it('assembles a tool call whose arguments arrive in many chunks', async () => {
    server.enqueue({
      kind: 'sse',
      chunks: [
        chatRole(),
        chatToolCall(0, { id: 'call_abc', name: 'exec_command', args: '' }),
        chatToolCall(0, { args: '{"cmd"' }),
        chatToolCall(0, { args: ': "ls' }),
        chatToolCall(0, { args: ' -la"' }),
        chatToolCall(0, { args: '}' }),
        chatFinish('tool_calls'),
      ],
    });
    expect(await collect(client())).toEqual([
      { type: 'created' },
      {
        type: 'outputItemDone',
        outputIndex: 0,
        item: { type: 'function_call', call_id: 'call_abc', name: 'exec_command', arguments: '{"cmd": "ls -la"}' },
      },
      { type: 'completed', responseId: CHUNK_ID, usage: null },
    ]);
  });

  it('keeps two parallel tool calls apart when their chunks interleave by index', async () => {
    server.enqueue({
      kind: 'sse',
      chunks: [
        chatText('Reading both.'),
        chatToolCall(0, { id: 'call_a', name: 'read', args: '{"path":' }),
        chatToolCall(1, { id: 'call_b', name: 'grep', args: '{"pattern":' }),
        chatToolCall(0, { args: '"a.ts"}' }),
        chatToolCall(1, { args: '"TODO"}' }),
        chatFinish('tool_calls'),
      ],
    });
    const events = await collect(client());
    expect(events.filter((e) => e.type === 'outputItemDone')).toEqual([
      {
        type: 'outputItemDone',
        outputIndex: 0,
        item: {
          type: 'message',
          role: 'assistant',
          id: 'msg_1',
          content: [{ type: 'output_text', text: 'Reading both.' }],
        },
      },
      {
        type: 'outputItemDone',
        outputIndex: 1,
        item: { type: 'function_call', call_id: 'call_a', name: 'read', arguments: '{"path":"a.ts"}' },
      },
      {
        type: 'outputItemDone',
        outputIndex: 2,
        item: { type: 'function_call', call_id: 'call_b', name: 'grep', arguments: '{"pattern":"TODO"}' },
      },
    ]);
    expect(events.at(-1)?.type).toBe('completed');
  });

  it('generates a call id when the provider sends none, and "{}" for missing arguments', async () => {
    server.enqueue({
      kind: 'sse',
      chunks: [
        chatChunk({ tool_calls: [{ index: 0, function: { name: 'list_mcp_resources' } }] }),
        chatFinish('tool_calls'),
      ],
    });
    const events = await collect(client());
    expect(events[1]).toEqual({
      type: 'outputItemDone',
      outputIndex: 0,
      item: { type: 'function_call', call_id: 'call_1', name: 'list_mcp_resources', arguments: '{}' },
    });
  });

  it('shows reasoning_content as a reasoning summary and finishes it when the answer starts', async () => {
    server.enqueue({
      kind: 'sse',
      chunks: [
        chatRole(),
        chatChunk({ reasoning_content: 'The user ' }),
        chatChunk({ reasoning_content: 'greets me.' }),
        chatText('Hi!'),
        chatFinish('stop'),
      ],
    });
    expect(await collect(client())).toEqual([
      { type: 'created' },
      { type: 'reasoningSummaryPartAdded', itemId: 'rs_1', outputIndex: 0, summaryIndex: 0 },
      { type: 'reasoningSummaryDelta', itemId: 'rs_1', outputIndex: 0, summaryIndex: 0, delta: 'The user ' },
      { type: 'reasoningSummaryDelta', itemId: 'rs_1', outputIndex: 0, summaryIndex: 0, delta: 'greets me.' },
      {
        type: 'outputItemDone',
        outputIndex: 0,
        item: { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'The user greets me.' }] },
      },
      { type: 'outputTextDelta', itemId: 'msg_2', outputIndex: 1, delta: 'Hi!' },
      {
        type: 'outputItemDone',
        outputIndex: 1,
        item: { type: 'message', role: 'assistant', id: 'msg_2', content: [{ type: 'output_text', text: 'Hi!' }] },
      },
      { type: 'completed', responseId: CHUNK_ID, usage: null },
    ]);
  });

  it('reads `delta.reasoning` (Ollama, OpenRouter) the same way', async () => {
    server.enqueue({ kind: 'sse', chunks: [chatChunk({ reasoning: 'hmm' }), chatFinish('stop')] });
    const done = (await collect(client())).filter((e) => e.type === 'outputItemDone');
    expect(done).toEqual([
      {
        type: 'outputItemDone',
        outputIndex: 0,
        item: { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'hmm' }] },
      },
    ]);
  });

  it('reports usage from the final usage-only chunk', async () => {
    server.enqueue({
      kind: 'sse',
      chunks: [
        chatText('ok'),
        chatFinish('stop'),
        chatUsage({ prompt_tokens: 120, completion_tokens: 30, cached_tokens: 100, reasoning_tokens: 12 }),
      ],
    });
    const events = await collect(client());
    expect(events.filter((e) => e.type === 'completed')).toEqual([
      {
        type: 'completed',
        responseId: CHUNK_ID,
        usage: {
          inputTokens: 120,
          cachedInputTokens: 100,
          outputTokens: 30,
          reasoningOutputTokens: 12,
          totalTokens: 150,
        },
      },
    ]);
    expect(server.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });
});

describe('ChatCompletionsClient request body', () => {
  it('converts the history, tools and reasoning effort into the chat request', async () => {
    server.enqueue({ kind: 'sse', chunks: [chatText('done'), chatFinish('stop')] });
    const input: ResponseItem[] = [
      {
        type: 'message',
        role: 'developer',
        content: [{ type: 'input_text', text: '<permissions instructions>ro</permissions instructions>' }],
      },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: '# AGENTS.md' },
          { type: 'input_text', text: '<environment_context/>' },
        ],
      },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'What is in this picture?' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'high' },
        ],
      },
      { type: 'reasoning', id: 'rs_x', summary: [{ type: 'summary_text', text: 'thinking' }], encrypted_content: null },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me look.' }] },
      { type: 'function_call', call_id: 'call_1', name: 'exec_command', arguments: '{"cmd":"ls"}' },
      { type: 'custom_tool_call', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' },
      { type: 'function_call_output', call_id: 'call_1', output: 'a.png\n' },
      {
        type: 'custom_tool_call_output',
        call_id: 'call_2',
        output: [
          { type: 'input_text', text: 'Done' },
          { type: 'input_image', image_url: 'data:image/png;base64,BBBB' },
        ],
      },
      { type: 'function_call', call_id: 'call_3', name: 'exec_command', arguments: '{"cmd":"pwd"}' },
      { type: 'function_call_output', call_id: 'call_3', output: '/w\n' },
      {
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'It is a ' },
          { type: 'output_text', text: 'cat.' },
        ],
      },
    ];
    const tools: ToolSpec[] = [
      {
        type: 'function',
        name: 'exec_command',
        description: 'Run a command',
        strict: false,
        parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
      },
      { type: 'custom', name: 'apply_patch', description: 'Patch files', format: { type: 'text' } },
      { type: 'web_search' },
    ];
    await collect(
      client(),
      request({ input, tools, parallelToolCalls: false, reasoning: { effort: 'high', summary: 'auto' } }),
    );

    expect(server.requests[0]?.body).toEqual({
      model: 'mock-model',
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        {
          type: 'function',
          function: {
            name: 'exec_command',
            description: 'Run a command',
            parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
          },
        },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning_effort: 'high',
      messages: [
        { role: 'system', content: 'You are a test.' },
        { role: 'system', content: '<permissions instructions>ro</permissions instructions>' },
        { role: 'user', content: '# AGENTS.md\n\n<environment_context/>' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'high' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Let me look.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'exec_command', arguments: '{"cmd":"ls"}' } },
            {
              id: 'call_2',
              type: 'function',
              function: { name: 'apply_patch', arguments: JSON.stringify({ input: '*** Begin Patch\n*** End Patch' }) },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'a.png\n' },
        { role: 'tool', tool_call_id: 'call_2', content: 'Done\n(1 image in the next message)' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Image output of tool call call_2:' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,BBBB' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_3', type: 'function', function: { name: 'exec_command', arguments: '{"cmd":"pwd"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_3', content: '/w\n' },
        { role: 'assistant', content: 'It is a cat.' },
      ],
    });
  });

  it('sends no tool fields when there are no function tools', async () => {
    server.enqueue({ kind: 'sse', chunks: [chatText('ok'), chatFinish('stop')] });
    await collect(client(), request({ tools: [{ type: 'web_search' }] }));
    expect(server.requests[0]?.body).toEqual({
      model: 'mock-model',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are a test.' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-test');
  });
});

describe('ChatCompletionsClient errors', () => {
  it('classifies HTTP 500 as a retryable request failure', async () => {
    server.enqueue({ kind: 'http-error', status: 500, headers: { 'retry-after-ms': '250' } });
    const { error, events } = await failure(client());
    expect(events).toEqual([]);
    expect(error.options).toEqual({ retryable: true, phase: 'request', httpStatus: 500, retryAfterMs: 250 });
    expect(error.info).toBe('InternalServerError');
  });

  it('classifies HTTP 401 as final, naming the credentials', async () => {
    server.enqueue({
      kind: 'http-error',
      status: 401,
      body: { error: { message: 'Invalid API key', type: 'auth', code: 'invalid_api_key' } },
    });
    const { error } = await failure(client());
    expect(error.options).toMatchObject({ retryable: false, phase: 'request', httpStatus: 401 });
    expect(error.info).toBe('Unauthorized');
    expect(error.message).toContain('Invalid API key');
  });

  it('recognises a context overflow in a plain 400 (`{"error": "<text>"}`, as Ollama sends)', async () => {
    server.enqueue({
      kind: 'http-error',
      status: 400,
      body: { error: "This model's maximum context length is 8192 tokens" },
    });
    const { error } = await failure(client());
    expect(error.info).toBe('ContextWindowExceeded');
    expect(error.options.retryable).toBe(false);
  });

  it('treats a stream cut before finish_reason as a retryable stream failure', async () => {
    server.enqueue({ kind: 'sse-cut', chunks: [chatText('partial')] });
    const { error, events } = await failure(client());
    expect(events.map((e) => e.type)).toEqual(['created', 'outputTextDelta']);
    expect(error.options).toMatchObject({ retryable: true, phase: 'stream' });
    expect(error.info).toBe('ResponseStreamDisconnected');
  });

  it('treats a stream that ends cleanly without any finish_reason as a retryable stream failure', async () => {
    server.enqueue({ kind: 'sse', chunks: [chatText('partial')] });
    const { error } = await failure(client());
    expect(error.options).toMatchObject({ retryable: true, phase: 'stream' });
    expect(error.message).toContain('finish_reason');
  });

  it('fails finish_reason "length" without retry, saying the output hit the token limit', async () => {
    server.enqueue({
      kind: 'sse',
      chunks: [chatText('a long ans'), chatFinish('length'), chatUsage({ prompt_tokens: 1, completion_tokens: 2 })],
    });
    const { error, events } = await failure(client());
    expect(events.some((e) => e.type === 'completed')).toBe(false);
    expect(error.options).toMatchObject({ retryable: false, phase: 'stream', outputLimit: true });
    expect(error.message).toContain('token limit');
  });

  it('sends maxOutputTokens as max_tokens', async () => {
    server.enqueue({ kind: 'sse', chunks: [chatText('ok'), chatFinish('stop')] });
    await collect(client(), request({ maxOutputTokens: 42 }));
    expect(server.requests[0]?.body).toMatchObject({ max_tokens: 42 });
  });

  it('classifies an error frame in the stream by its code', async () => {
    server.enqueue({
      kind: 'sse',
      chunks: [chatText('x'), { error: { message: 'overloaded, try again in 2s', code: 'server_is_overloaded' } }],
    });
    const { error } = await failure(client());
    expect(error.options).toMatchObject({ retryable: true, phase: 'stream', retryAfterMs: 2000 });
  });

  it('ends an idle stream as a retryable stream failure', async () => {
    server.enqueue({ kind: 'sse-hang', chunks: [chatText('thinking…')] });
    const { error } = await failure(client(50));
    expect(error.options).toMatchObject({ retryable: true, phase: 'stream' });
    expect(error.message).toContain('idle');
  });

  it("rethrows the caller's abort reason", async () => {
    server.enqueue({ kind: 'sse-hang', chunks: [chatText('hello')] });
    const controller = new AbortController();
    const reason = new Error('turn interrupted');
    const seen: ModelEvent[] = [];
    const run = (async () => {
      for await (const event of client().stream(request(), controller.signal)) {
        seen.push(event);
        if (event.type === 'outputTextDelta') controller.abort(reason);
      }
    })();
    await expect(run).rejects.toBe(reason);
    expect(seen.map((e) => e.type)).toEqual(['created', 'outputTextDelta']);
  });

  it('sends an output schema as a strict json_schema response format', async () => {
    server.enqueue({ kind: 'sse', chunks: [chatText('{"a":1}'), chatFinish('stop')] });
    const schema = {
      type: 'object',
      properties: { a: { type: 'number' } },
      required: ['a'],
      additionalProperties: false,
    };
    await collect(client(), request({ outputSchema: schema }));
    expect(server.requests[0]?.body).toMatchObject({
      response_format: { type: 'json_schema', json_schema: { name: 'codex_output_schema', schema, strict: true } },
    });
  });
});
