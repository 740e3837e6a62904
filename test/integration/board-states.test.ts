// The board's states over the real `weft serve`: what a client that never watched a thread learns of it
// — from the statuses every client is told and from `thread/list` — while three threads run at once.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createGate,
  startMockResponsesServer,
  type MockResponsesServer,
  type MockStep,
} from '../support/mock-responses-server';
import { WsRpcClient, startWeftServe, type RpcMessage } from '../support/rpc-client';
import { scriptByPrompt } from '../support/script-by-prompt';
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
    [
      'model = "mock-model"',
      'model_provider = "mock"',
      'approval_policy = "untrusted"',
      'sandbox_mode = "danger-full-access"',
      '[model_providers.mock]',
      'name = "Mock"',
      `base_url = "${server.url}"`,
      'env_key = "MOCK_API_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      '',
    ].join('\n'),
  );
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

/** `weft serve` on the home, with two windows: one that works, one that only lists and listens. */
async function serveTwoClients(): Promise<{ driver: WsRpcClient; observer: WsRpcClient; stop(): Promise<void> }> {
  const served = await startWeftServe({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
  cleanups.push(() => served.stop());
  const driver = await WsRpcClient.connect(served.wsUrl);
  cleanups.push(() => driver.close());
  const observer = await WsRpcClient.connect(served.wsUrl);
  cleanups.push(() => observer.close());
  await driver.initialize();
  await observer.initialize();
  // The observer lists first, as a window does: from then on it hears of every thread.
  await observer.request('thread/list', { cwd: ws.dir });
  return { driver, observer, stop: () => served.stop() };
}

interface Listed {
  id: string;
  status: { type: string };
  weftReadState?: ReadState;
  weftLastTurnStatus?: string;
}

interface ReadState {
  firstUnread: { type: string; turnId?: string } | null;
  revision: string;
}

async function listed(client: WsRpcClient, threadId: string): Promise<Listed | undefined> {
  const { data } = await client.request<{ data: Listed[] }>('thread/list', { cwd: ws.dir });
  return data.find((t) => t.id === threadId);
}

describe('a failed turn', () => {
  it('leaves the thread `systemError` (as Codex reports it) for every client and in the list', async () => {
    const { driver, observer } = await serveTwoClients();
    server.enqueueMany([
      { kind: 'sse', events: [evCreated(), evAssistantMessage('seeded'), evCompleted()] },
      { kind: 'http-error', status: 400 },
    ]);
    const { thread } = await driver.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    const threadId = thread.id;
    let from = driver.received.length;
    await driver.request('turn/start', { threadId, input: [{ type: 'text', text: 'seed' }] });
    await driver.notification('turn/completed', (p) => p['threadId'] === threadId, from);
    expect((await listed(observer, threadId))?.status).toEqual({ type: 'idle' });

    const heard = observer.received.length;
    from = driver.received.length;
    await driver.request('turn/start', { threadId, input: [{ type: 'text', text: 'fail' }] });
    const done = await driver.notification('turn/completed', (p) => p['threadId'] === threadId, from);
    expect((done['turn'] as { status: string }).status).toBe('failed');
    // The window that never watched the thread is told it failed, and its list says so.
    await observer.notification(
      'thread/status/changed',
      (p) => p['threadId'] === threadId && (p['status'] as { type: string }).type === 'systemError',
      heard,
    );
    expect((await listed(observer, threadId))?.status).toEqual({ type: 'systemError' });

    // The next turn that ends well clears it.
    server.enqueue({ kind: 'sse', events: [evCreated(), evAssistantMessage('fine'), evCompleted()] });
    from = driver.received.length;
    await driver.request('turn/start', { threadId, input: [{ type: 'text', text: 'again' }] });
    await driver.notification('turn/completed', (p) => p['threadId'] === threadId, from);
    expect((await listed(observer, threadId))?.status).toEqual({ type: 'idle' });
  });
});

const answer = (text: string): MockStep => ({
  kind: 'sse',
  events: [evCreated(), evAssistantMessage(text), evCompleted()],
});
const command = (callId: string, cmd: string): MockStep => ({
  kind: 'sse',
  events: [evCreated(), evFunctionCall(callId, 'exec_command', { cmd, yield_time_ms: 30_000 }), evCompleted()],
});

/** The last status each thread was told to have, by thread id. */
function statuses(client: WsRpcClient): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const n of client.notifications('thread/status/changed')) out[String(n['threadId'])] = n['status'];
  return out;
}

