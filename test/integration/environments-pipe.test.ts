// Environments reached through a command (`command = [...]`), here a local pipe: `sh -c '… weft
// app-server'`, as `kubectl exec -i` or `docker exec -i` would be. Every face takes `--env`: the relay on
// stdio, `weft exec`, `weft serve`; and `weft environments` manages and checks them.
import { execFile } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AGENTS_NAMESPACE, answerText, callOutputs, reply, threadOf } from '../support/agents-model';
import { attachDirect, cliEnv, remoteWeft, startRelay, stopUserServer, relayPipes } from '../support/environments';
import {
  createGate,
  startMockResponsesServer,
  type MockResponsesServer,
  type MockStep,
  type RecordedRequest,
} from '../support/mock-responses-server';
import { startWeftServe, WsRpcClient, type RpcMessage, type StdioRpcClient } from '../support/rpc-client';
import { answerTurn, evNamespacedCall } from '../support/sse';
import { runWeftCli } from '../support/weft-cli';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let project: TempWorkspace;
let remote: WeftHome;
let local: WeftHome;
const cleanups: (() => Promise<void>)[] = [];

const LOCAL_CONFIG = (remoteHome: string): string =>
  [
    '# environments of the tests',
    '[environments.pipe]',
    `command = ["sh", "-c", ${JSON.stringify(`${remoteWeft(remoteHome)} app-server`)}]`,
    '',
    '[environments.old] # a Weft from before 0.1',
    `command = [${JSON.stringify(process.execPath)}, ${JSON.stringify(require.resolve('../fixtures/environments/old-weft.mjs'))}, "app-server"]`,
    '',
    '[environments.silent] # a command that never speaks',
    'command = ["sh", "-c", "exec sleep 30"]',
    '',
    '[environments.attached] # through the per-user server',
    `command = ["sh", "-c", ${JSON.stringify(`${remoteWeft(remoteHome)} app-server --attach`)}]`,
    '',
    '[environments.blockable] # through the per-user server, unreachable while the block file exists',
    `command = ["sh", "-c", ${JSON.stringify(`[ -e ${blockFile(remoteHome)} ] && { echo "unreachable" >&2; exit 1; }; exec env ${remoteWeft(remoteHome)} app-server --attach`)}]`,
    '',
  ].join('\n');

/** While this file exists, the `blockable` environment cannot be reached. */
const blockFile = (remoteHome: string): string => join(remoteHome, 'unreachable');

