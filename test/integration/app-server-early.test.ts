// `weft app-server` answers `initialize` and `thread/list` before the rest of its host (the approval
// rules, the checkpoints with the config's limits, the handlers of every other method and the modules
// they import) is assembled; a request that needs the rest waits for it and is then answered as usual.
// The rest is held by a config.toml that is a FIFO: reading it (the checkpoints' limits) waits until the
// test writes the config, while the server keeps answering the lists.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { saveThreads } from '../support/saved-threads';
import { evAssistantMessage, evCompleted, evCreated } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let home: WeftHome;
let ws: TempWorkspace;
let model: MockResponsesServer;
let client: StdioRpcClient | null = null;
/** Writes the config into the FIFO (once), which lets the rest of the host go on. */
let release: (() => Promise<void>) | null = null;

beforeEach(async () => {
  home = await makeWeftHome();
  ws = await makeTempWorkspace({ 'README.md': 'hello\n' });
  model = await startMockResponsesServer();
});

afterEach(async () => {
  await release?.();
  release = null;
  await client?.close();
  client = null;
  await model.close();
  await ws.cleanup();
  await home.cleanup();
});

function configText(): string {
  return `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${model.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`;
}

/**
 * Makes WEFT_HOME/config.toml a FIFO; `release` writes the config into it for the reader waiting there,
 * then puts a file with the same config in its place for every later read.
 */
function holdConfig(): void {
  const fifo = join(home.dir, 'config.toml');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  release = async () => {
    release = null;
    const handle = await open(fifo, 'w');
    await handle.writeFile(configText());
    await handle.close();
    const file = join(home.dir, 'config.toml.next');
    writeFileSync(file, configText());
    renameSync(file, fifo);
  };
}

describe.runIf(process.platform === 'linux')('weft app-server before the rest of its host is assembled', () => {
  it('lists every thread, holds a thread/start until the rest is there, then starts it', async () => {
    const saved = await saveThreads(home.dir, ws.dir, ['first question', 'second question', 'third question']);
    holdConfig();
    const server = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
    client = server;
    await server.initialize();
    const listed = await server.request<{ data: { id: string; preview: string }[] }>('thread/list', {});
    expect(listed.data.map((t) => t.id)).toEqual(saved.map((t) => t.id).reverse());
    expect(listed.data.map((t) => t.preview)).toEqual(['third question', 'second question', 'first question']);

    // A request for the rest of the host waits for it: a list sent after it is answered first.
    model.enqueue({ kind: 'sse', events: [evCreated(), evAssistantMessage('Hello back'), evCompleted()] });
    const started = server.call('thread/start', { cwd: ws.dir });
    let startAnswered = false;
    void started.then(() => (startAnswered = true));
    const again = await server.request<{ data: unknown[] }>('thread/list', {});
    expect(again.data).toHaveLength(3);
    expect(startAnswered).toBe(false);

    // The config arrives: the rest is assembled with it, and the thread starts and runs a turn.
    await release?.();
    const response = await started;
    expect(response.error).toBeUndefined();
    const threadId = (response.result as { thread: { id: string } }).thread.id;
    await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'hello' }] });
    const done = await server.notification('turn/completed', (p) => JSON.stringify(p).includes(threadId));
    expect(JSON.stringify(done)).toContain('completed');
    const after = await server.request<{ data: { id: string }[] }>('thread/list', {});
    expect(after.data.map((t) => t.id)).toContain(threadId);
    expect(after.data).toHaveLength(4);
  });

  it('answers nothing before an Undo that a crash cut short is finished', async () => {
    // A journal left in the checkpoints' restores folder (torn: it is dropped when read) makes the host
    // assemble everything before it answers.
    const journals = join(home.dir, 'checkpoints', 'restores');
    mkdirSync(journals, { recursive: true });
    writeFileSync(join(journals, 'torn.json'), '{');
    holdConfig();
    const server = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
    client = server;
    const initialized = server.initialize();
    let answered = false;
    void initialized.then(() => (answered = true));
    // The server reads the held config (the rest of its host) before it answers initialize.
    await expect.poll(() => readsFifo(server.child.pid ?? 0), { timeout: 15_000 }).toBe(true);
    expect(answered).toBe(false);
    await release?.();
    await initialized;
    expect((await server.request<{ data: unknown[] }>('thread/list', {})).data).toEqual([]);
  });
});

/** Whether some thread of process `pid` waits in open() for the other end of a FIFO. */
function readsFifo(pid: number): boolean {
  return readdirSync(`/proc/${pid}/task`).some((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/wchan`, 'utf8').trim() === 'wait_for_partner';
    } catch {
      return false; // the thread ended meanwhile
    }
  });
}
