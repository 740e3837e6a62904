// The tools of a project on an environment, through the host of a window (`weft serve` without `--env`,
// whose `EnvironmentRouter` passes requests naming an environment to it): the terminal (`command/exec` and
// its follow-ups, the output reaching only the client whose shell it is), the Changes panel's `weft/git/*`,
// the composer's `@` file search (`fuzzyFileSearch`) and a fork of a thread there. The environment is the
// `command` form, a local pipe to this checkout's `weft app-server` under its own WEFT_HOME and HOME, as
// `kubectl exec -i` would be; what only the remote has (its HOME, its Weft home) shows where each ran.
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childProcesses, cliEnv, remoteWeft, WEFT_BIN } from '../support/environments';
import { makeGitRepo, type GitRepo } from '../support/git-repo';
import { startInProcessHost } from '../support/in-process-host';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { startWeftServe, StdioRpcClient, WsRpcClient, type RpcClient } from '../support/rpc-client';
import { startLocalSite } from '../support/local-site';
import { answerTurn, evCompleted, evCreated, evNamespacedCall } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let here: TempWorkspace;
let remoteUserHome: TempWorkspace;
let repo: GitRepo;
let remote: WeftHome;
let local: WeftHome;
let served: Awaited<ReturnType<typeof startWeftServe>>;
const cleanups: (() => Promise<unknown>)[] = [];

const MOCK_MODEL = (url: string, model = 'mock-model'): string =>
  `model = "${model}"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`;

const ON = { weftEnvironment: 'pipe' } as const;

beforeAll(async () => {
  server = await startMockResponsesServer();
  here = await makeTempWorkspace({ 'here.txt': 'local\n' });
  remoteUserHome = await makeTempWorkspace({ '.profile': '' });
  repo = await makeGitRepo({ 'README.md': '# Remote\n', 'src/deep/needle-file.ts': 'export {};\n' });
  // The remote's config names its own model.
  remote = await makeWeftHome(
    `${MOCK_MODEL(server.url, 'box-model')}[mcp_servers.only-there]\ncommand = "true"\nenabled = false\n`,
  );
  const pipe = `HOME=${remoteUserHome.dir} ${remoteWeft(remote.dir)} app-server`;
  local = await makeWeftHome(
    [MOCK_MODEL(server.url), '[environments.pipe]', `command = ["sh", "-c", ${JSON.stringify(pipe)}]`, ''].join('\n'),
  );
  served = await startWeftServe(cliEnv(local.dir), here.dir);
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await served.stop();
  await server.close();
  for (const dir of [here, remoteUserHome, repo]) await dir.cleanup();
  await remote.cleanup();
  await local.cleanup();
});

/** A client of the `weft serve` (a page would be one). */
async function page(): Promise<WsRpcClient> {
  const client = await WsRpcClient.connect(served.wsUrl);
  cleanups.push(() => client.close());
  await client.initialize();
  return client;
}

/** What process `processId` wrote to `client` so far, decoded. */
function output(client: RpcClient, processId: string): string {
  return client
    .notifications('command/exec/outputDelta')
    .filter((p) => p['processId'] === processId)
    .map((p) => Buffer.from(String(p['deltaBase64']), 'base64').toString('utf8'))
    .join('');
}

function outputHas(client: RpcClient, processId: string, text: string): Promise<unknown> {
  return client.notification('command/exec/outputDelta', () => output(client, processId).includes(text));
}

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

