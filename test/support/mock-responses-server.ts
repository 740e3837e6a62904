// A mock OpenAI Responses API on 127.0.0.1 for tests: a real HTTP server that answers each
// `POST /v1/responses` (or `/responses`) with the next step of a FIFO script, and records every request.
// Tests script the model here and drive the real agent (through the real `openai` SDK) against `url`.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { z } from 'zod';
import { numberEvent, sseFrame } from './sse';
import type { SseEvent } from './sse';

export interface RecordedRequest {
  /** 1-based position among Responses calls; 0 for requests to other routes. */
  readonly n: number;
  readonly method: string;
  readonly path: string;
  /** Lower-cased names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body; `undefined` when the body was empty or not JSON (see `rawBody`). */
  readonly body: unknown;
  readonly rawBody: string;
}

export interface UnexpectedRequest extends RecordedRequest {
  /** Why the mock could not answer it, e.g. `mock: no scripted response for request #3`. */
  readonly reason: string;
}

/** Something an SSE step waits on before sending the events after it. */
export type Gate = PromiseLike<void> | { readonly released: PromiseLike<void> };

/** Events and gates, sent in order; a gate holds back everything after it until it settles. */
export type SseSequence = readonly (SseEvent | readonly SseEvent[] | Gate)[];

interface SseStepBase {
  events: SseSequence;
  /** Extra response headers, e.g. `x-request-id`. */
  headers?: Record<string, string>;
}

/**
 * One scripted answer.
 * - `sse`: stream the events, then end the response.
 * - `sse-slow`: as `sse`, for steps that interleave with the test: put gates (`createGate()`) between
 *   events, or give `beforeEach`, awaited before each event is sent.
 * - `sse-cut`: stream the events, then destroy the socket with no final frame (a dropped stream).
 * - `sse-hang`: stream the events, then keep the connection open until the client goes away.
 * Response headers are sent with the first event, so an `sse-cut` with no events drops the connection
 * before any response (a connection error), and an `sse-hang` with no events never answers at all.
 * - `http-error`: answer `status` with a JSON body (default: an OpenAI-style error naming the status).
 */
export type MockStep =
  | ({ kind: 'sse' } & SseStepBase)
  | ({ kind: 'sse-slow'; beforeEach?: (event: SseEvent, index: number) => PromiseLike<void> | void } & SseStepBase)
  | ({ kind: 'sse-cut' } & SseStepBase)
  | ({ kind: 'sse-hang' } & SseStepBase)
  | { kind: 'http-error'; status: number; body?: object; headers?: Record<string, string> };

/** A step, or a function choosing the step from the request it answers. */
export type ScriptStep = MockStep | ((request: RecordedRequest) => MockStep | Promise<MockStep>);

export interface StepHandle {
  /** Resolves with the request this step answered, once it arrives. */
  readonly served: Promise<RecordedRequest>;
  /** Resolves when the connection closes before the response ended: a client abort (or `sse-cut`, `close()`). */
  readonly whenAborted: Promise<void>;
}

export interface WaitOptions {
  /** Deadlock guard, not a delay: rejects after this long. Default 15 000 ms. */
  timeoutMs?: number;
}

export interface MockResponsesServer {
  /** Base URL ending in `/v1`, for `new OpenAI({ baseURL })`. */
  readonly url: string;
  /** Every Responses call (`POST …/responses`), in arrival order, scripted or not. */
  readonly requests: readonly RecordedRequest[];
  /** Requests to any other route (`GET /v1/models`, unknown paths). */
  readonly otherRequests: readonly RecordedRequest[];
  /** Requests the mock could not answer as scripted: no step left, or an unknown route (404). */
  readonly unexpected: readonly UnexpectedRequest[];
  /** Steps not yet consumed. */
  readonly remainingSteps: number;
  /** Drops the steps not yet consumed (an earlier test that scripted more than it used leaves none behind). */
  clearSteps(): void;
  enqueue(step: ScriptStep): StepHandle;
  enqueueMany(steps: readonly ScriptStep[]): StepHandle[];
  /** Model ids (or whole model objects) `GET /v1/models` lists. Default: `['mock-model']`. */
  setModels(models: readonly (string | Record<string, unknown>)[]): void;
  /** Resolves when the n-th (1-based) Responses call has arrived. */
  waitForRequest(n: number, options?: WaitOptions): Promise<RecordedRequest>;
  /** Resolves with all Responses calls once at least `n` have arrived. */
  waitForRequestCount(n: number, options?: WaitOptions): Promise<readonly RecordedRequest[]>;
  /**
   * Forgets the Responses calls recorded so far (a test sending thousands keeps its memory flat); later
   * calls keep counting from where the forgotten ones stopped, and only they can be waited for.
   */
  forgetRequests(): void;
  /** Stops listening and destroys open connections, so nothing keeps the test alive. */
  close(): Promise<void>;
}

