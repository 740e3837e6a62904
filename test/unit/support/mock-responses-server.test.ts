import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import OpenAI, {
  APIConnectionError,
  APIUserAbortError,
  AuthenticationError,
  InternalServerError,
  RateLimitError,
} from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import {
  assertAllToolOutputsAnswered,
  createGate,
  startMockResponsesServer,
} from '../../support/mock-responses-server';
import type { MockResponsesServer } from '../../support/mock-responses-server';
import {
  evAssistantMessage,
  evCompleted,
  evCreated,
  evFunctionCall,
  evOutputTextDelta,
  evReasoning,
  sseBody,
} from '../../support/sse';
import { waitFor } from '../../support/wait';

let server: MockResponsesServer;
let client: OpenAI;

beforeEach(async () => {
  server = await startMockResponsesServer();
  client = new OpenAI({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
});

afterEach(async () => {
  await server.close();
});

function startStream(signal?: AbortSignal) {
  return client.responses.create({ model: 'm', input: 'hi', stream: true }, signal ? { signal } : {});
}

async function collect(signal?: AbortSignal): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of await startStream(signal)) events.push(event);
  return events;
}

describe('mock Responses server, through the openai SDK', () => {
  it('streams text deltas in order, numbers them, and ends with usage on response.completed', async () => {
    server.enqueue({
      kind: 'sse',
      events: [
        evCreated('resp_1'),
        evOutputTextDelta('Hel'),
        evOutputTextDelta('lo'),
        evAssistantMessage('Hello'),
        evCompleted('resp_1', { input_tokens: 12, cached_tokens: 4, output_tokens: 5, reasoning_tokens: 2 }),
      ],
    });

    const events = await collect();

    expect(events.map((e) => [e.type, e.sequence_number])).toEqual([
      ['response.created', 0],
      ['response.output_text.delta', 1],
      ['response.output_text.delta', 2],
      ['response.output_item.done', 3],
      ['response.completed', 4],
    ]);
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    expect(deltas).toEqual(['Hel', 'lo']);
    const completed = events[4];
    expect(completed?.type === 'response.completed' && completed.response).toEqual({
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      output: [],
      usage: {
        input_tokens: 12,
        input_tokens_details: { cached_tokens: 4 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 2 },
        total_tokens: 17,
      },
    });
    expect(server.unexpected).toEqual([]);
  });

  it('delivers a function call as output_item.added then output_item.done with its JSON arguments', async () => {
    server.enqueue({
      kind: 'sse',
      events: [evCreated(), evFunctionCall('call_1', 'shell', { command: ['ls', '-la'] }), evCompleted()],
    });

    const items = (await collect()).flatMap((e) =>
      e.type === 'response.output_item.added' || e.type === 'response.output_item.done' ? [[e.type, e.item]] : [],
    );

    const call = { type: 'function_call', id: 'fc_call_1', call_id: 'call_1', name: 'shell' };
    expect(items).toEqual([
      ['response.output_item.added', { ...call, arguments: '', status: 'in_progress' }],
      ['response.output_item.done', { ...call, arguments: '{"command":["ls","-la"]}', status: 'completed' }],
    ]);
  });

  it('surfaces a scripted 401 as the SDK AuthenticationError with the body’s code', async () => {
    server.enqueue({
      kind: 'http-error',
      status: 401,
      body: {
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
      },
    });

    const error: unknown = await startStream().then(
      () => 'resolved',
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error instanceof AuthenticationError && [error.status, error.code, error.type]).toEqual([
      401,
      'invalid_api_key',
      'invalid_request_error',
    ]);
  });

  it('passes scripted headers such as retry-after-ms on a 429', async () => {
    server.enqueue({ kind: 'http-error', status: 429, headers: { 'retry-after-ms': '1500' } });

    const error: unknown = await startStream().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RateLimitError);
    expect(error instanceof RateLimitError && error.headers.get('retry-after-ms')).toBe('1500');
  });

  it('makes a cut stream an error in the iterator after the events sent, not a hang', async () => {
    server.enqueue({ kind: 'sse-cut', events: [evCreated(), evOutputTextDelta('partial')] });
    const seen: string[] = [];

    const outcome = await (async () => {
      for await (const event of await startStream()) seen.push(event.type);
      return 'ended cleanly';
    })().catch((e: unknown) => e);

    expect(seen).toEqual(['response.created', 'response.output_text.delta']);
    expect(outcome).toBeInstanceOf(TypeError);
  });

  it('makes a cut with no events a connection error before any response', async () => {
    server.enqueue({ kind: 'sse-cut', events: [] });

    await expect(startStream()).rejects.toBeInstanceOf(APIConnectionError);
  });

  it('holds a hang step open until the client aborts mid-stream, then reports the abort', async () => {
    const step = server.enqueue({ kind: 'sse-hang', events: [evCreated(), evOutputTextDelta('thinking')] });
    const abort = new AbortController();
    const seen: string[] = [];

    // The SDK treats a user abort during the body as the end of the stream, not an error.
    for await (const event of await startStream(abort.signal)) {
      seen.push(event.type);
      if (event.type === 'response.output_text.delta') abort.abort();
    }

    expect(seen).toEqual(['response.created', 'response.output_text.delta']);
    await step.whenAborted;
  });

  it('rejects the request when the client aborts a hang step that never answered', async () => {
    const step = server.enqueue({ kind: 'sse-hang', events: [] });
    const abort = new AbortController();
    const pending = startStream(abort.signal);

    await step.served;
    abort.abort();

    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
    await step.whenAborted;
  });

  it('holds sse-slow events behind a gate until the test releases it', async () => {
    const gate = createGate();
    const log: string[] = [];
    const seen = new EventEmitter();
    server.enqueue({
      kind: 'sse-slow',
      events: [evCreated(), evOutputTextDelta('a'), gate, evOutputTextDelta('b'), evCompleted()],
      beforeEach: (event) => {
        if (typeof event['delta'] === 'string') log.push(`sent ${event['delta']}`);
      },
    });
    const deltaSeen = waitFor<string>(
      (listener) => {
        seen.on('delta', listener);
        return () => seen.off('delta', listener);
      },
      (delta) => delta === 'a',
      { label: 'delta a' },
    );

    const consumed = (async () => {
      for await (const event of await startStream()) {
        if (event.type !== 'response.output_text.delta') continue;
        log.push(`got ${event.delta}`);
        seen.emit('delta', event.delta);
      }
    })();
    await deltaSeen;
    log.push('release');
    gate.release();
    await consumed;

    expect(log).toEqual(['sent a', 'got a', 'release', 'sent b', 'got b']);
  });

  it('records each request and lets a function step answer from the request body', async () => {
    server.enqueue((request) => {
      const input =
        typeof request.body === 'object' && request.body !== null && 'input' in request.body
          ? request.body.input
          : null;
      return { kind: 'sse', events: [evCreated(), evOutputTextDelta(`echo: ${String(input)}`), evCompleted()] };
    });

    const deltas = (await collect()).flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    const request = await server.waitForRequest(1);

    expect(deltas).toEqual(['echo: hi']);
    expect(request).toMatchObject({
      n: 1,
      method: 'POST',
      path: '/v1/responses',
      headers: { authorization: 'Bearer test', 'content-type': 'application/json' },
      body: { model: 'm', input: 'hi', stream: true },
    });
    expect(server.requests).toEqual([request]);
    expect(server.remainingSteps).toBe(0);
  });

  it('answers an unscripted request with a 500 naming it and lists it in unexpected', async () => {
    const error: unknown = await startStream().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InternalServerError);
    expect(String(error)).toContain('mock: no scripted response for request #1');
    expect(server.unexpected.map((r) => [r.n, r.path, r.reason])).toEqual([
      [1, '/v1/responses', 'mock: no scripted response for request #1 (POST /v1/responses)'],
    ]);
  });

  it('lists the configured models and answers unknown routes with a 404 listed in unexpected', async () => {
    server.setModels(['gpt-test', 'gpt-test-mini']);

    const models = await client.models.list();
    const unknown = await fetch(`${server.url}/nope`);

    expect(models.data.map((m) => m.id)).toEqual(['gpt-test', 'gpt-test-mini']);
    expect(unknown.status).toBe(404);
    expect(server.unexpected.map((r) => r.reason)).toEqual(['mock: no route for GET /v1/nope']);
    expect(server.requests).toEqual([]);
  });

  it('resolves waitForRequest when the n-th request arrives and rejects waiters on close', async () => {
    server.enqueueMany([
      { kind: 'sse', events: [evCreated(), evCompleted()] },
      { kind: 'sse', events: [evCreated(), evCompleted()] },
    ]);
    const second = server.waitForRequest(2);
    const third = server.waitForRequest(3);

    await collect();
    await collect();

    expect((await second).n).toBe(2);
    await server.close();
    await expect(third).rejects.toThrow('mock: server closed before request #3 arrived');
  });
});

