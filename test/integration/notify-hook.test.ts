// Codex's `notify = ["program", …]` hook: Weft calls the program with a payload of the same keys, in the same
// order and of the same types as Codex 0.169 (test/fixtures/codex-notify-0.169), from `weft exec` and from the
// app server; the program never holds up the turn and a program that cannot run is logged, not fatal.
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shapeOf } from '../support/codex-exec-fixtures';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { makeNotifyRecorder, type NotifyRecorder } from '../support/notify-program';
import { StdioRpcClient } from '../support/rpc-client';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';
import { runWeftCli, type WeftRun } from '../support/weft-cli';

const FIXTURES = resolve(__dirname, '../fixtures/codex-notify-0.169');

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let recorder: NotifyRecorder;
const cleanups: (() => Promise<void> | void)[] = [];

async function configure(notify: readonly string[]): Promise<void> {
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\nnotify = ${JSON.stringify(notify)}\n\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
}

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'alpha\n' });
  const calls = join(ws.dir, '..', `${ws.dir.split('/').pop() ?? 'ws'}-notify-calls`);
  await mkdir(calls, { recursive: true });
  recorder = await makeNotifyRecorder(calls);
  await configure(recorder.argv);
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

function runWeft(args: string[]): Promise<WeftRun> {
  return runWeftCli(args, { cwd: ws.dir, weftHome: home.dir });
}

/** Codex's recorded call: its first argument and the parsed payload. */
async function codexCall(file: string): Promise<{ first: string; payload: Record<string, unknown> }> {
  const saved = JSON.parse(await readFile(join(FIXTURES, file), 'utf8')) as { argv: [string, string] };
  return { first: saved.argv[0], payload: JSON.parse(saved.argv[1]) as Record<string, unknown> };
}

function parsePayload(argv: string[]): Record<string, unknown> {
  expect(argv).toHaveLength(2);
  return JSON.parse(argv[1] ?? '') as Record<string, unknown>;
}

/** `thread/started` and `turn/completed` of a `weft exec --json` run. */
function ids(stdout: string): { threadId: string; turnId: string } {
  let threadId = '';
  let turnId = '';
  for (const line of stdout.trim().split('\n')) {
    const n = JSON.parse(line) as { method: string; params: { threadId?: string; turn?: { id: string } } };
    if (n.method === 'turn/completed') {
      threadId = n.params.threadId ?? '';
      turnId = n.params.turn?.id ?? '';
    }
  }
  return { threadId, turnId };
}

describe('the notify program', () => {
  it('gets Codex’s payload from weft exec: the same keys in the same order, the same types', async () => {
    server.enqueueMany([
      {
        kind: 'sse',
        events: [evCreated(), evFunctionCall('c1', 'exec_command', { cmd: 'cat notes.txt' }), evCompleted()],
      },
      answerTurn('DONE: alpha'),
    ]);
    const run = await runWeft(['exec', '--json', '-s', 'workspace-write', 'RUN cat notes.txt']);
    expect(run.code).toBe(0);
    const { argv } = await recorder.call(1);
    const codex = await codexCall('exec-command.json');
    expect(argv[0]).toBe(codex.first);
    const payload = parsePayload(argv);
    expect(Object.keys(payload)).toEqual(Object.keys(codex.payload));
    expect(shapeOf(payload)).toEqual(shapeOf(codex.payload));
    const { threadId, turnId } = ids(run.stdout);
    expect(payload).toEqual({
      type: 'agent-turn-complete',
      'thread-id': threadId,
      'turn-id': turnId,
      cwd: ws.dir,
      client: 'weft_exec',
      'input-messages': ['RUN cat notes.txt'],
      'last-assistant-message': 'DONE: alpha',
    });
  });

  it('gets the app server client’s name, as Codex’s app server passes it', async () => {
    server.enqueue(answerTurn('ACK: hello from the app server'));
    const client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, ws.dir);
    cleanups.push(() => client.close());
    await client.initialize();
    const started = await client.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    const threadId = started.thread.id;
    const turn = await client.request<{ turn: { id: string } }>('turn/start', {
      threadId,
      input: [{ type: 'text', text: 'hello from the app server', text_elements: [] }],
    });
    await client.notification('turn/completed', (p) => p['threadId'] === threadId);
    const payload = parsePayload((await recorder.call(1)).argv);
    const codex = await codexCall('app-server.json');
    expect(Object.keys(payload)).toEqual(Object.keys(codex.payload));
    expect(shapeOf(payload)).toEqual(shapeOf(codex.payload));
    expect(payload).toEqual({
      type: 'agent-turn-complete',
      'thread-id': threadId,
      'turn-id': turn.turn.id,
      cwd: ws.dir,
      client: 'weft-tests',
      'input-messages': ['hello from the app server'],
      'last-assistant-message': 'ACK: hello from the app server',
    });
  });

  it('gets no key Weft holds beyond its environment: a key saved in Settings reaches neither argv nor env', async () => {
    const secret = 'sk-saved-notify-probe-8c1f';
    server.enqueue(answerTurn('Done.'));
    const client = StdioRpcClient.start({ WEFT_HOME: home.dir }, ws.dir);
    cleanups.push(() => client.close());
    await client.initialize();
    await client.request('weft/auth/setKey', { providerId: 'mock', apiKey: secret });
    const started = await client.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    await client.request('turn/start', {
      threadId: started.thread.id,
      input: [{ type: 'text', text: 'hi', text_elements: [] }],
    });
    await client.notification('turn/completed', (p) => p['threadId'] === started.thread.id);
    // The model was asked with the saved key; the program never sees it.
    expect(JSON.stringify((await server.waitForRequest(1)).headers)).toContain(secret);
    const call = await recorder.call(1);
    expect(JSON.stringify(call)).not.toContain(secret);
    expect(call.env['MOCK_API_KEY']).toBeUndefined();
  });

  it('never holds up the turn: weft exec ends while the program still runs', async () => {
    const hanging = await makeNotifyRecorder(
      join(ws.dir, '..', `${ws.dir.split('/').pop() ?? 'ws'}-notify-calls`),
      'hang',
    );
    await home.cleanup();
    await configure(hanging.argv);
    server.enqueue(answerTurn('Done.'));
    const run = await runWeft(['exec', 'hi']);
    expect(run).toMatchObject({ code: 0, stdout: 'Done.\n' });
    // The program saved its call and is still running (it never ends by itself): stop it.
    const { argv, pid } = await hanging.call(1);
    expect(argv[0]).toBe('hang');
    process.kill(pid, 0);
    process.kill(pid);
  });

  it('logs a program that cannot start, and the turn succeeds', async () => {
    await home.cleanup();
    await configure([join(ws.dir, 'no-such-notify-program')]);
    server.enqueue(answerTurn('Done.'));
    const run = await runWeft(['exec', 'hi']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Done.\n');
    expect(run.stderr).toContain(
      `weft: warning: the notify program ${JSON.stringify(join(ws.dir, 'no-such-notify-program'))} could not start: spawn ${join(ws.dir, 'no-such-notify-program')} ENOENT (check \`notify\` in config.toml)`,
    );
  });
});
