// What a client gets wrong neither hangs a turn nor brings the server down, over the real `weft app-server`
// and `weft serve`: an approval answered with an error is declined (the model is told, the clients are
// warned), a message nested thousands deep is refused with its id, and a request whose id is unusable
// is answered (with `id: null`) instead of being taken for a notification.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { StdioRpcClient, WsRpcClient, startWeftServe, type RpcClient } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

const env = (): Record<string, string> => ({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' });

async function stdioClient(): Promise<StdioRpcClient> {
  const client = StdioRpcClient.start(env(), ws.dir);
  cleanups.push(() => client.close());
  await client.initialize();
  return client;
}

async function connect(transport: 'stdio' | 'websocket'): Promise<RpcClient> {
  if (transport === 'stdio') return stdioClient();
  const served = await startWeftServe(env(), ws.dir);
  cleanups.push(() => served.stop());
  const client = await WsRpcClient.connect(served.wsUrl);
  cleanups.push(() => client.close());
  await client.initialize();
  return client;
}

/** `{a: {a: … {} }}`, `depth` objects deep. */
function nested(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let at = root;
  for (let i = 1; i < depth; i++) {
    const next: Record<string, unknown> = {};
    at['a'] = next;
    at = next;
  }
  return root;
}

describe('an approval answered with an error', () => {
  it('is declined once every client that could answer has failed: the turn ends, the model is told', async () => {
    server.enqueueMany([
      {
        kind: 'sse',
        events: [evCreated(), evFunctionCall('c1', 'exec_command', { cmd: 'touch refused.txt' }), evCompleted()],
      },
      { kind: 'sse', events: [evCreated(), evAssistantMessage('understood'), evCompleted()] },
    ]);
    const client = await stdioClient();
    const started = await client.request<{ thread: { id: string } }>('thread/start', {
      cwd: ws.dir,
      approvalPolicy: 'untrusted',
      sandbox: 'workspace-write',
    });
    const threadId = started.thread.id;
    const from = client.received.length;
    await client.request('turn/start', { threadId, input: [{ type: 'text', text: 'run it' }] });
    const asked = await client.serverRequest('item/commandExecution/requestApproval', from);
    client.send({ id: asked.id, error: { code: -32603, message: 'the approval dialog crashed' } });

    const done = await client.notification('turn/completed', () => true, from);
    expect(done['turn']).toMatchObject({ status: 'completed' });
    const outputs = assertAllToolOutputsAnswered(server.requests[1]?.body).map((o) => String(o.output));
    expect(outputs).toEqual(['exec command rejected by user']);
    const warnings = client.received.slice(from).filter((m) => m.method === 'warning');
    expect(warnings.map((m) => m.params)).toEqual([
      {
        threadId,
        message:
          'item/commandExecution/requestApproval was declined: every client that could answer it failed ' +
          '(stdio: the approval dialog crashed)',
      },
    ]);
    const resolved = client.received.slice(from).filter((m) => m.method === 'serverRequest/resolved');
    expect(resolved.map((m) => m.params)).toEqual([{ threadId, requestId: asked.id }]);
  });
});

describe('a config key path thousands of parts long', () => {
  it('is refused with -32602 before it becomes a table nested as deep', async () => {
    const client = await stdioClient();
    const key = Array.from({ length: 5000 }, () => 'a').join('.');
    expect(await client.call('thread/start', { cwd: ws.dir, config: { [key]: 1 } })).toEqual({
      id: expect.any(Number) as unknown,
      error: { code: -32602, message: 'params.config: a key path of 5000 parts; config keys have at most 32' },
    });
    expect(await client.call('config/value/write', { keyPath: key, value: 1 })).toEqual({
      id: expect.any(Number) as unknown,
      error: { code: -32602, message: 'params.keyPath: a key path of 5000 parts; config keys have at most 32' },
    });
    const fine = await client.call('thread/start', {
      cwd: ws.dir,
      config: { 'shell_environment_policy.inherit': 'all' },
    });
    expect(fine.error).toBeUndefined();
  });
});

describe.each(['stdio', 'websocket'] as const)('over %s', (transport) => {
  it('refuses a message nested 2,000 deep with its id and keeps serving', async () => {
    server.enqueue({ kind: 'sse', events: [evCreated(), evAssistantMessage('still here'), evCompleted()] });
    const client = await connect(transport);
    const started = await client.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    const threadId = started.thread.id;
    const deep = { x: nested(2000) };
    const cases: [string, Record<string, unknown>][] = [
      ['thread/start', { cwd: ws.dir, config: deep }],
      ['thread/resume', { threadId, config: deep }],
      ['thread/fork', { threadId, config: deep }],
    ];
    for (const [method, params] of cases) {
      const reply = await client.call(method, params);
      expect(reply).toEqual({
        id: expect.any(Number) as unknown,
        error: { code: -32600, message: 'Invalid request: the message is nested deeper than 100 levels' },
      });
    }
    // A deep message without a readable id gets `id: null`.
    const from = client.received.length;
    client.sendRaw(`${'['.repeat(5000)}${']'.repeat(5000)}\n`);
    expect(await client.waitFor((m) => m.error !== undefined, 'deep array', from)).toEqual({
      id: null,
      error: { code: -32600, message: 'Invalid request: the message is nested deeper than 100 levels' },
    });
    // Nesting within the bound is fine.
    const fine = await client.call('thread/start', { cwd: ws.dir, config: { x: nested(90) } });
    expect(fine.error).toBeUndefined();
    const turnFrom = client.received.length;
    await client.request('turn/start', { threadId, input: [{ type: 'text', text: 'still there?' }] });
    const done = await client.notification('turn/completed', () => true, turnFrom);
    expect(done['turn']).toMatchObject({ status: 'completed' });
  });

  it('answers a request whose id is an object or a fraction with -32600 and id null', async () => {
    const client = await connect(transport);
    for (const id of [{ a: 1 }, 1.5, [1], true]) {
      const from = client.received.length;
      client.send({ id, method: 'thread/list', params: {} });
      expect(await client.waitFor((m) => m.error !== undefined, `reply to id ${JSON.stringify(id)}`, from)).toEqual({
        id: null,
        error: { code: -32600, message: 'Invalid request: id must be a string or an integer' },
      });
    }
    expect(await client.request('thread/list', {})).toEqual({ data: [], nextCursor: null });
  });
});