/** The last read state each thread was told to have, by thread id. */
function readStates(client: WsRpcClient): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const n of client.notifications('thread/readState/changed')) out[String(n['threadId'])] = n['readState'];
  return out;
}

/** Resolves once `check` holds of what the client has heard (checked at each message it receives). */
function until(client: WsRpcClient, label: string, check: () => boolean): Promise<RpcMessage> {
  return client.waitFor(() => check(), label);
}

/** What `thread/list` says of each thread, by id: its status, how its last turn ended, its read state. */
async function board(client: WsRpcClient, ids: Record<string, string>): Promise<Record<string, unknown>> {
  const { data } = await client.request<{ data: Listed[] }>('thread/list', { cwd: ws.dir });
  const out: Record<string, unknown> = {};
  for (const [name, id] of Object.entries(ids)) {
    const t = data.find((thread) => thread.id === id);
    out[name] = t && { status: t.status, last: t.weftLastTurnStatus, read: t.weftReadState };
  }
  return out;
}

describe('the board', () => {
  it('follows three threads at once for a window that watches none of them, and keeps what is unread', async () => {
    execFileSync('mkfifo', [ws.path('hold')]);
    const { driver, observer, stop } = await serveTwoClients();
    const thinking = createGate();
    scriptByPrompt(server, {
      // Asks to run a command and waits for the approval.
      'Task alpha': [command('call_a', 'touch alpha.txt'), answer('alpha done')],
      // Runs a command (no approval asked) that waits on the FIFO.
      'Task beta': [command('call_b', 'cat hold'), answer('beta done')],
      // The model thinks until the test lets it fail.
      'Task gamma': [
        async (): Promise<MockStep> => {
          await thinking.released;
          return { kind: 'http-error', status: 400 };
        },
      ],
    });
    const start = async (prompt: string, params: Record<string, unknown> = {}): Promise<string> => {
      const { thread } = await driver.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir, ...params });
      await driver.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: prompt }] });
      return thread.id;
    };
    const alpha = await start('Task alpha');
    const beta = await start('Task beta', { approvalPolicy: 'never' });
    const gamma = await start('Task gamma');
    const ids = { alpha, beta, gamma };

    const running = {
      [alpha]: {
        type: 'active',
        activeFlags: ['waitingOnApproval'],
        weftStep: { type: 'command', command: 'touch alpha.txt' },
      },
      [beta]: { type: 'active', activeFlags: [], weftStep: { type: 'command', command: 'cat hold' } },
      [gamma]: { type: 'active', activeFlags: [], weftStep: { type: 'thinking' } },
    };
    await until(
      observer,
      'three threads running',
      () => JSON.stringify(statuses(observer)) === JSON.stringify(running),
    );
    expect(await board(observer, ids)).toEqual({
      alpha: { status: running[alpha], last: 'inProgress', read: undefined },
      beta: { status: running[beta], last: 'inProgress', read: undefined },
      gamma: { status: running[gamma], last: 'inProgress', read: undefined },
    });
    // The approval itself went to the window that started the thread, not to the observer.
    const approval = await driver.serverRequest('item/commandExecution/requestApproval');
    expect(observer.received.some((m) => m.method === 'item/commandExecution/requestApproval')).toBe(false);

    // Each ends its own way; the observer is told, and the list says so.
    driver.send({ id: approval.id, result: { decision: 'accept' } });
    await writeFile(ws.path('hold'), 'go\n');
    thinking.release();
    const turnIdOf = async (threadId: string): Promise<string> => {
      const done = await driver.notification('turn/completed', (p) => p['threadId'] === threadId);
      return (done['turn'] as { id: string }).id;
    };
    const turns = { alpha: await turnIdOf(alpha), beta: await turnIdOf(beta), gamma: await turnIdOf(gamma) };
    const unread = (turnId: string): ReadState => ({ firstUnread: { type: 'turn', turnId }, revision: '1' });
    await until(observer, 'three threads ended', () => {
      const s = statuses(observer);
      const r = readStates(observer);
      return (
        JSON.stringify([s[alpha], s[beta], s[gamma], r[alpha], r[beta], r[gamma]]) ===
        JSON.stringify([
          { type: 'idle' },
          { type: 'idle' },
          { type: 'systemError' },
          unread(turns.alpha),
          unread(turns.beta),
          unread(turns.gamma),
        ])
      );
    });
    const ended = {
      alpha: { status: { type: 'idle' }, last: 'completed', read: unread(turns.alpha) },
      beta: { status: { type: 'idle' }, last: 'completed', read: unread(turns.beta) },
      gamma: { status: { type: 'systemError' }, last: 'failed', read: unread(turns.gamma) },
    };
    expect(await board(observer, ids)).toEqual(ended);

    // The observer reads alpha: with the revision it was shown, once; a stale revision is refused. Reading
    // is no change to the thread: it keeps its place in the lists (its updatedAt).
    const updatedAt = async (threadId: string): Promise<number | undefined> => {
      const { data } = await observer.request<{ data: { id: string; updatedAt: number }[] }>('thread/list', {
        cwd: ws.dir,
      });
      return data.find((t) => t.id === threadId)?.updatedAt;
    };
    const alphaUpdated = await updatedAt(alpha);
    const marked = await observer.request<{ readState: ReadState }>('thread/readState/update', {
      threadId: alpha,
      expectedRevision: '1',
      operation: { type: 'read' },
    });
    expect(marked).toEqual({ readState: { firstUnread: null, revision: '2' } });
    await driver.notification(
      'thread/readState/changed',
      (p) => p['threadId'] === alpha && (p['readState'] as ReadState).revision === '2',
    );
    const stale = await observer.call('thread/readState/update', {
      threadId: alpha,
      expectedRevision: '1',
      operation: { type: 'unread' },
    });
    expect(stale.error?.code).toBe(-32010);
    expect(stale.error?.message).toContain('revision 1, now 2');
    expect(await driver.request('thread/read', { threadId: alpha })).toMatchObject({
      readState: { firstUnread: null, revision: '2' },
    });
    expect(await updatedAt(alpha)).toBe(alphaUpdated);

    // After a restart (nothing loaded) with the index built anew from the rollouts, the list still knows
    // what is unread and which turn failed, and alpha was last changed when its turn ended.
    await stop();
    rmSync(join(home.dir, 'weft.sqlite'));
    const again = await serveTwoClients();
    const first = await again.observer.request<{ weftIndexing?: boolean }>('thread/list', { cwd: ws.dir });
    if (first.weftIndexing === true) await again.observer.notification('weft/threads/indexed');
    const { data: relisted } = await again.observer.request<{ data: { id: string; updatedAt: number }[] }>(
      'thread/list',
      { cwd: ws.dir },
    );
    expect(relisted.find((t) => t.id === alpha)?.updatedAt).toBe(alphaUpdated);
    expect(await board(again.observer, ids)).toEqual({
      alpha: { status: { type: 'notLoaded' }, last: 'completed', read: { firstUnread: null, revision: '2' } },
      beta: { ...ended.beta, status: { type: 'notLoaded' } },
      gamma: { ...ended.gamma, status: { type: 'notLoaded' } },
    });
  });
});
