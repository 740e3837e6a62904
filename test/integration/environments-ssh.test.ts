// Remote environments for real: a thread driven through `weft app-server --env box`, whose pipe is ssh to
// a real sshd on 127.0.0.1, runs on the "remote" Weft (this checkout's, with its own WEFT_HOME, behind
// `app-server --attach`). The link is cut mid-turn and comes back; bad hosts, keys and remotes are
// explained, and nothing hangs. Through a window's host (no `--env`), a project there gets its terminal, git
// and @ search from there.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  attachDirect,
  childProcesses,
  cliEnv,
  remoteWeft,
  startRelay,
  stopUserServer,
  WEFT_BIN,
} from '../support/environments';
import { callOutputs } from '../support/agents-model';
import { commitFolder } from '../support/git-repo';
import { createGate, startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient, type RpcClient } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall, evOutputTextDelta } from '../support/sse';
import { runWeftCli } from '../support/weft-cli';
import { sshdUnavailable, startSshd, TEST_HOST, type TestSshd } from '../support/sshd';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const unavailable = sshdUnavailable();

let sshd: TestSshd;
let server: MockResponsesServer;
let project: TempWorkspace;
let remote: WeftHome;
let local: WeftHome;
const clients: StdioRpcClient[] = [];

const toml = (value: string): string => JSON.stringify(value);

// The model's commands run without a login shell (`login: false`): the shell there would read the profile
// of the ssh user (whose home ssh takes from passwd, not this test's), which on a busy machine took more than
// the 10 s a command is first waited for, so that the turn went on with the command still running.

/** The approved command made `file`; when it did not, the failure says what the model was told of it. */
function expectMadeByCommand(file: string): void {
  const told = server.requests.flatMap(callOutputs).map((o) => `${o.name}: ${o.output}`);
  expect(existsSync(project.path(file)), `the model was told:\n${told.join('\n')}`).toBe(true);
}

beforeAll(async () => {
  if (unavailable !== null) return;
  sshd = await startSshd();
  server = await startMockResponsesServer();
  project = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  remote = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  const sshArgs = (config: string): string => `ssh_args = [${toml('-F')}, ${toml(config)}]`;
  local = await makeWeftHome(
    [
      '[environments.box]',
      `ssh = ${toml(TEST_HOST)}`,
      sshArgs(sshd.clientConfig),
      `weft = ${toml(remoteWeft(remote.dir))}`,
      '[environments.nowhere]',
      `ssh = "no-such-host.invalid"`,
      sshArgs(sshd.clientConfig),
      '[environments.stranger]',
      `ssh = ${toml(TEST_HOST)}`,
      sshArgs(sshd.strangerConfig),
      `weft = ${toml(remoteWeft(remote.dir))}`,
      '[environments.bare]',
      `ssh = ${toml(TEST_HOST)}`,
      sshArgs(sshd.clientConfig),
      `weft = "/nonexistent/bin/weft"`,
      '[environments.old]',
      `ssh = ${toml(TEST_HOST)}`,
      sshArgs(sshd.clientConfig),
      `weft = ${toml(`${process.execPath} ${oldWeft}`)}`,
      '',
    ].join('\n'),
  );
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

afterAll(async () => {
  if (unavailable !== null) return;
  await stopUserServer(remote.dir);
  await sshd.dispose();
  await server.close();
  await project.cleanup();
  await remote.cleanup();
  await local.cleanup();
});

const oldWeft = require.resolve('../fixtures/environments/old-weft.mjs');

function relay(name: string): StdioRpcClient {
  const client = startRelay(local.dir, name, { WEFT_RELAY_MAX_DELAY_MS: '500' });
  clients.push(client);
  return client;
}

const calls = (...c: ReturnType<typeof evFunctionCall>[]) => ({
  kind: 'sse' as const,
  events: [evCreated(), ...c, evCompleted()],
});
const answer = (text: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evOutputTextDelta(text), evAssistantMessage(text), evCompleted()],
});

async function startTurn(client: RpcClient, threadId: string, text: string): Promise<string> {
  const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
    threadId,
    input: [{ type: 'text', text }],
  });
  return turn.id;
}