beforeAll(async () => {
  server = await startMockResponsesServer();
  project = await makeTempWorkspace({ 'notes.txt': 'one\n' });
  remote = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  local = await makeWeftHome(LOCAL_CONFIG(remote.dir));
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

afterAll(async () => {
  await stopUserServer(remote.dir);
  await server.close();
  await project.cleanup();
  await remote.cleanup();
  await local.cleanup();
});

function relay(name: string): StdioRpcClient {
  const client = startRelay(local.dir, name);
  cleanups.push(() => client.close());
  return client;
}

describe('an environment reached through a command', () => {
  it('relays a thread on stdio to the remote app server', async () => {
    server.enqueue(answerTurn('hello from the pipe'));
    const client = relay('pipe');
    await client.initialize();
    const { thread } = await client.request<{ thread: { id: string; path: string } }>('thread/start', {
      cwd: project.dir,
    });
    expect(thread.path.startsWith(remote.dir)).toBe(true);
    await client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
    const done = await client.notification('turn/completed');
    expect(done['turn']).toMatchObject({ status: 'completed' });
    const text = client
      .notifications('item/completed')
      .map((p) => p['item'] as { type: string; text?: string })
      .find((i) => i.type === 'agentMessage')?.text;
    expect(text).toBe('hello from the pipe');
  });

  it('explains a remote whose Weft is too old, and exits', async () => {
    const client = relay('old');
    const response = await client.call('initialize', { clientInfo: { name: 'weft-tests', version: '1' } });
    expect(response.error).toEqual({
      code: -32603,
      message:
        "old runs Weft 0.0.3, and this Weft (0.1.0) needs 0.1.x there: install Weft 0.1.0 on old with `weft environments install old` (or the app's Install button)",
      // What a client needs to offer the install.
      data: { weftInstall: { environment: 'old', remoteVersion: '0.0.3', localVersion: '0.1.0' } },
    });
    expect(await client.exited).toBe(1);
  });

  it('gives up on a remote that never answers, and exits', async () => {
    const client = startRelay(local.dir, 'silent', { WEFT_RELAY_HANDSHAKE_MS: '500' });
    cleanups.push(() => client.close());
    const response = await client.call('initialize', { clientInfo: { name: 'weft-tests', version: '1' } });
    expect(response.error?.message).toBe('environment "silent" did not answer within 0.5 s (sh -c exec sleep 30)');
    expect(await client.exited).toBe(1);
  });

  it('runs `weft exec --env` there, in a folder there', async () => {
    server.enqueue(answerTurn('exec ran remotely'));
    const run = await runWeftCli(['exec', '--env', 'pipe', '-C', project.dir, 'say something'], {
      cwd: local.dir,
      weftHome: local.dir,
    });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: 'exec ran remotely\n' });
    expect(run.stderr).toContain(`on "pipe" in ${project.dir}`);
  });

  it('runs `weft exec --env` with its flags: files named are read here, folders are there', async () => {
    // A PNG of one pixel, a schema and the file the last message goes to: all here.
    const here = await makeTempWorkspace({ 'schema.json': JSON.stringify({ type: 'object', properties: {} }) });
    cleanups.push(() => here.cleanup());
    const pixel = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==',
      'base64',
    );
    await writeFile(join(here.dir, 'shot.png'), pixel);
    // A folder there beside the project, named relative to the project folder there.
    const beside = await makeTempWorkspace();
    cleanups.push(() => beside.cleanup());
    const before = server.requests.length;
    server.enqueue(answerTurn('{"done":true}'));
    const run = await runWeftCli(
      [
        'exec',
        '--env',
        'pipe',
        '-C',
        project.dir,
        '-c',
        'model="other-model"',
        '--sandbox',
        'workspace-write',
        // The project is under the temp folder, a writable root of its own unless excluded.
        '-c',
        'sandbox_workspace_write.exclude_slash_tmp=true',
        '-c',
        'sandbox_workspace_write.exclude_tmpdir_env_var=true',
        '--add-dir',
        `../${basename(beside.dir)}`,
        '--image',
        'shot.png',
        '--output-schema',
        'schema.json',
        '-o',
        'last.txt',
        'look at this',
      ],
      { cwd: here.dir, weftHome: local.dir },
    );
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toMatchObject({
      code: 0,
      stdout: '{"done":true}\n',
    });
    expect(await readFile(join(here.dir, 'last.txt'), 'utf8')).toBe('{"done":true}');
    const body = JSON.stringify(server.requests[before]?.body);
    const request = server.requests[before]?.body as { model?: string; text?: { format?: { type?: string } } };
    expect(request.model).toBe('other-model');
    expect(request.text?.format?.type).toBe('json_schema');
    expect(body).toContain(`data:image/png;base64,${pixel.toString('base64')}`);
    expect(body).toContain('look at this');
    // The added folder is writable there, found from the project folder there.
    expect(body).toContain(`- ${beside.dir}\\n`);

    // resume --last there: the same thread goes on, with what it was told before.
    server.enqueue(answerTurn('continued'));
    const again = await runWeftCli(['exec', '--env', 'pipe', '-C', project.dir, 'resume', '--last', 'and then?'], {
      cwd: here.dir,
      weftHome: local.dir,
    });
    expect({ code: again.code, stdout: again.stdout }).toEqual({ code: 0, stdout: 'continued\n' });
    const resumed = JSON.stringify(server.requests.at(-1)?.body);
    expect(resumed).toContain('look at this');
    expect(resumed).toContain('and then?');
  });

  it('refuses the exec flags a remote run cannot honour, naming them', async () => {
    const run = await runWeftCli(['exec', '--env', 'pipe', '--experimental-json', 'hi'], {
      cwd: local.dir,
      weftHome: local.dir,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('weft exec: --experimental-json cannot be used with --env');
  });

  it('replays the sub-agents a thread spawned while the link was down, announced and whole', async () => {
    // The parent's model spawns a child once the link is cut, waits for it, and answers; the child answers.
    const spawnNow = createGate();
    let parentId = '';
    const model = async (request: RecordedRequest): Promise<MockStep> => {
      const thread = threadOf(request);
      if (parentId === '') parentId = thread;
      if (thread !== parentId) return answerText('the child counted');
      const outputs = callOutputs(request);
      if (outputs.length === 0) {
        await spawnNow.released;
        return reply([evNamespacedCall('call_spawn', AGENTS_NAMESPACE, 'spawn_agent', { message: 'count' })]);
      }
      const spawned = outputs.find((o) => o.name === 'spawn_agent')?.output ?? '{}';
      const agent = (JSON.parse(spawned) as { agent_id?: string }).agent_id ?? '';
      if (outputs.length === 1)
        return reply([
          evNamespacedCall('call_wait', AGENTS_NAMESPACE, 'wait_agent', { targets: [agent], timeout_ms: 60_000 }),
        ]);
      return answerText('the parent is done');
    };
    for (let i = 0; i < 6; i++) server.enqueue(model);
    const client = startRelay(local.dir, 'blockable', { WEFT_RELAY_MAX_DELAY_MS: '300' });
    cleanups.push(() => client.close());
    await client.initialize();
    const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: project.dir });
    const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'delegate the counting' }],
    });
    await server.waitForRequest(1);
    // A watcher on the remote itself sees the parent's turn end while the link is down.
    const watcher = attachDirect(remote.dir);
    cleanups.push(() => watcher.close());
    await watcher.initialize();
    await watcher.request('thread/resume', { threadId: thread.id });

    // The link drops and cannot come back; meanwhile the child is spawned, runs and ends, and so does the parent.
    await writeFile(blockFile(remote.dir), '');
    const from = client.received.length;
    const pipes = await relayPipes(client.child.pid ?? 0);
    expect(pipes).toHaveLength(1);
    for (const pid of pipes) process.kill(pid, 'SIGKILL');
    await client.notification('weft/environment/status', (p) => p['state'] === 'reconnecting', from);
    spawnNow.release();
    await watcher.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id);
    const childOf = (p: Record<string, unknown>): boolean =>
      (p['thread'] as { parentThreadId?: string | null }).parentThreadId === thread.id;
    expect(client.notifications('thread/started').filter(childOf)).toEqual([]);

    await rm(blockFile(remote.dir));
    await client.notification('weft/environment/status', (p) => p['state'] === 'connected', from);
    // The child is announced as the parent's sub-agent, and its turn told whole, once.
    const started = await client.notification('thread/started', childOf, from);
    const child = started['thread'] as { id: string; parentThreadId: string | null };
    expect(child.parentThreadId).toBe(thread.id);
    const childDone = await client.notification('turn/completed', (p) => p['threadId'] === child.id, from);
    expect(childDone['turn']).toMatchObject({ status: 'completed' });
    await client.notification('turn/completed', (p) => p['threadId'] === thread.id, from);
    const childMessages = client
      .notifications('item/completed')
      .filter((p) => p['threadId'] === child.id)
      .map((p) => p['item'] as { type: string; text?: string })
      .filter((i) => i.type === 'agentMessage');
    expect(childMessages.map((m) => m.text)).toEqual(['the child counted']);
    const turnsDone = client.notifications('turn/completed').map((p) => (p['turn'] as { id: string }).id);
    expect(new Set(turnsDone).size).toBe(turnsDone.length);
  });

  describe('a terminal there whose link drops', () => {
    /** What process `processId` wrote to `client` from message `from` on, decoded. */
    const output = (client: StdioRpcClient, processId: string, from = 0): string =>
      client.received
        .slice(from)
        .filter((m) => m.method === 'command/exec/outputDelta')
        .map((m) => m.params as { processId: string; deltaBase64: string })
        .filter((p) => p.processId === processId)
        .map((p) => Buffer.from(p.deltaBase64, 'base64').toString('utf8'))
        .join('');
    const outputHas = (client: StdioRpcClient, processId: string, text: string, from = 0): Promise<unknown> =>
      client.notification('command/exec/outputDelta', () => output(client, processId, from).includes(text), from);
    const gone = (pid: number): string => {
      try {
        process.kill(pid, 0);
        return 'alive';
      } catch {
        return 'gone';
      }
    };

    /**
     * A shell there through the per-user server: it says its pid, then copies what comes through `fifo`
     * (written while the link is down), then echoes its input.
     */
    async function shellThere(client: StdioRpcClient, processId: string) {
      const dir = await makeTempWorkspace();
      cleanups.push(() => dir.cleanup());
      const fifo = join(dir.dir, 'fifo');
      await new Promise<void>((resolve, reject) =>
        execFile('mkfifo', [fifo], (error) => (error === null ? resolve() : reject(error))),
      );
      const settled: { answer: RpcMessage | null } = { answer: null };
      const answered = client
        .call('command/exec', {
          command: ['/bin/sh', '-c', `echo "pid=$$"; cat ${fifo}; while read l; do echo "got:$l"; done`],
          cwd: dir.dir,
          processId,
          tty: true,
          size: { cols: 80, rows: 24 },
          sandboxPolicy: { type: 'dangerFullAccess' },
        })
        .then((answer) => (settled.answer = answer));
      // A client that leaves is not answered: nothing waits for it then.
      answered.catch(() => undefined);
      await outputHas(client, processId, 'pid=');
      const pid = Number(/pid=(\d+)/.exec(output(client, processId))?.[1]);
      expect(gone(pid)).toBe('alive');
      return { fifo, pid, settled, answered };
    }

    /** Cuts the relay's pipe while the environment cannot be reached; resolves once the relay says so. */
    async function cut(client: StdioRpcClient): Promise<number> {
      await writeFile(blockFile(remote.dir), '');
      cleanups.push(() => rm(blockFile(remote.dir), { force: true }));
      const from = client.received.length;
      const pipes = await relayPipes(client.child.pid ?? 0);
      expect(pipes).toHaveLength(1);
      for (const pid of pipes) process.kill(pid, 'SIGKILL');
      await client.notification('weft/environment/status', (p) => p['state'] === 'reconnecting', from);
      return from;
    }

    it('is taken over again: what it printed meanwhile comes, and input reaches it', async () => {
      const client = startRelay(local.dir, 'blockable', { WEFT_RELAY_MAX_DELAY_MS: '300' });
      cleanups.push(() => client.close());
      await client.initialize();
      const shell = await shellThere(client, 'keep-1');
      const from = await cut(client);
      // The shell prints while nobody is connected to it.
      await writeFile(shell.fifo, 'printed meanwhile\n');
      expect(gone(shell.pid)).toBe('alive');
      expect(shell.settled.answer).toBeNull();
      await rm(blockFile(remote.dir));
      await client.notification('weft/environment/status', (p) => p['state'] === 'connected', from);
      await outputHas(client, 'keep-1', 'printed meanwhile', from);
      expect(shell.settled.answer).toBeNull();
      // Typed after the reconnect: it reaches the same shell.
      const after = client.received.length;
      await client.request('command/exec/write', {
        processId: 'keep-1',
        deltaBase64: Buffer.from('hi\n').toString('base64'),
      });
      await outputHas(client, 'keep-1', 'got:hi', after);
      // It ends as any terminal does: its `command/exec` answered with its exit.
      await client.request('command/exec/write', { processId: 'keep-1', closeStdin: true });
      const answer = await shell.answered;
      expect(answer.error).toBeUndefined();
      expect(answer.result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    });

    it('ends with a client that leaves for good', async () => {
      const client = startRelay(local.dir, 'blockable', { WEFT_RELAY_MAX_DELAY_MS: '300' });
      cleanups.push(() => client.close());
      await client.initialize();
      const shell = await shellThere(client, 'leave-1');
      await client.close();
      await expect.poll(() => gone(shell.pid), { timeout: 10_000 }).toBe('gone');
    });

    it('says it was lost when the server there restarted meanwhile', async () => {
      const client = startRelay(local.dir, 'blockable', { WEFT_RELAY_MAX_DELAY_MS: '300' });
      cleanups.push(() => client.close());
      await client.initialize();
      const shell = await shellThere(client, 'lost-1');
      const from = await cut(client);
      await stopUserServer(remote.dir);
      await expect.poll(() => gone(shell.pid), { timeout: 10_000 }).toBe('gone');
      await rm(blockFile(remote.dir));
      await client.notification('weft/environment/status', (p) => p['state'] === 'connected', from);
      const answer = await shell.answered;
      expect(answer.error?.message).toContain('lost-1 there was not kept for the reconnect');
      expect(answer.error?.message).toContain('this server restarted since');
      expect(answer.error?.data).toEqual({ weftLinkDropped: { environment: 'blockable', notKept: true } });
    });
  });

  it('says when the remote folder does not exist, and exits', async () => {
    const run = await runWeftCli(['exec', '--env', 'pipe', '-C', '/no/such/folder', 'hi'], {
      cwd: local.dir,
      weftHome: local.dir,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('/no/such/folder does not exist on environment "pipe"; give a folder there with --cd');
  });

  it('serves the web UI here for the agent there (`weft serve --env`)', async () => {
    server.enqueue(answerTurn('served remotely'));
    const served = await startWeftServe(cliEnv(local.dir), project.dir, ['--env', 'attached']);
    cleanups.push(() => served.stop());
    expect(served.url).toContain(`cwd=${encodeURIComponent(project.dir)}`);
    const client = await WsRpcClient.connect(served.wsUrl);
    cleanups.push(() => client.close());
    const init = await client.request<Record<string, unknown>>('initialize', {
      clientInfo: { name: 'page', version: '1' },
    });
    client.send({ method: 'initialized' });
    expect(init).toMatchObject({ codexHome: remote.dir, weftEnvironment: { name: 'attached' } });
    const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: project.dir });
    await client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
    expect((await client.notification('turn/completed'))['turn']).toMatchObject({ status: 'completed' });
    const missing = await runWeftCli(['serve', '--env', 'attached', '--cd', '/no/such/folder', '--port', '0'], {
      cwd: local.dir,
      weftHome: local.dir,
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('/no/such/folder does not exist on environment "attached"');
  });
});

describe('a `command` environment without `--attach` under `weft serve`', () => {
  /** The plain `weft app-server`s serving the remote home (not the per-user server nor its bridges). */
  async function remoteServers(): Promise<number[]> {
    const found: number[] = [];
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const argv = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0').filter(Boolean);
      if (argv.at(-1) !== 'app-server') continue;
      const env = (await readFile(`/proc/${entry}/environ`, 'utf8').catch(() => '')).split('\0');
      if (env.includes(`WEFT_HOME=${remote.dir}`)) found.push(Number(entry));
    }
    return found;
  }

  it('keeps one server there when the page reloads, and the turn running there goes on', async () => {
    const served = await startWeftServe(cliEnv(local.dir), project.dir);
    cleanups.push(() => served.stop());
    // None left by an earlier test (each ends on its own once its pipe closed).
    await expect.poll(remoteServers, { timeout: 15_000 }).toEqual([]);
    // The turn below must take this step, not one an earlier test of this file left unused.
    server.clearSteps();
    const gate = createGate();
    server.enqueue({
      kind: 'sse-slow',
      events: answerTurn('done after the reload').events,
      beforeEach: () => gate.released,
    });
    const first = await WsRpcClient.connect(served.wsUrl);
    cleanups.push(() => first.close());
    await first.initialize();
    const { thread } = await first.request<{ thread: { id: string } }>('thread/start', {
      cwd: project.dir,
      weftEnvironment: 'pipe',
    });
    const asked = server.requests.length;
    const { turn } = await first.request<{ turn: { id: string } }>('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'take your time' }],
    });
    await server.waitForRequest(asked + 1);
    const before = await remoteServers();
    expect(before).toHaveLength(1);

    // The page reloads: its connection closes, a new one opens and resumes the thread.
    await first.close();
    const second = await WsRpcClient.connect(served.wsUrl);
    cleanups.push(() => second.close());
    await second.initialize();
    const resumed = await second.request<{ thread: { id: string; turns: { id: string; status: string }[] } }>(
      'thread/resume',
      { threadId: thread.id, weftEnvironment: 'pipe' },
    );
    expect(resumed.thread.turns.at(-1)).toMatchObject({ id: turn.id, status: 'inProgress' });
    expect(await remoteServers()).toEqual(before);

    gate.release();
    const done = await second.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id);
    expect(done['turn']).toMatchObject({ status: 'completed' });
    expect(await remoteServers()).toEqual(before);
  });

  it('has ended the server there by the time `weft serve` itself has stopped', async () => {
    await expect.poll(remoteServers, { timeout: 15_000 }).toEqual([]);
    const served = await startWeftServe(cliEnv(local.dir), project.dir);
    const page = await WsRpcClient.connect(served.wsUrl);
    await page.initialize();
    await page.request('thread/start', { cwd: project.dir, weftEnvironment: 'pipe' });
    expect(await remoteServers()).toHaveLength(1);
    // The page still connected: its pipe ends with the host. The server there writes into its own Weft
    // home as it leaves, so a host that is gone must not leave it behind, still writing.
    await served.stop();
    expect(await remoteServers()).toEqual([]);
    await page.close();
  });

  it('ends the server there when no page comes back (WEFT_RELAY_PARK_MS)', async () => {
    // The server there of the test before ends on its own once its pipe closed (it reads the end of its
    // input), which may be after that test's `weft serve` left.
    await expect.poll(remoteServers, { timeout: 15_000 }).toEqual([]);
    const served = await startWeftServe(cliEnv(local.dir, { WEFT_RELAY_PARK_MS: '300' }), project.dir);
    cleanups.push(() => served.stop());
    const page = await WsRpcClient.connect(served.wsUrl);
    cleanups.push(() => page.close());
    await page.initialize();
    await page.request('thread/start', { cwd: project.dir, weftEnvironment: 'pipe' });
    expect(await remoteServers()).toHaveLength(1);
    await page.close();
    await expect.poll(remoteServers, { timeout: 15_000 }).toEqual([]);
  });
});