/** Resolves when `release()` is called; put it in an `sse-slow` event list to hold the rest back. */
export interface ReleasableGate {
  readonly released: Promise<void>;
  release(): void;
}

export function createGate(): ReleasableGate {
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { released, release };
}

interface QueuedStep {
  step: ScriptStep;
  served: (request: RecordedRequest) => void;
  aborted: () => void;
}

interface Waiter {
  n: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

const DEFAULT_WAIT_MS = 15_000;

export async function startMockResponsesServer(): Promise<MockResponsesServer> {
  const script: QueuedStep[] = [];
  const requests: RecordedRequest[] = [];
  const otherRequests: RecordedRequest[] = [];
  const unexpected: UnexpectedRequest[] = [];
  const sockets = new Set<Socket>();
  let waiters: Waiter[] = [];
  let closed = false;
  /** Responses calls forgotten (`forgetRequests`): `n` and the waits count them. */
  let forgotten = 0;
  let models: readonly (string | Record<string, unknown>)[] = ['mock-model'];

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(`mock: handler failed: ${String(error)}`, 'mock_error'));
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
    const method = req.method ?? 'GET';
    const base = { method, path, headers: flattenHeaders(req), body: parseJson(rawBody), rawBody };

    if (method === 'POST' && (path === '/v1/responses' || path === '/responses')) {
      const request: RecordedRequest = { ...base, n: forgotten + requests.length + 1 };
      requests.push(request);
      notifyWaiters();
      const queued = script.shift();
      if (!queued) {
        const reason = `mock: no scripted response for request #${request.n} (${method} ${path})`;
        unexpected.push({ ...request, reason });
        sendJson(res, 500, errorBody(reason, 'mock_unscripted'));
        return;
      }
      queued.served(request);
      res.on('close', () => {
        if (!res.writableFinished) queued.aborted();
      });
      const step = typeof queued.step === 'function' ? await queued.step(request) : queued.step;
      await answer(step, res);
      return;
    }

    const request: RecordedRequest = { ...base, n: 0 };
    otherRequests.push(request);
    if (method === 'GET' && (path === '/v1/models' || path === '/models')) {
      sendJson(res, 200, { object: 'list', data: models.map(modelObject) });
      return;
    }
    const reason = `mock: no route for ${method} ${path}`;
    unexpected.push({ ...request, reason });
    sendJson(res, 404, errorBody(reason, 'mock_not_found'));
  }

  function notifyWaiters(): void {
    const ready = waiters.filter((w) => forgotten + requests.length >= w.n);
    waiters = waiters.filter((w) => forgotten + requests.length < w.n);
    for (const w of ready) w.resolve();
  }

  function waitForCount(n: number, options: WaitOptions = {}): Promise<void> {
    if (forgotten + requests.length >= n) return Promise.resolve();
    if (closed) return Promise.reject(new Error(`mock: server closed before request #${n} arrived`));
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters = waiters.filter((w) => w !== waiter);
        reject(
          new Error(
            `mock: waited ${timeoutMs} ms for Responses request #${n}, but only ${forgotten + requests.length} arrived ` +
              `(${script.length} scripted steps left). Is the client pointed at this server?`,
          ),
        );
      }, timeoutMs);
      const waiter: Waiter = {
        n,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      waiters.push(waiter);
    });
  }

  function enqueue(step: ScriptStep): StepHandle {
    let served = (_request: RecordedRequest): void => undefined;
    let aborted = (): void => undefined;
    const handle: StepHandle = {
      served: new Promise<RecordedRequest>((resolve) => (served = resolve)),
      whenAborted: new Promise<void>((resolve) => (aborted = resolve)),
    };
    script.push({ step, served, aborted });
    return handle;
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
    otherRequests,
    unexpected,
    get remainingSteps() {
      return script.length;
    },
    clearSteps: () => {
      script.length = 0;
    },
    enqueue,
    enqueueMany: (steps) => steps.map(enqueue),
    forgetRequests: () => {
      forgotten += requests.length;
      requests.length = 0;
    },
    setModels: (next) => {
      models = [...next];
    },
    waitForRequest: async (n, options) => {
      await waitForCount(n, options);
      const request = requests[n - 1 - forgotten];
      if (!request) throw new Error(`mock: request #${n} is not recorded (n is 1-based; forgotten: ${forgotten})`);
      return request;
    },
    waitForRequestCount: async (n, options) => {
      await waitForCount(n, options);
      return requests;
    },
    close: () => {
      closed = true;
      for (const w of waiters) w.reject(new Error(`mock: server closed before request #${w.n} arrived`));
      waiters = [];
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}

async function answer(step: MockStep, res: ServerResponse): Promise<void> {
  if (step.kind === 'http-error') {
    const body = step.body ?? errorBody(`mock: scripted HTTP ${step.status}`, 'mock_http_error');
    sendJson(res, step.status, body, step.headers);
    return;
  }
  // Headers go out with the first event, as from a server that has not started answering yet.
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...step.headers });
  let gone = false;
  res.once('close', () => {
    gone = true;
  });
  const beforeEach = step.kind === 'sse-slow' ? step.beforeEach : undefined;
  let sent = 0;
  for (const entry of step.events) {
    if (isGate(entry)) {
      await ('released' in entry ? entry.released : entry);
      continue;
    }
    for (const event of Array.isArray(entry) ? entry : [entry]) {
      if (beforeEach) await beforeEach(event, sent);
      if (gone) return;
      await write(res, sseFrame(numberEvent(event, sent)));
      sent += 1;
    }
  }
  if (gone) return;
  if (step.kind === 'sse' || step.kind === 'sse-slow') res.end();
  else if (step.kind === 'sse-cut') res.destroy();
  // sse-hang: leave the response open; the client's abort (or close()) ends it.
}

