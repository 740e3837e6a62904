// A mock OpenAI Chat Completions API on 127.0.0.1 for tests: a real HTTP server that answers each
// `POST /v1/chat/completions` (or `/chat/completions`) with the next step of a FIFO script, streamed as
// `data: {chunk}\n\n` frames, and records every request. Chunk builders (`chatText`, `chatToolCall`, …)
// produce the shapes real providers send.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface RecordedChatRequest {
  /** 1-based position among chat calls. */
  readonly n: number;
  readonly path: string;
  /** Lower-cased names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body; `undefined` when it was empty or not JSON. */
  readonly body: unknown;
}

/** One streamed chunk (`chat.completion.chunk`), as a plain object. */
export type ChatChunkJson = Readonly<Record<string, unknown>>;

/**
 * One scripted answer.
 * - `sse`: stream the chunks, then `data: [DONE]` (unless `done: false`), then end the response.
 * - `sse-cut`: stream the chunks, then destroy the socket (a dropped stream; with no chunks, the
 *   connection drops before any response).
 * - `sse-hang`: stream the chunks, then keep the connection open until the client goes away.
 * - `http-error`: answer `status` with a JSON body (default: an OpenAI-style error naming the status).
 */
export type ChatStep =
  | { kind: 'sse'; chunks: readonly ChatChunkJson[]; done?: boolean }
  | { kind: 'sse-cut'; chunks: readonly ChatChunkJson[] }
  | { kind: 'sse-hang'; chunks: readonly ChatChunkJson[] }
  | { kind: 'http-error'; status: number; body?: object; headers?: Record<string, string> };

export interface MockChatServer {
  /** Base URL ending in `/v1`. */
  readonly url: string;
  /** Every chat call, in arrival order. */
  readonly requests: readonly RecordedChatRequest[];
  /** Requests the mock could not answer: no step left, or another route. */
  readonly unexpected: readonly string[];
  enqueue(step: ChatStep): void;
  /** Stops listening and destroys open connections. */
  close(): Promise<void>;
}

export const CHUNK_ID = 'chatcmpl-mock';

export async function startMockChatServer(): Promise<MockChatServer> {
  const script: ChatStep[] = [];
  const requests: RecordedChatRequest[] = [];
  const unexpected: string[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(`mock: handler failed: ${String(error)}`));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions')) {
      unexpected.push(`mock: no route for ${req.method ?? '?'} ${path}`);
      sendJson(res, 404, errorBody(`mock: no route for ${req.method ?? '?'} ${path}`));
      return;
    }
    const n = requests.length + 1;
    requests.push({ n, path, headers: flattenHeaders(req), body: parseJson(rawBody) });
    const step = script.shift();
    if (!step) {
      unexpected.push(`mock: no scripted response for chat request #${n}`);
      sendJson(res, 500, errorBody(`mock: no scripted response for chat request #${n}`));
      return;
    }
    await answer(step, res);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('mock: server has no TCP address');

  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    requests,
    unexpected,
    enqueue: (step) => {
      script.push(step);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

async function answer(step: ChatStep, res: ServerResponse): Promise<void> {
  if (step.kind === 'http-error') {
    sendJson(res, step.status, step.body ?? errorBody(`mock: scripted HTTP ${step.status}`), step.headers);
    return;
  }
  if (step.kind === 'sse-cut' && step.chunks.length === 0) {
    res.destroy();
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const chunk of step.chunks) await write(res, `data: ${JSON.stringify(chunk)}\n\n`);
  if (step.kind === 'sse') {
    if (step.done !== false) await write(res, 'data: [DONE]\n\n');
    res.end();
  } else if (step.kind === 'sse-cut') {
    res.destroy();
  }
  // sse-hang: left open; the client's abort (or close()) ends it.
}

// ---- chunk builders -------------------------------------------------------------------------------

/** A chunk whose only choice carries `delta` (and `finish_reason`, null unless given). */
export function chatChunk(delta: Record<string, unknown>, finishReason: string | null = null): ChatChunkJson {
  return {
    id: CHUNK_ID,
    object: 'chat.completion.chunk',
    created: 0,
    model: 'mock-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

/** The first chunk real servers send: the role, no content. */
export function chatRole(): ChatChunkJson {
  return chatChunk({ role: 'assistant', content: '' });
}

export function chatText(text: string): ChatChunkJson {
  return chatChunk({ content: text });
}

/** A tool-call delta; `id`/`name` belong in the call's first chunk, `args` is a piece of the JSON text. */
export function chatToolCall(index: number, part: { id?: string; name?: string; args?: string }): ChatChunkJson {
  const fn: Record<string, string> = {};
  if (part.name !== undefined) fn['name'] = part.name;
  if (part.args !== undefined) fn['arguments'] = part.args;
  const call: Record<string, unknown> = { index, function: fn };
  if (part.id !== undefined) {
    call['id'] = part.id;
    call['type'] = 'function';
  }
  return chatChunk({ tool_calls: [call] });
}

/** The chunk carrying `finish_reason` ("stop", "tool_calls", "length", …) and an empty delta. */
export function chatFinish(reason: string): ChatChunkJson {
  return chatChunk({}, reason);
}

/** The usage-only chunk sent last when `stream_options.include_usage` is set. */
export function chatUsage(usage: {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
  /** Sent as Anthropic-style `cache_creation_input_tokens` (part of `prompt_tokens`), when given. */
  cache_creation_input_tokens?: number;
  /** Sent as OpenAI's `prompt_tokens_details.cache_write_tokens`, when given. */
  cache_write_tokens?: number;
}): ChatChunkJson {
  return {
    id: CHUNK_ID,
    object: 'chat.completion.chunk',
    created: 0,
    model: 'mock-model',
    choices: [],
    usage: {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
      prompt_tokens_details: {
        cached_tokens: usage.cached_tokens ?? 0,
        ...(usage.cache_write_tokens === undefined ? {} : { cache_write_tokens: usage.cache_write_tokens }),
      },
      completion_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
      ...(usage.cache_creation_input_tokens === undefined
        ? {}
        : { cache_creation_input_tokens: usage.cache_creation_input_tokens }),
    },
  };
}

// ---- plumbing -------------------------------------------------------------------------------------

function write(res: ServerResponse, chunk: string): Promise<void> {
  return new Promise<void>((resolve) => {
    res.write(chunk, () => resolve());
  });
}

function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function errorBody(message: string): object {
  return { error: { message, type: 'mock_error', param: null, code: null } };
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
