// Pinned threads (`weft/thread/pin`) over the real `weft app-server`: the flag is appended to the thread's
// rollout and read back by every reader — the list (the index), a read of the rollout, a resume — in the
// same server, after a restart, and after the index is rebuilt from the rollouts; unpinning is appended
// too, and a fork does not inherit the pin.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
const clients: StdioRpcClient[] = [];

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
});

afterEach(async () => {
  for (const client of clients.splice(0).reverse()) await client.close();
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

/** A `weft app-server` of this home (the one before it, if any, is stopped first: a restart). */
async function appServer(): Promise<StdioRpcClient> {
  for (const client of clients.splice(0).reverse()) await client.close();
  const client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
  clients.push(client);
  await client.initialize();
  return client;
}

interface ThreadShape {
  id: string;
  name: string | null;
  preview: string;
  weftPinned?: boolean;
  path: string | null;
}

/** A thread with one finished turn. */
async function threadSaying(client: StdioRpcClient, text: string): Promise<string> {
  server.enqueue({ kind: 'sse', events: [evCreated(), evAssistantMessage(`re: ${text}`), evCompleted()] });
  const { thread } = await client.request<{ thread: ThreadShape }>('thread/start', { cwd: ws.dir });
  const from = client.received.length;
  await client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text }] });
  await client.notification('turn/completed', (p) => p['threadId'] === thread.id, from);
  return thread.id;
}

/** The pin flag as each reader gives it: `thread/list` (the index), `thread/read` with turns, `thread/resume`. */
async function pins(client: StdioRpcClient, ids: string[]): Promise<Record<string, unknown>> {
  const { data } = await client.request<{ data: ThreadShape[] }>('thread/list', { cwd: ws.dir });
  const out: Record<string, unknown> = {};
  for (const id of ids) {
    const listed = data.find((t) => t.id === id);
    const read = await client.request<{ thread: ThreadShape }>('thread/read', { threadId: id, includeTurns: true });
    const resumed = await client.request<{ thread: ThreadShape }>('thread/resume', { threadId: id });
    out[id] = { list: listed?.weftPinned, read: read.thread.weftPinned, resume: resumed.thread.weftPinned };
  }
  return out;
}

const pinned = { list: true, read: true, resume: true };
const notPinned = { list: undefined, read: undefined, resume: undefined };

describe('weft/thread/pin', () => {
  it('keeps the pin in the rollout, read back by every reader, after a restart and a rebuilt index, until unpinned', async () => {
    let client = await appServer();
    const first = await threadSaying(client, 'first thread');
    const second = await threadSaying(client, 'second thread');

    const answered = await client.request<{ thread: ThreadShape }>('weft/thread/pin', {
      threadId: first,
      pinned: true,
    });
    expect(answered.thread).toMatchObject({ id: first, preview: 'first thread', weftPinned: true });
    // Pinning again changes nothing and writes nothing.
    await client.request('weft/thread/pin', { threadId: first, pinned: true });
    expect(await pins(client, [first, second])).toEqual({ [first]: pinned, [second]: notPinned });

    client = await appServer();
    expect(await pins(client, [first, second])).toEqual({ [first]: pinned, [second]: notPinned });

    // The index is derived: rebuilt from the rollouts, it says the same.
    await clients.splice(0)[0]?.close();
    rmSync(join(home.dir, 'weft.sqlite'));
    client = await appServer();
    // A list answers without waiting long for a new index (a busy machine may not have indexed both yet):
    // once the rebuild has listed both, the pin is what it says.
    const fresh = client;
    await expect
      .poll(
        async () =>
          (await fresh.request<{ data: ThreadShape[] }>('thread/list', { cwd: ws.dir })).data.map((t) => t.id).sort(),
        { timeout: 15_000 },
      )
      .toEqual([first, second].sort());
    expect(await pins(client, [first, second])).toEqual({ [first]: pinned, [second]: notPinned });

    const unpinned = await client.request<{ thread: ThreadShape }>('weft/thread/pin', {
      threadId: first,
      pinned: false,
    });
    expect(unpinned.thread.id).toBe(first);
    expect(unpinned.thread).not.toHaveProperty('weftPinned');
    expect(await pins(client, [first, second])).toEqual({ [first]: notPinned, [second]: notPinned });
    client = await appServer();
    expect(await pins(client, [first, second])).toEqual({ [first]: notPinned, [second]: notPinned });

    // Append-only: the rollout holds the pin and the unpin, once each.
    const path = answered.thread.path ?? '';
    const events = readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; payload: { type?: string; pinned?: boolean } })
      .filter((line) => line.type === 'event_msg' && line.payload.type === 'weft_thread_pinned')
      .map((line) => line.payload);
    expect(events).toEqual([
      { type: 'weft_thread_pinned', pinned: true },
      { type: 'weft_thread_pinned', pinned: false },
    ]);
  });

  it('does not pin a fork of a pinned thread, and refuses a thread that does not exist', async () => {
    const client = await appServer();
    const source = await threadSaying(client, 'to be forked');
    await client.request('weft/thread/pin', { threadId: source, pinned: true });
    const { thread: fork } = await client.request<{ thread: ThreadShape }>('thread/fork', { threadId: source });
    expect(fork.weftPinned).toBeUndefined();
    expect(await pins(client, [source, fork.id])).toEqual({ [source]: pinned, [fork.id]: notPinned });

    const missing = await client.call('weft/thread/pin', {
      threadId: '0190aaaa-0000-7000-8000-000000000000',
      pinned: true,
    });
    expect(missing.error).toMatchObject({ code: -32602 });
  });
});