describe('sseBody', () => {
  it('frames events as `event:` / `data:` pairs with sequence numbers in order', () => {
    expect(sseBody([evCreated('r'), evReasoning(['plan'], 'rs_9', 'enc')])).toBe(
      'event: response.created\n' +
        'data: {"type":"response.created","sequence_number":0,"response":{"id":"r","object":"response","status":"in_progress","output":[]}}\n\n' +
        'event: response.output_item.done\n' +
        'data: {"type":"response.output_item.done","sequence_number":1,"output_index":0,"item":{"type":"reasoning","id":"rs_9","summary":[{"type":"summary_text","text":"plan"}],"encrypted_content":"enc"}}\n\n',
    );
  });
});

describe('assertAllToolOutputsAnswered', () => {
  const call = (type: string, callId: string) => ({ type, call_id: callId, name: 'tool', arguments: '{}' });
  const output = (type: string, callId: string, text: string) => ({ type, call_id: callId, output: text });

  it('returns the outputs in input order when every call is answered', () => {
    const body = {
      input: [
        { type: 'message', role: 'user', content: 'go' },
        call('function_call', 'c1'),
        call('custom_tool_call', 'c2'),
        output('custom_tool_call_output', 'c2', 'patched'),
        output('function_call_output', 'c1', 'listed'),
      ],
    };

    expect(assertAllToolOutputsAnswered(body)).toEqual([
      { type: 'custom_tool_call_output', call_id: 'c2', output: 'patched' },
      { type: 'function_call_output', call_id: 'c1', output: 'listed' },
    ]);
  });

  it('names a call left unanswered and an output answering no earlier call', () => {
    const body = {
      input: [output('function_call_output', 'c0', 'early'), call('function_call', 'c0'), call('function_call', 'c9')],
    };

    expect(() => assertAllToolOutputsAnswered(body)).toThrow(
      'tool calls and outputs do not match:\n' +
        '  input[0]: function_call_output with call_id "c0" answers no earlier call\n' +
        '  input[1]: call "c0" has no function_call_output after it\n' +
        '  input[2]: call "c9" has no function_call_output after it',
    );
  });

  it('accepts a plain string input and rejects a body without input', () => {
    expect(assertAllToolOutputsAnswered({ input: 'hi' })).toEqual([]);
    expect(() => assertAllToolOutputsAnswered({ model: 'm' })).toThrow('request body is not a Responses request');
  });
});
