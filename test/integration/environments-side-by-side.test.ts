// One host for this machine and an environment beside it (`faces/remote/environment-router.ts`): the
// `weft app-server` a window talks to lists local and remote threads, each remote one marked with its
// environment, completes folders there, and runs a turn there with its approval answered here. The
// environment is the `command` form, a local pipe to this checkout's `weft app-server` under its own
// WEFT_HOME and HOME, as `kubectl exec -i` would be.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childProcesses, cliEnv, remoteWeft, stopUserServer, WEFT_BIN, relayPipes } from '../support/environments';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { startInProcessHost } from '../support/in-process-host';
import { StdioRpcClient } from '../support/rpc-client';
import { answerTurn, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let here: TempWorkspace;
let there: TempWorkspace;
let remoteUserHome: TempWorkspace;
let remote: WeftHome;
let local: WeftHome;
const clients: StdioRpcClient[] = [];
const blockFile = (): string => join(remoteUserHome.dir, 'flaky-is-down');

const MOCK_MODEL = (url: string): string =>
  `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`;

beforeAll(async () => {
  server = await startMockResponsesServer();
  here = await makeTempWorkspace({ 'here.txt': 'local\n' });
  there = await makeTempWorkspace({ 'there.txt': 'remote\n' });
  remoteUserHome = await makeTempWorkspace({ 'src/app/README': 'x\n', 'srv/README': 'y\n' });
  remote = await makeWeftHome(MOCK_MODEL(server.url));
  const pipe = `HOME=${remoteUserHome.dir} ${remoteWeft(remote.dir)} app-server`;
  // `flaky` is unreachable while its block file exists, as a host that is down would be.
  const flaky = `[ -e ${blockFile()} ] && { echo "flaky is unreachable" >&2; exit 1; }; exec env ${remoteWeft(remote.dir)} app-server`;
  local = await makeWeftHome(
    [
      MOCK_MODEL(server.url),
      '[environments.pipe]',
      `command = ["sh", "-c", ${JSON.stringify(pipe)}]`,
      '[environments.flaky]',
      `command = ["sh", "-c", ${JSON.stringify(flaky)}]`,
      '[environments.attached] # through the per-user server there, which outlives the pipe',
      `command = ["sh", "-c", ${JSON.stringify(`exec env HOME=${remoteUserHome.dir} ${remoteWeft(remote.dir)} app-server --attach`)}]`,
      '',
    ].join('\n'),
  );
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

afterAll(async () => {
  await stopUserServer(remote.dir);
  await server.close();
  for (const dir of [here, there, remoteUserHome]) await dir.cleanup();
  await remote.cleanup();
  await local.cleanup();
});

/** This machine's `weft app-server`, the host a window talks to. */
async function localHost(): Promise<StdioRpcClient> {
  const child = spawn(process.execPath, [WEFT_BIN, 'app-server'], {
    cwd: here.dir,
    env: cliEnv(local.dir, { WEFT_RELAY_MAX_DELAY_MS: '300', WEFT_RELAY_MAX_ATTEMPTS: '2' }),
  });
  const client = StdioRpcClient.attach(child);
  clients.push(client);
  await client.initialize();
  return client;
}

interface ListedThread {
  id: string;
  cwd: string;
  path: string;
  weftEnvironment?: string;
}

describe('local and remote projects through one host', () => {
  it('lists both, completes folders there, and runs a turn there with its approval answered here', async () => {
    const client = await localHost();
    expect(await client.request('weft/environment/list')).toEqual({
      data: [
        { name: 'attached', kind: 'command', destination: null },
        { name: 'flaky', kind: 'command', destination: null },
        { name: 'pipe', kind: 'command', destination: null },
      ],
    });
    // `~` is the remote user's home there, and the folders completed are the remote's.
    expect(await client.request('weft/fs/complete', { path: '~/s', weftEnvironment: 'pipe' })).toEqual({
      resolved: `${remoteUserHome.dir}/s`,
      kind: 'missing',
      completions: [`${remoteUserHome.dir}/src`, `${remoteUserHome.dir}/srv`],
    });

    // A thread here: unmarked, its rollout in the local WEFT_HOME.
    server.enqueue(answerTurn('answered here'));
    const { thread: mine } = await client.request<{ thread: ListedThread }>('thread/start', {
      cwd: here.dir,
      approvalPolicy: 'never',
    });
    expect(mine.weftEnvironment).toBeUndefined();
    expect(mine.path.startsWith(local.dir)).toBe(true);
    await client.request('turn/start', { threadId: mine.id, input: [{ type: 'text', text: 'hi here' }] });
    await client.notification('turn/completed', (p) => p['threadId'] === mine.id);

    // A thread there: marked with its environment, its rollout in the remote's WEFT_HOME.
    server.enqueueMany([
      {
        kind: 'sse',
        // No login shell: the profile of the ssh user there is the machine's, slow on a busy one.
        events: [
          evCreated(),
          evFunctionCall('c1', 'exec_command', { cmd: 'touch made-there.txt', login: false }),
          evCompleted(),
        ],
      },
      answerTurn('done there'),
    ]);
    const { thread: theirs } = await client.request<{ thread: ListedThread }>('thread/start', {
      cwd: there.dir,
      approvalPolicy: 'untrusted',
      weftEnvironment: 'pipe',
    });
    expect({ environment: theirs.weftEnvironment, cwd: theirs.cwd }).toEqual({ environment: 'pipe', cwd: there.dir });
    expect(theirs.path.startsWith(remote.dir)).toBe(true);
    const from = client.received.length;
    const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
      threadId: theirs.id,
      input: [{ type: 'text', text: 'work there' }],
    });
    const ask = await client.serverRequest('item/commandExecution/requestApproval', from);
    expect(ask.id).toMatch(/^weft-env:pipe:/);
    expect(ask.params).toMatchObject({ threadId: theirs.id, turnId: turn.id });
    expect(existsSync(there.path('made-there.txt'))).toBe(false);
    client.send({ id: ask.id, result: { decision: 'accept' } });
    const done = await client.notification('turn/completed', (p) => p['threadId'] === theirs.id, from);
    expect(done['turn']).toMatchObject({ id: turn.id, status: 'completed' });
    expect(existsSync(there.path('made-there.txt'))).toBe(true);
    // The turn's events came through this host: its items, the approval resolved under the id given here.
    const items = client.received
      .slice(from)
      .filter((m) => m.method === 'item/completed' && (m.params as { threadId?: string }).threadId === theirs.id)
      .map((m) => (m.params as { item: { type: string } }).item.type);
    expect(items).toEqual(['userMessage', 'commandExecution', 'agentMessage']);
    const resolved = client.notifications('serverRequest/resolved').map((p) => p['requestId']);
    expect(resolved).toContain(ask.id);

    // Each side lists its own threads; the remote's come marked.
    const ours = await client.request<{ data: ListedThread[] }>('thread/list', {});
    const remoteList = await client.request<{ data: ListedThread[] }>('thread/list', { weftEnvironment: 'pipe' });
    expect(ours.data.map((t) => [t.id, t.weftEnvironment])).toEqual([[mine.id, undefined]]);
    expect(remoteList.data.map((t) => [t.id, t.cwd, t.weftEnvironment])).toEqual([[theirs.id, there.dir, 'pipe']]);
    // A read of the remote thread goes there by its id.
    const read = await client.request<{ thread: ListedThread }>('thread/read', { threadId: theirs.id });
    expect(read.thread).toMatchObject({ id: theirs.id, weftEnvironment: 'pipe', cwd: there.dir });

    // A host that has not seen the thread (started since) finds it where the client says it lives.
    const fresh = await localHost();
    const unknown = await fresh.call('thread/read', { threadId: theirs.id });
    expect(unknown.error?.message).toContain(theirs.id);
    const named = await fresh.request<{ thread: ListedThread }>('thread/read', {
      threadId: theirs.id,
      weftEnvironment: 'pipe',
    });
    expect(named.thread).toMatchObject({ id: theirs.id, weftEnvironment: 'pipe', cwd: there.dir });
    // Then its id routes alone.
    const again = await fresh.request<{ thread: ListedThread }>('thread/read', { threadId: theirs.id });
    expect(again.thread.weftEnvironment).toBe('pipe');
  });

  it('keeps a remote approval across a dropped link: answered here after the reconnect, run there', async () => {
    server.enqueueMany([
      {
        kind: 'sse',
        events: [
          evCreated(),
          evFunctionCall('c1', 'exec_command', { cmd: 'touch after-the-cut.txt', login: false }),
          evCompleted(),
        ],
      },
      answerTurn('done after the cut'),
    ]);
    const client = await localHost();
    const { thread } = await client.request<{ thread: ListedThread }>('thread/start', {
      cwd: there.dir,
      approvalPolicy: 'untrusted',
      weftEnvironment: 'attached',
    });
    const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'needs approval' }],
    });
    const ask = await client.serverRequest('item/commandExecution/requestApproval');
    expect(ask.id).toMatch(/^weft-env:attached:/);

    // The pipe to the environment dies (the local host's child); the per-user server there goes on.
    const from = client.received.length;
    const children = await childProcesses(client.child.pid ?? 0);
    const commands = await Promise.all(
      children.map(async ([pid]) => ({
        pid,
        exe: await readlink(`/proc/${pid}/exe`).catch(() => ''),
        argv: (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0'),
      })),
    );
    const pipes = commands
      .filter((c) => c.exe === process.execPath && c.argv.includes('--attach'))
      .map((c) => [c.pid] as const);
    expect(pipes).toHaveLength(1);
    for (const [pid] of pipes) process.kill(pid, 'SIGKILL');
    await client.notification('weft/environment/status', (p) => p['state'] === 'reconnecting', from);
    await client.notification('weft/environment/status', (p) => p['state'] === 'connected', from);
    expect(existsSync(there.path('after-the-cut.txt'))).toBe(false);

    // Asked again there on the new link, the request is not shown twice; the answer given here runs it.
    client.send({ id: ask.id, result: { decision: 'accept' } });
    const done = await client.notification('turn/completed', (p) => p['threadId'] === thread.id, from);
    expect(done['turn']).toMatchObject({ id: turn.id, status: 'completed' });
    expect(existsSync(there.path('after-the-cut.txt'))).toBe(true);
    expect(client.received.filter((m) => m.method === 'item/commandExecution/requestApproval')).toHaveLength(1);
  });

  it('names the configured environments when a request names another', async () => {
    const client = await localHost();
    const response = await client.call('thread/list', { weftEnvironment: 'nowhere' });
    expect(response.error).toEqual({
      code: -32602,
      message: 'no environment named "nowhere" in config.toml (configured: attached, flaky, pipe)',
    });
  });

  it('says why an environment cannot be reached, and tries it again at the next request', async () => {
    const client = await localHost();
    await writeFile(blockFile(), '');
    const refused = await client.call('thread/list', { weftEnvironment: 'flaky' });
    expect(refused.error?.message).toContain('flaky is unreachable');
    await rm(blockFile());
    const { thread } = await client.request<{ thread: ListedThread }>('thread/start', {
      cwd: there.dir,
      weftEnvironment: 'flaky',
    });
    expect({ environment: thread.weftEnvironment, home: thread.path.startsWith(remote.dir) }).toEqual({
      environment: 'flaky',
      home: true,
    });
  });

  it('after giving up on a dropped link, tries the environment again at the next request', async () => {
    const client = await localHost();
    await client.request('thread/list', { weftEnvironment: 'flaky' });
    // The pipe dies and cannot come back: the relay tries twice, then gives up.
    await writeFile(blockFile(), '');
    const from = client.received.length;
    const pipes = await relayPipes(client.child.pid ?? 0);
    expect(pipes).toHaveLength(1);
    for (const pid of pipes) process.kill(pid, 'SIGKILL');
    const gone = await client.notification('weft/environment/status', (p) => p['state'] === 'disconnected', from);
    expect(gone).toMatchObject({ environment: 'flaky', attempt: 3 });
    expect(String(gone['message'])).toContain('flaky is unreachable');
    // Back: the next request starts a new pipe.
    await rm(blockFile());
    const { thread } = await client.request<{ thread: ListedThread }>('thread/start', {
      cwd: there.dir,
      weftEnvironment: 'flaky',
    });
    expect(thread.weftEnvironment).toBe('flaky');
  });

  it('is refused by a host that reaches no environments', async () => {
    const inProcess = await startInProcessHost({ weftHome: local.dir, cwd: here.dir });
    try {
      const reply = await inProcess.client.call('thread/list', { weftEnvironment: 'pipe' });
      expect(reply.error).toEqual({
        code: -32602,
        message:
          'thread/list names the environment "pipe", and this server reaches no environments: send it to the Weft that has them configured (weft serve, weft app-server or the desktop app)',
      });
    } finally {
      await inProcess.close();
    }
  });
});