function isGate(entry: SseEvent | readonly SseEvent[] | Gate): entry is Gate {
  return !Array.isArray(entry) && !('type' in entry && typeof entry.type === 'string');
}

function write(res: ServerResponse, chunk: string): Promise<void> {
  return new Promise<void>((resolve) => {
    // A write to a connection the client has just closed fails; the step then stops at the next check.
    res.write(chunk, () => resolve());
  });
}

function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function errorBody(message: string, code: string): object {
  return { error: { message, type: 'mock_error', param: null, code } };
}

function modelObject(model: string | Record<string, unknown>): Record<string, unknown> {
  return typeof model === 'string' ? { id: model, object: 'model', created: 0, owned_by: 'mock' } : model;
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

const CALL_TYPES: Readonly<Record<string, string>> = {
  function_call: 'function_call_output',
  custom_tool_call: 'custom_tool_call_output',
};

const inputItemSchema = z.looseObject({ type: z.string().optional(), call_id: z.string().optional() });
const requestBodySchema = z.looseObject({ input: z.union([z.string(), z.array(inputItemSchema)]) });

export interface ToolOutputItem {
  readonly type: 'function_call_output' | 'custom_tool_call_output';
  readonly call_id: string;
  readonly output: unknown;
}

/**
 * Checks a Responses request body the way the real API would: every `function_call` /
 * `custom_tool_call` in `input` has a matching `*_output` (same `call_id`) later in `input`, and every
 * output answers an earlier call. Throws an error naming the offending items; returns the outputs in
 * input order.
 */
export function assertAllToolOutputsAnswered(body: unknown): ToolOutputItem[] {
  const parsed = requestBodySchema.safeParse(body);
  if (!parsed.success) {
    throw new Error(`request body is not a Responses request with an \`input\`: ${parsed.error.message}`);
  }
  const input = parsed.data.input;
  if (typeof input === 'string') return [];

  const problems: string[] = [];
  const open = new Map<string, { index: number; outputType: string }>();
  const outputs: ToolOutputItem[] = [];
  input.forEach((item, index) => {
    const type = item.type ?? 'message';
    const outputType = CALL_TYPES[type];
    if (outputType !== undefined) {
      if (item.call_id === undefined) problems.push(`input[${index}]: ${type} has no call_id`);
      else open.set(item.call_id, { index, outputType });
      return;
    }
    if (type !== 'function_call_output' && type !== 'custom_tool_call_output') return;
    const call = item.call_id === undefined ? undefined : open.get(item.call_id);
    if (item.call_id === undefined || call === undefined || call.outputType !== type) {
      problems.push(`input[${index}]: ${type} with call_id ${JSON.stringify(item.call_id)} answers no earlier call`);
      return;
    }
    open.delete(item.call_id);
    outputs.push({ type, call_id: item.call_id, output: item['output'] });
  });
  for (const [callId, call] of open) {
    problems.push(`input[${call.index}]: call ${JSON.stringify(callId)} has no ${call.outputType} after it`);
  }
  if (problems.length > 0) throw new Error(`tool calls and outputs do not match:\n  ${problems.join('\n  ')}`);
  return outputs;
}

/**
 * A Weft home's config whose model is on the mock Responses server at `url` (its key in MOCK_API_KEY);
 * commands never ask, and write the workspace; a failed model request is retried `maxRetries` times.
 */
export function mockModelConfig(url: string, maxRetries = 0): string {
  return [
    'model = "mock-model"',
    'model_provider = "mock"',
    'approval_policy = "never"',
    'sandbox_mode = "workspace-write"',
    '[model_providers.mock]',
    'name = "Mock"',
    `base_url = "${url}"`,
    'env_key = "MOCK_API_KEY"',
    'wire_api = "responses"',
    `request_max_retries = ${maxRetries}`,
    '',
  ].join('\n');
}