describe('a project on an environment: its terminal, git, file search and forks run there', () => {
  it('runs a terminal there, its output only to the client whose shell it is', async () => {
    const a = await page();
    const b = await page();
    // Both clients name their shell alike: a process id is the client's own, there as here.
    const shell = (who: string) => ({
      command: ['/bin/sh', '-c', `echo ready; read line; echo "${who} got $line from $HOME in $(pwd)"`],
      cwd: repo.dir,
      processId: 'shell-1',
      tty: true,
      size: { cols: 80, rows: 24 },
      sandboxPolicy: { type: 'dangerFullAccess' },
      ...ON,
    });
    const aExit = a.request<{ exitCode: number }>('command/exec', shell('a'));
    const bExit = b.request<{ exitCode: number }>('command/exec', shell('b'));
    await outputHas(a, 'shell-1', 'ready');
    await outputHas(b, 'shell-1', 'ready');
    expect(
      await a.request('command/exec/resize', { processId: 'shell-1', size: { cols: 100, rows: 30 }, ...ON }),
    ).toEqual({});
    await a.request('command/exec/write', { processId: 'shell-1', deltaBase64: base64('hello\n'), ...ON });
    await outputHas(a, 'shell-1', `a got hello from ${remoteUserHome.dir} in ${repo.dir}`);
    expect(await aExit).toMatchObject({ exitCode: 0 });
    await b.request('command/exec/write', { processId: 'shell-1', deltaBase64: base64('bye\n'), ...ON });
    await outputHas(b, 'shell-1', `b got bye from ${remoteUserHome.dir} in ${repo.dir}`);
    expect(await bExit).toMatchObject({ exitCode: 0 });
    expect(output(a, 'shell-1')).not.toContain('b got');
    expect(output(b, 'shell-1')).not.toContain('a got');

    // A shell closed with the tab ends there.
    const long = a.request<{ exitCode: number }>('command/exec', {
      ...shell('a'),
      processId: 'shell-2',
      command: ['/bin/sh', '-c', 'echo waiting; exec sleep 600'],
    });
    await outputHas(a, 'shell-2', 'waiting');
    await a.request('command/exec/terminate', { processId: 'shell-2', ...ON });
    expect((await long).exitCode).not.toBe(0);
    // Without the environment, the follow-ups are this machine's, which has no such process.
    const stray = await a.call('command/exec/write', { processId: 'shell-1', deltaBase64: base64('x') });
    expect(stray.error?.message).toContain('shell-1');
  });

  it("reads and changes the project's git there, its discards kept in the remote's Weft home", async () => {
    const client = await page();
    await writeFile(repo.path('README.md'), '# Remote\n\nchanged there\n');
    await writeFile(repo.path('notes.txt'), 'new\n');
    const status = await client.request<{ enabled: boolean; files: { path: string }[] }>('weft/git/status', {
      cwd: repo.dir,
      ...ON,
    });
    expect(status.enabled).toBe(true);
    expect(status.files.map((f) => f.path).sort()).toEqual(['README.md', 'notes.txt']);
    const diff = await client.request<{ diff: string }>('weft/git/diff', {
      cwd: repo.dir,
      path: 'README.md',
      area: 'unstaged',
      ...ON,
    });
    expect(diff.diff).toContain('+changed there');
    await client.request('weft/git/stage', { cwd: repo.dir, path: 'README.md', ...ON });
    const commit = await client.request<{ summary: string }>('weft/git/commit', {
      cwd: repo.dir,
      message: 'Change the readme there',
      ...ON,
    });
    expect(commit.summary).toContain('Change the readme there');
    expect(await repo.git('log', '-1', '--format=%s')).toBe('Change the readme there\n');
    const branches = await client.request<{ current: string | null }>('weft/git/branches', { cwd: repo.dir, ...ON });
    expect(branches.current).toBe('main');

    // A discard is kept by the Weft that made it: the remote's, listed there and not here.
    await client.request('weft/git/discard', { cwd: repo.dir, path: 'notes.txt', ...ON });
    await expect(readFile(repo.path('notes.txt'), 'utf8')).rejects.toThrow();
    const there = await client.request<{ discards: { id: string; path: string }[] }>('weft/git/discard/list', {
      cwd: repo.dir,
      ...ON,
    });
    expect(there.discards.map((d) => d.path)).toEqual(['notes.txt']);
    const hereList = await client.request<{ discards: unknown[] }>('weft/git/discard/list', { cwd: repo.dir });
    expect(hereList.discards).toEqual([]);
    await client.request('weft/git/discard/restore', { cwd: repo.dir, id: there.discards[0]?.id, ...ON });
    expect(await readFile(repo.path('notes.txt'), 'utf8')).toBe('new\n');
  });

  it("finds the project's files there for @", async () => {
    const client = await page();
    const found = await client.request<{ files: { root: string; path: string }[] }>('fuzzyFileSearch', {
      query: 'needle',
      roots: [repo.dir],
      ...ON,
    });
    expect(found.files.map((f) => [f.root, f.path])).toEqual([[repo.dir, 'src/deep/needle-file.ts']]);
    const unknown = await client.call('fuzzyFileSearch', {
      query: 'needle',
      roots: [repo.dir],
      weftEnvironment: 'nowhere',
    });
    expect(unknown.error?.message).toBe('no environment named "nowhere" in config.toml (configured: pipe)');
  });

  it('forks a thread there, also from a host that has not seen it', async () => {
    const client = await page();
    server.enqueue(answerTurn('first answer there'));
    const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: repo.dir, ...ON });
    const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
      threadId: thread.id,
      input: [{ type: 'text', text: 'first' }],
    });
    await client.notification('turn/completed', (p) => p['threadId'] === thread.id);

    interface Forked {
      thread: { id: string; path: string; cwd: string; forkedFromId?: string | null; weftEnvironment?: string };
    }
    const fork = await client.request<Forked>('thread/fork', { threadId: thread.id, weftTurnId: turn.id });
    expect(fork.thread).toMatchObject({ forkedFromId: thread.id, cwd: repo.dir, weftEnvironment: 'pipe' });
    expect(fork.thread.path.startsWith(remote.dir)).toBe(true);
    // The fork runs there too.
    server.enqueue(answerTurn('fork answer there'));
    await client.request('turn/start', { threadId: fork.thread.id, input: [{ type: 'text', text: 'again' }] });
    const done = await client.notification('turn/completed', (p) => p['threadId'] === fork.thread.id);
    expect(done['turn']).toMatchObject({ status: 'completed' });

    // A fork with files works in a worktree there, listed under the project there.
    const inWorktree = await client.request<Forked>('thread/fork', {
      threadId: thread.id,
      weftTurnId: turn.id,
      weftWorktree: true,
    });
    expect(inWorktree.thread.weftEnvironment).toBe('pipe');
    const forks = await client.request<{ data: { threadId: string; project: string; cwd: string }[] }>(
      'weft/forks/list',
      { cwd: repo.dir, ...ON },
    );
    expect(forks.data.map((f) => [f.threadId, f.project])).toEqual([[inWorktree.thread.id, repo.dir]]);
    expect((await client.request<{ data: unknown[] }>('weft/forks/list', { cwd: repo.dir })).data).toEqual([]);
    const listed = await client.request<{ data: { id: string; weftEnvironment?: string }[] }>('thread/list', {
      cwd: [repo.dir, ...forks.data.map((f) => f.cwd)],
      ...ON,
    });
    expect(listed.data.find((t) => t.id === inWorktree.thread.id)?.weftEnvironment).toBe('pipe');

    // Another host (a restarted window's) is told where the thread lives.
    const child = spawn(process.execPath, [WEFT_BIN, 'app-server'], { cwd: here.dir, env: cliEnv(local.dir) });
    const fresh = StdioRpcClient.attach(child);
    cleanups.push(() => fresh.close());
    await fresh.initialize();
    const named = await fresh.request<Forked>('thread/fork', { threadId: thread.id, ...ON });
    expect(named.thread).toMatchObject({ forkedFromId: thread.id, weftEnvironment: 'pipe' });
    expect(named.thread.path.startsWith(remote.dir)).toBe(true);
  });

  it("shows a thread's browser there live, and plays a click there", async () => {
    let seeClick = (): void => undefined;
    const clicked = new Promise<void>((resolve) => (seeClick = resolve));
    const site = await startLocalSite((req, res) => {
      if (req.url === '/clicked') seeClick();
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          '<button style="position:fixed;left:0;top:0;width:400px;height:200px" onclick="fetch(\'/clicked\')">Go</button>',
        );
    });
    cleanups.push(() => site.close());
    const client = await page();
    server.enqueueMany([
      {
        kind: 'sse',
        events: [evCreated(), evNamespacedCall('b1', 'browser', 'open', { url: `${site.url}/` }), evCompleted()],
      },
      answerTurn('opened there'),
    ]);
    const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: repo.dir, ...ON });
    await client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'open it' }] });
    await client.notification('turn/completed', (p) => p['threadId'] === thread.id);
    // The thread is the environment's: the router sends the watch there, and its frames come back.
    expect(await client.request('weft/browser/live/start', { threadId: thread.id })).toEqual({
      page: true,
      url: `${site.url}/`,
    });
    const frame = await client.notification('weft/browser/live/frame', (p) => p['threadId'] === thread.id);
    expect(frame).toMatchObject({ width: 1280, height: 800, url: `${site.url}/` });
    await client.request('weft/browser/live/input', { threadId: thread.id, input: { type: 'click', x: 200, y: 100 } });
    await clicked;
    expect(await client.request('weft/browser/live/stop', { threadId: thread.id })).toEqual({});
  });

  it("lists the environment's models and reads its config, for a project there", async () => {
    const client = await page();
    const models = await client.request<{ data: { id: string; isDefault: boolean }[] }>('model/list', {
      weftCwd: repo.dir,
      ...ON,
    });
    expect(models.data.find((m) => m.isDefault)?.id).toBe('box-model');
    const config = await client.request<{ config: Record<string, unknown> }>('config/read', { cwd: repo.dir, ...ON });
    expect(config.config['model']).toBe('box-model');
    // This machine's are its own.
    const ours = await client.request<{ config: Record<string, unknown> }>('config/read', { cwd: here.dir });
    expect(ours.config['model']).toBe('mock-model');
  });

  it("reads and writes the environment's settings, for a project there, and leaves this machine's alone", async () => {
    const client = await page();
    const localBefore = await readFile(`${local.dir}/config.toml`, 'utf8');
    await client.request('config/value/write', { keyPath: 'approval_policy', value: 'never', ...ON });
    expect(await readFile(`${remote.dir}/config.toml`, 'utf8')).toContain('approval_policy = "never"');
    expect(await readFile(`${local.dir}/config.toml`, 'utf8')).toBe(localBefore);
    const providers = await client.request<{ configFile: string }>('weft/provider/list', { cwd: repo.dir, ...ON });
    expect(providers.configFile).toBe(`${remote.dir}/config.toml`);
    const ours = await client.request<{ configFile: string }>('weft/provider/list', { cwd: here.dir });
    expect(ours.configFile).toBe(`${local.dir}/config.toml`);
    // Its MCP servers are those of its config (one, disabled, is only there).
    const servers = await client.request<{ data: { name: string }[] }>('mcpServerStatus/list', {
      weftCwd: repo.dir,
      ...ON,
    });
    expect(servers.data.map((m) => m.name)).toEqual(['only-there']);
    // Each of Settings' other requests is answered there.
    expect(await client.request('weft/rules/list', { ...ON })).toMatchObject({ rules: [] });
    expect(await client.request('weft/usage/daily', { cwd: repo.dir, ...ON })).toMatchObject({ days: [] });
    expect(await client.request('config/mcpServer/reload', { ...ON })).toEqual({});
    expect(await client.request('weft/checkpoints/size', { ...ON })).toMatchObject({ bytes: expect.any(Number) });
    const hooks = await client.request<{ data: { cwd: string }[] }>('hooks/list', { cwds: [repo.dir], ...ON });
    expect(hooks.data.map((h) => h.cwd)).toEqual([repo.dir]);
  });

  it('is refused by a host that reaches no environments, instead of run on its machine', async () => {
    const inProcess = await startInProcessHost({ weftHome: local.dir, cwd: here.dir });
    try {
      const asks: [string, Record<string, unknown>][] = [
        ['command/exec', { command: ['true'], cwd: repo.dir, ...ON }],
        ['command/exec/write', { processId: 'p', deltaBase64: '', ...ON }],
        ['command/exec/resize', { processId: 'p', size: { cols: 80, rows: 24 }, ...ON }],
        ['command/exec/terminate', { processId: 'p', ...ON }],
        ['fuzzyFileSearch', { query: 'needle', roots: [repo.dir], ...ON }],
        ['weft/git/status', { cwd: repo.dir, ...ON }],
        ['weft/git/stage', { cwd: repo.dir, path: 'README.md', ...ON }],
        ['weft/git/commit', { cwd: repo.dir, message: 'no', ...ON }],
        ['thread/fork', { threadId: '019a0000-0000-7000-8000-000000000000', ...ON }],
        ['weft/forks/list', { cwd: repo.dir, ...ON }],
        ['model/list', { ...ON }],
        ['config/read', { ...ON }],
        ['config/value/write', { keyPath: 'model', value: 'no', ...ON }],
        ['weft/provider/list', { ...ON }],
        ['weft/auth/setKey', { providerId: 'mock', apiKey: 'sk-no', ...ON }],
        ['weft/auth/clearKey', { providerId: 'mock', ...ON }],
        ['weft/rules/list', { ...ON }],
        ['weft/rules/revoke', { id: 'r', ...ON }],
        ['weft/usage/daily', { ...ON }],
        ['hooks/list', { ...ON }],
        ['weft/hooks/trust', { hooks: [{ key: 'k', currentHash: 'h' }], ...ON }],
        ['weft/hooks/setEnabled', { key: 'k', enabled: false, ...ON }],
        ['weft/checkpoints/size', { ...ON }],
        ['mcpServerStatus/list', { ...ON }],
        ['config/mcpServer/reload', { ...ON }],
      ];
      for (const [method, params] of asks) {
        const reply = await inProcess.client.call(method, params);
        expect(reply.error?.message, method).toBe(
          `${method} names the environment "pipe", and this server reaches no environments: send it to the Weft that has them configured (weft serve, weft app-server or the desktop app)`,
        );
      }
    } finally {
      await inProcess.close();
    }
  });

  // Last: it cuts the host's link to the environment (the relay makes a new one for the next request). The
  // environment is a `command` without `--attach`: its app server, and the shell, end with the pipe, so the
  // reconnect finds the shell not kept.
  it('tells a terminal whose link dropped that the shell there was lost with it, naming the environment', async () => {
    const a = await page();
    const shell = a.call('command/exec', {
      command: ['/bin/sh', '-c', 'echo started; exec sleep 600'],
      cwd: repo.dir,
      processId: 'cut-1',
      tty: true,
      size: { cols: 80, rows: 24 },
      sandboxPolicy: { type: 'dangerFullAccess' },
      ...ON,
    });
    await outputHas(a, 'cut-1', 'started');
    // The pipe to the environment (its `weft app-server`, a child of the host) is killed, as a dropped link would be.
    const children = await childProcesses(served.pid);
    const lines = await Promise.all(children.map(([pid]) => readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')));
    const pipes = children.filter((_, i) => lines[i]?.includes('app-server'));
    expect(pipes).toHaveLength(1);
    const from = a.received.length;
    for (const [pid] of pipes) process.kill(pid, 'SIGKILL');
    const answer = await shell;
    expect(answer.error?.message).toContain('the link to environment "pipe" closed');
    // Said in a form a client can tell from a shell that could not start.
    expect(answer.error?.data).toEqual({ weftLinkDropped: { environment: 'pipe', notKept: true } });
    await a.notification('weft/environment/status', (p) => p['state'] === 'reconnecting', from);
  });
});