describe('weft environments', () => {
  it('checks an environment: reachable, its Weft and Node, its sandbox', async () => {
    const run = await runWeftCli(['environments', 'check', 'attached'], { cwd: local.dir, weftHome: local.dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[1]).toMatch(/^ {2}reachable: yes \(\d+ ms to the handshake\)$/);
    expect(lines[2]).toBe(`  weft: 0.1.0 (this one: 0.1.0); node ${process.versions.node}; WEFT_HOME ${remote.dir}`);
    expect(lines[3]).toBe('  sandbox: works (a read-only command ran in it)');
  });

  it('adds, lists and removes environments, keeping the comments of config.toml', async () => {
    const home = await makeWeftHome('# mine\nmodel = "m" # keep me\n');
    cleanups.push(() => home.cleanup());
    const cli = (args: string[]) => runWeftCli(['environments', ...args], { cwd: home.dir, weftHome: home.dir });
    expect(
      (await cli(['add', 'box', '--ssh', 'dev@build-box', '--port', '2222', '--ssh-arg=-F', '--ssh-arg=/x'])).code,
    ).toBe(0);
    expect((await cli(['add', 'pod', '--', 'kubectl', 'exec', '-i', 'weft-0', '--', 'weft', 'app-server'])).code).toBe(
      0,
    );
    const listed = await cli(['list']);
    expect(listed.stdout).toBe(
      [
        'Name  Type     Reached through',
        'box   ssh      dev@build-box port 2222 (weft: weft)',
        'pod   command  kubectl exec -i weft-0 -- weft app-server',
        '',
      ].join('\n'),
    );
    const text = await readFile(join(home.dir, 'config.toml'), 'utf8');
    expect(text.startsWith('# mine\nmodel = "m" # keep me\n')).toBe(true);
    expect((await cli(['remove', 'box'])).code).toBe(0);
    expect(JSON.parse((await cli(['list', '--json'])).stdout)).toEqual({
      pod: { command: ['kubectl', 'exec', '-i', 'weft-0', '--', 'weft', 'app-server'] },
    });
    const refused = await cli(['add', 'bad', '--ssh=-oProxyCommand=x']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('must name a host, not an ssh option');
    await writeFile(join(home.dir, 'config.toml'), '[environments.x]\nport = 1\n');
    const broken = await cli(['list']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('`environments.x` needs `ssh`');
  });
});