/** Every `item/completed` id and `turn/completed` id the client received: each must come once. */
function deliveredOnce(client: RpcClient): { items: string[]; turns: string[] } {
  const items = client.notifications('item/completed').map((p) => (p['item'] as { id: string }).id);
  const turns = client.notifications('turn/completed').map((p) => (p['turn'] as { id: string }).id);
  expect(new Set(items).size).toBe(items.length);
  expect(new Set(turns).size).toBe(turns.length);
  return { items, turns };
}

/** Kills the ssh the relay started (as a dropped network would end it). */
async function cutSsh(client: StdioRpcClient): Promise<void> {
  const pid = client.child.pid;
  if (pid === undefined) throw new Error('the relay has no pid');
  const ssh = (await childProcesses(pid)).filter(([, name]) => name === 'ssh');
  expect(ssh).toHaveLength(1);
  process.kill(ssh[0]?.[0] ?? 0, 'SIGKILL');
}

describe.skipIf(unavailable !== null)(
  `environments over ssh${unavailable === null ? '' : ` (skipped: ${unavailable})`}`,
  () => {
    it("gives a project there its terminal, git and @ search, through a window's host", async () => {
      // The host a window talks to (no --env): requests naming `box` go over ssh to the Weft there.
      const child = spawn(process.execPath, [WEFT_BIN, 'app-server'], { cwd: project.dir, env: cliEnv(local.dir) });
      const client = StdioRpcClient.attach(child);
      clients.push(client);
      await client.initialize();
      const repo = await makeTempWorkspace({ 'README.md': '# Box\n', 'src/only-there.ts': 'export {};\n' });
      try {
        commitFolder(repo.dir);
        await writeFile(repo.path('README.md'), '# Box\n\nedited\n');
        const on = { weftEnvironment: 'box' };

        // A shell there: the remote Weft's home is its WEFT_HOME (this machine's is another).
        const exited = client.request<{ exitCode: number }>('command/exec', {
          command: ['/bin/sh', '-c', 'echo ready; read line; echo "$line weft=$WEFT_HOME in $(pwd)"'],
          cwd: repo.dir,
          processId: 'tty-1',
          tty: true,
          sandboxPolicy: { type: 'dangerFullAccess' },
          ...on,
        });
        const text = (): string =>
          client
            .notifications('command/exec/outputDelta')
            .filter((p) => p['processId'] === 'tty-1')
            .map((p) => Buffer.from(String(p['deltaBase64']), 'base64').toString('utf8'))
            .join('');
        await client.notification('command/exec/outputDelta', () => text().includes('ready'));
        await client.request('command/exec/write', {
          processId: 'tty-1',
          deltaBase64: Buffer.from('hello\n').toString('base64'),
          ...on,
        });
        await client.notification('command/exec/outputDelta', () =>
          text().includes(`hello weft=${remote.dir} in ${repo.dir}`),
        );
        expect((await exited).exitCode).toBe(0);

        const status = await client.request<{ files: { path: string }[] }>('weft/git/status', { cwd: repo.dir, ...on });
        expect(status.files.map((f) => f.path)).toEqual(['README.md']);
        const found = await client.request<{ files: { path: string }[] }>('fuzzyFileSearch', {
          query: 'onlythere',
          roots: [repo.dir],
          ...on,
        });
        expect(found.files.map((f) => f.path)).toEqual(['src/only-there.ts']);
      } finally {
        await repo.cleanup();
      }
    });

    it('runs a thread on the remote: a command and a patch there, approved here', async () => {
      server.enqueueMany([
        calls(evFunctionCall('c1', 'exec_command', { cmd: 'echo from-the-box > made-by-command.txt', login: false })),
        calls(
          evFunctionCall('p1', 'apply_patch', {
            input: '*** Begin Patch\n*** Update File: notes.txt\n@@\n-one\n+one, patched remotely\n*** End Patch',
          }),
        ),
        answer('done on the box'),
      ]);
      const client = relay('box');
      const init = await client.request<Record<string, unknown>>('initialize', {
        clientInfo: { name: 'weft-tests', version: '1' },
      });
      client.send({ method: 'initialized' });
      expect(init).toMatchObject({
        codexHome: remote.dir,
        weftVersion: expect.any(String),
        weftEnvironment: { name: 'box', relayVersion: init['weftVersion'] },
      });
      const asked: string[] = [];
      client.onServerRequest = (method) => {
        asked.push(method);
        return { decision: 'accept' };
      };
      const { thread } = await client.request<{ thread: { id: string } }>('thread/start', {
        cwd: project.dir,
        approvalPolicy: 'untrusted',
      });
      const turnId = await startTurn(client, thread.id, 'work on the box');
      const done = await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turnId);
      expect(done['turn']).toMatchObject({ status: 'completed', error: null });
      expect(asked).toEqual(['item/commandExecution/requestApproval', 'item/fileChange/requestApproval']);
      expect(await project.read('made-by-command.txt')).toBe('from-the-box\n');
      expect(await project.read('notes.txt')).toBe('one, patched remotely\n');
      const kinds = client
        .notifications('item/completed')
        .map((p) => p['item'] as { type: string; status?: string })
        .filter((i) => i.type === 'commandExecution' || i.type === 'fileChange')
        .map((i) => [i.type, i.status]);
      expect(kinds).toEqual([
        ['commandExecution', 'completed'],
        ['fileChange', 'completed'],
      ]);
      // The thread lives on the remote: its rollout is in the remote's WEFT_HOME.
      const listed = await client.request<{ data: { id: string; path: string }[] }>('thread/list', {});
      expect(listed.data.map((t) => t.id)).toContain(thread.id);
      expect(listed.data.find((t) => t.id === thread.id)?.path.startsWith(remote.dir)).toBe(true);
    });

    it('keeps an approval waiting across a cut link; it is answered here after the reconnect', async () => {
      server.enqueueMany([
        calls(evFunctionCall('c1', 'exec_command', { cmd: 'touch approved-after-the-cut.txt', login: false })),
        answer('approved and done'),
      ]);
      const client = relay('box');
      await client.initialize();
      const { thread } = await client.request<{ thread: { id: string } }>('thread/start', {
        cwd: project.dir,
        approvalPolicy: 'untrusted',
      });
      const turnId = await startTurn(client, thread.id, 'needs approval');
      const ask = await client.serverRequest('item/commandExecution/requestApproval');
      const from = client.received.length;
      await cutSsh(client);
      await client.notification('weft/environment/status', (p) => p['state'] === 'reconnecting', from);
      await client.notification('weft/environment/status', (p) => p['state'] === 'connected', from);
      expect(existsSync(project.path('approved-after-the-cut.txt'))).toBe(false);
      // The remote asked again on the new link; the client, which already holds the request, is not asked twice.
      client.send({ id: ask.id, result: { decision: 'accept' } });
      const done = await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turnId);
      expect(done['turn']).toMatchObject({ status: 'completed' });
      expectMadeByCommand('approved-after-the-cut.txt');
      expect(client.received.filter((m) => m.method === 'item/commandExecution/requestApproval')).toHaveLength(1);
      deliveredOnce(client);
    });

    it('delivers an approval answered while the link is down once the remote asks again', async () => {
      server.enqueueMany([
        calls(evFunctionCall('c1', 'exec_command', { cmd: 'touch answered-while-down.txt', login: false })),
        answer('done after the answer'),
      ]);
      const client = relay('box');
      await client.initialize();
      const { thread } = await client.request<{ thread: { id: string } }>('thread/start', {
        cwd: project.dir,
        approvalPolicy: 'untrusted',
      });
      const turnId = await startTurn(client, thread.id, 'needs approval');
      const ask = await client.serverRequest('item/commandExecution/requestApproval');
      const from = client.received.length;
      await sshd.stop();
      await cutSsh(client);
      await client.notification('weft/environment/status', (p) => p['state'] === 'reconnecting', from);
      client.send({ id: ask.id, result: { decision: 'accept' } });
      await sshd.start();
      await client.notification('weft/environment/status', (p) => p['state'] === 'connected', from);
      const done = await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turnId);
      expect(done['turn']).toMatchObject({ status: 'completed' });
      expectMadeByCommand('answered-while-down.txt');
      expect(client.received.filter((m) => m.method === 'item/commandExecution/requestApproval')).toHaveLength(1);
      deliveredOnce(client);
    });

    it('finishes a turn on the remote while the link is down, and shows it once after the reconnect', async () => {
      const gate = createGate();
      server.enqueueMany([
        {
          kind: 'sse-slow' as const,
          events: [
            evCreated(),
            evOutputTextDelta('partly '),
            gate,
            evAssistantMessage('partly written while cut'),
            evCompleted(),
          ],
        },
      ]);
      const client = relay('box');
      await client.initialize();
      const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: project.dir });
      const turnId = await startTurn(client, thread.id, 'write while I am away');
      await client.notification('item/agentMessage/delta');
      // A watcher on the remote itself sees the turn end while the link is down.
      const watcher = attachDirect(remote.dir);
      clients.push(watcher);
      await watcher.initialize();
      await watcher.request('thread/resume', { threadId: thread.id });

      const from = client.received.length;
      await sshd.stop();
      await cutSsh(client);
      await client.notification('weft/environment/status', (p) => p['state'] === 'reconnecting', from);
      gate.release();
      await watcher.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turnId);
      await sshd.start();
      const back = await client.notification('weft/environment/status', (p) => p['state'] === 'connected', from);
      expect(back['replayed']).toBeGreaterThan(0);
      const done = await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turnId);
      expect(done['turn']).toMatchObject({ status: 'completed' });
      const { items } = deliveredOnce(client);
      const message = client
        .notifications('item/completed')
        .map((p) => p['item'] as { type: string; text?: string })
        .find((i) => i.type === 'agentMessage');
      expect(message?.text).toBe('partly written while cut');
      expect(items.length).toBeGreaterThanOrEqual(2);
      // After the replay the thread is idle, as on the remote.
      const read = await client.request<{ thread: { status: { type: string } } }>('thread/read', {
        threadId: thread.id,
      });
      expect(read.thread.status.type).toBe('idle');
    });

    it('checks the environment, and runs `weft exec --env` in a folder there', async () => {
      const check = await runWeftCli(['environments', 'check', 'box'], { cwd: local.dir, weftHome: local.dir });
      expect(check.code).toBe(0);
      expect(check.stdout).toContain(
        `  weft: 0.1.0 (this one: 0.1.0); node ${process.versions.node}; WEFT_HOME ${remote.dir}`,
      );
      server.enqueue(answer('answered on the box'));
      const run = await runWeftCli(['exec', '--env', 'box', '-C', project.dir, 'hello'], {
        cwd: local.dir,
        weftHome: local.dir,
      });
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: 'answered on the box\n' });
      const missing = await runWeftCli(['exec', '--env', 'box', '-C', '/srv/no-such-repo', 'hello'], {
        cwd: local.dir,
        weftHome: local.dir,
      });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(
        '/srv/no-such-repo does not exist on environment "box"; give a folder there with --cd',
      );
    });

    describe('bad input is explained, and the relay exits', () => {
      async function refused(name: string): Promise<{ message: string; code: number | null; stderr: string }> {
        const client = relay(name);
        const response = await client.call('initialize', { clientInfo: { name: 'weft-tests', version: '1' } });
        const code = await client.exited;
        return { message: response.error?.message ?? '', code, stderr: client.stderr };
      }

      it('an unknown host', async () => {
        const { message, code } = await refused('nowhere');
        expect(message).toContain('ssh cannot find the host "no-such-host.invalid" of environment "nowhere"');
        expect(code).toBe(1);
      });

      it('a refused key', async () => {
        const { message, code } = await refused('stranger');
        expect(message).toContain(`${TEST_HOST} refused the login of environment "stranger"`);
        expect(code).toBe(1);
      });

      it('a remote without Weft', async () => {
        const { message, code } = await refused('bare');
        expect(message).toContain('environment "bare" has no Weft where its `weft` command points');
        expect(code).toBe(1);
      });

      it('a remote with an old Weft', async () => {
        const { message, code } = await refused('old');
        expect(message).toContain('the Weft on environment "old" is too old');
        expect(code).toBe(1);
      });

      it('an unknown environment', async () => {
        const client = relay('missing');
        expect(await client.exited).toBe(1);
        expect(client.stderr).toContain(
          'no environment named "missing" in config.toml (configured: bare, box, nowhere, old, stranger)',
        );
      });
    });
  },
);
