// Worktree threads over the real `weft app-server`, with real git and real bubblewrap: `thread/start
// {weftWorktree: true}` gives the thread its own git worktree (with or without the project's uncommitted
// changes, on a branch and base of its own), its commands write there and never in the project, the
// thread carries `weftWorktree` on start, read, list and resume and after a restart, a project outside
// git is refused, and a trusted project's `[worktree] setup` runs in the sandbox before the first turn
// (its output streamed, a failure shown, the thread usable).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeGitRepo, type GitRepo } from '../support/git-repo';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient, type RpcMessage } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type WeftHome } from '../support/workspace';

const WEFT = resolve(__dirname, '../../bin/weft.js');

let server: MockResponsesServer;
let repo: GitRepo;
let home: WeftHome;
const clients: StdioRpcClient[] = [];
const cleanups: (() => Promise<void>)[] = [];

const FILES = { 'a.txt': 'a one\n', 'gone.txt': 'bye\n', '.gitignore': 'build/\n', 'src/lib.txt': 'lib\n' };

// The temp folders are not writable in the sandbox: every test folder is in one, the worktree's parent too.
const modelConfig = (): string =>
  `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\nsandbox_mode = "workspace-write"\n[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`;

beforeEach(async () => {
  server = await startMockResponsesServer();
  repo = await makeGitRepo(FILES);
  home = await makeWeftHome(modelConfig());
});

afterEach(async () => {
  for (const client of clients.splice(0).reverse()) await client.close();
  for (const c of cleanups.splice(0).reverse()) await c();
  await server.close();
  await repo.cleanup();
  await home.cleanup();
});

const ENV = (): Record<string, string> => ({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' });

async function appServer(): Promise<StdioRpcClient> {
  const client = StdioRpcClient.start(ENV(), repo.dir);
  clients.push(client);
  await client.initialize();
  return client;
}

async function restart(client: StdioRpcClient): Promise<StdioRpcClient> {
  clients.splice(clients.indexOf(client), 1);
  await client.close();
  return appServer();
}

async function ok<T>(client: StdioRpcClient, method: string, params: unknown): Promise<T> {
  const reply = await client.call(method, params);
  if (reply.error) throw new Error(`${method}: ${reply.error.code} ${reply.error.message}`);
  return reply.result as T;
}

const answer = (text: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evAssistantMessage(text), evCompleted()],
});
const command = (id: string, cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd }), evCompleted()],
});

/** Runs one turn to its end; returns the turn/completed params. */
async function turn(client: StdioRpcClient, threadId: string, text: string): Promise<Record<string, unknown>> {
  const from = client.received.length;
  await ok(client, 'turn/start', { threadId, input: [{ type: 'text', text }] });
  return client.notification('turn/completed', (p) => p['threadId'] === threadId, from);
}

interface Started {
  thread: { id: string; cwd: string; weftWorktree?: Worktree; gitInfo: { branch: string | null } | null };
  cwd: string;
}
interface Worktree {
  path: string;
  branch: string;
  baseRef: string;
  projectRoot: string;
}

const worktreesRoot = (): string => join(home.dir, 'worktrees');
const gitIn = (dir: string, ...args: string[]): Promise<string> =>
  new Promise((resolveRun, reject) => {
    const child = spawn('git', args, { cwd: dir });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => (code === 0 ? resolveRun(out) : reject(new Error(`git ${args.join(' ')}: ${err}`))));
  });

describe('thread/start with weftWorktree', () => {
  it('makes a worktree on a new weft/ branch from HEAD; the thread works there and never in the project', async () => {
    await writeFile(repo.path('a.txt'), 'a changed in the project\n');
    await writeFile(repo.path('untracked.txt'), 'only in the project\n');
    const statusBefore = await repo.git('status', '--porcelain');
    const head = (await repo.git('rev-parse', 'HEAD')).trim();
    const client = await appServer();
    const started = await ok<Started>(client, 'thread/start', { cwd: repo.dir, weftWorktree: true });
    const wt = started.thread.weftWorktree;
    expect(wt).toEqual({
      path: expect.stringMatching(new RegExp(`^${worktreesRoot()}/weft-ws-[^/]+-[0-9a-f]{8}/[0-9a-f]{6}$`)) as unknown,
      branch: expect.stringMatching(/^weft\/[0-9a-f]{6}$/) as unknown,
      baseRef: 'main',
      projectRoot: repo.dir,
    });
    if (wt === undefined) throw new Error('no worktree');
    expect(wt.path.endsWith(wt.branch.slice('weft/'.length))).toBe(true);
    expect(started.cwd).toBe(wt.path);
    expect(started.thread.cwd).toBe(wt.path);
    expect(started.thread.gitInfo?.branch).toBe(wt.branch);
    // The committed files, at the project's HEAD; the uncommitted ones stayed home.
    expect((await gitIn(wt.path, 'rev-parse', 'HEAD')).trim()).toBe(head);
    expect((await gitIn(wt.path, 'rev-parse', '--abbrev-ref', 'HEAD')).trim()).toBe(wt.branch);
    expect(await readFile(join(wt.path, 'a.txt'), 'utf8')).toBe('a one\n');
    expect(existsSync(join(wt.path, 'untracked.txt'))).toBe(false);
    const started2 = client.notifications('thread/started').map((p) => p['thread']);
    expect(started2).toEqual([started.thread]);

    server.enqueueMany([command('c1', 'echo made here > agent.txt && pwd'), answer('done')]);
    const done = await turn(client, started.thread.id, 'write a file');
    expect((done['turn'] as { status: string }).status).toBe('completed');
    expect(await readFile(join(wt.path, 'agent.txt'), 'utf8')).toBe('made here\n');
    expect(existsSync(repo.path('agent.txt'))).toBe(false);
    expect(await repo.git('status', '--porcelain')).toBe(statusBefore);

    // Listed with the project, read and resumed with its worktree.
    const listed = await ok<{ data: Started['thread'][] }>(client, 'thread/list', { cwd: repo.dir });
    expect(listed.data.map((t) => [t.id, t.cwd, t.weftWorktree])).toEqual([[started.thread.id, wt.path, wt]]);
    const read = await ok<{ thread: Started['thread'] }>(client, 'thread/read', { threadId: started.thread.id });
    expect(read.thread.weftWorktree).toEqual(wt);
  });

  it('carries the uncommitted changes when asked: changed, staged, deleted and untracked files, not ignored ones', async () => {
    await writeFile(repo.path('a.txt'), 'a changed\n');
    await writeFile(repo.path('staged.txt'), 'staged\n');
    await repo.git('add', 'staged.txt');
    await rm(repo.path('gone.txt'));
    await writeFile(repo.path('src/new.bin'), Buffer.from([0, 1, 2, 255]));
    await rm(repo.path('src/lib.txt'));
    await mkdir(repo.path('fresh/deep'), { recursive: true });
    await writeFile(repo.path('fresh/deep/one.txt'), 'one\n');
    await writeFile(repo.path('fresh/two.txt'), 'two\n');
    await mkdir(repo.path('build'), { recursive: true });
    await writeFile(repo.path('build/out.txt'), 'ignored\n');
    const statusBefore = await repo.git('status', '--porcelain', '--untracked-files=all');

    const client = await appServer();
    const started = await ok<Started>(client, 'thread/start', {
      cwd: repo.dir,
      weftWorktree: true,
      weftWorktreeCarryChanges: true,
    });
    const path = started.thread.weftWorktree?.path ?? '';
    expect(await readFile(join(path, 'a.txt'), 'utf8')).toBe('a changed\n');
    expect(await readFile(join(path, 'staged.txt'), 'utf8')).toBe('staged\n');
    expect(existsSync(join(path, 'gone.txt'))).toBe(false);
    expect(existsSync(join(path, 'src/lib.txt'))).toBe(false);
    expect(await readFile(join(path, 'src/new.bin'))).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(await readFile(join(path, 'fresh/deep/one.txt'), 'utf8')).toBe('one\n');
    expect(await readFile(join(path, 'fresh/two.txt'), 'utf8')).toBe('two\n');
    expect(existsSync(join(path, 'build'))).toBe(false);
    // The same changes, now in the worktree (the staging is not carried: a staged file is new there).
    expect((await gitIn(path, 'status', '--porcelain', '--untracked-files=all')).split('\n').filter(Boolean)).toEqual([
      ' M a.txt',
      ' D gone.txt',
      ' D src/lib.txt',
      '?? fresh/deep/one.txt',
      '?? fresh/two.txt',
      '?? src/new.bin',
      '?? staged.txt',
    ]);
    // The project is as it was.
    expect(await repo.git('status', '--porcelain', '--untracked-files=all')).toBe(statusBefore);
  });

  it('takes a branch name and a base of the client, and refuses names and bases that cannot be', async () => {
    const first = (await repo.git('rev-parse', 'HEAD')).trim();
    await repo.git('tag', 'v1');
    await writeFile(repo.path('a.txt'), 'a two\n');
    await repo.git('commit', '-qam', 'second');
    await repo.git('branch', 'taken');
    const client = await appServer();
    const started = await ok<Started>(client, 'thread/start', {
      cwd: repo.dir,
      weftWorktree: true,
      weftBranch: 'feature/login',
      weftBaseRef: 'v1',
    });
    const wt = started.thread.weftWorktree;
    expect(wt).toEqual({
      path: expect.stringMatching(/\/feature-login$/) as unknown,
      branch: 'feature/login',
      baseRef: 'v1',
      projectRoot: repo.dir,
    });
    expect((await gitIn(wt?.path ?? '', 'rev-parse', 'HEAD')).trim()).toBe(first);
    expect(await readFile(join(wt?.path ?? '', 'a.txt'), 'utf8')).toBe('a one\n');

    const refused = async (params: object): Promise<RpcMessage['error']> =>
      (await client.call('thread/start', { cwd: repo.dir, weftWorktree: true, ...params })).error;
    expect(await refused({ weftBranch: 'taken' })).toEqual({
      code: -32602,
      message: `weftBranch: a branch "taken" already exists in ${repo.dir}; name a new one`,
    });
    expect(await refused({ weftBranch: 'bad..name' })).toEqual({
      code: -32602,
      message: 'weftBranch: "bad..name" is not a valid branch name',
    });
    expect(await refused({ weftBaseRef: 'no-such-ref' })).toEqual({
      code: -32602,
      message: `weftBaseRef: "no-such-ref" names no commit in ${repo.dir}`,
    });
    // Nothing was made for the refused ones.
    const branches = (await repo.git('branch', '--format=%(refname:short)')).split('\n').filter((b) => b !== '');
    expect(branches.sort()).toEqual(['feature/login', 'main', 'taken']);
    expect(readdirSync(join(wt?.path ?? '', '..'))).toEqual(['feature-login']);
  });

  it('refuses a project outside git, saying why, and makes nothing', async () => {
    const plain = await makeTempWorkspace({ 'notes.txt': 'x\n' });
    cleanups.push(() => plain.cleanup());
    const client = await appServer();
    const reply = await client.call('thread/start', { cwd: plain.dir, weftWorktree: true });
    expect(reply.error).toEqual({
      code: -32602,
      message: `${plain.dir} is not in a git repository, and a worktree thread needs one: start a Local thread, or run \`git init\` and make a first commit`,
    });
    expect(existsSync(worktreesRoot())).toBe(false);
    expect(client.notifications('thread/started')).toEqual([]);
  });

  it('keeps the worktree across a restart: list, read and resume carry it, and the next turn works there', async () => {
    let client = await appServer();
    const started = await ok<Started>(client, 'thread/start', { cwd: repo.dir, weftWorktree: true });
    const wt = started.thread.weftWorktree;
    server.enqueueMany([answer('first')]);
    await turn(client, started.thread.id, 'hello');
    client = await restart(client);

    const listed = await ok<{ data: Started['thread'][] }>(client, 'thread/list', { cwd: repo.dir });
    expect(listed.data.map((t) => [t.id, t.weftWorktree])).toEqual([[started.thread.id, wt]]);
    const read = await ok<{ thread: Started['thread'] }>(client, 'thread/read', {
      threadId: started.thread.id,
      includeTurns: true,
    });
    expect(read.thread.weftWorktree).toEqual(wt);
    const resumed = await ok<Started>(client, 'thread/resume', { threadId: started.thread.id });
    expect(resumed.thread.weftWorktree).toEqual(wt);
    expect(resumed.cwd).toBe(wt?.path);

    server.enqueueMany([command('c1', 'echo again > after-restart.txt'), answer('done')]);
    await turn(client, started.thread.id, 'write');
    expect(existsSync(join(wt?.path ?? '', 'after-restart.txt'))).toBe(true);
    expect(existsSync(repo.path('after-restart.txt'))).toBe(false);
    // An archived worktree thread is listed (archived) with its worktree too.
    await ok(client, 'thread/archive', { threadId: started.thread.id });
    const archived = await ok<{ data: Started['thread'][] }>(client, 'thread/list', { cwd: repo.dir, archived: true });
    expect(archived.data.map((t) => [t.id, t.weftWorktree])).toEqual([[started.thread.id, wt]]);
  });
});

describe('forks and worktrees', () => {
  it('gives a fork with files its own worktree in weftWorktree; a fork without files shares its source’s', async () => {
    const client = await appServer();
    const local = await ok<Started>(client, 'thread/start', { cwd: repo.dir });
    server.enqueueMany([answer('local done')]);
    await turn(client, local.thread.id, 'hello');
    const started = await ok<Started>(client, 'thread/start', { cwd: repo.dir, weftWorktree: true });
    const wt = started.thread.weftWorktree;
    server.enqueueMany([command('c1', 'echo in the worktree > made.txt'), answer('done')]);
    await turn(client, started.thread.id, 'make a file');

    const shared = await ok<Started>(client, 'thread/fork', { threadId: started.thread.id });
    expect(shared.thread.weftWorktree).toEqual(wt);
    expect(shared.cwd).toBe(wt?.path);

    const own = await ok<Started>(client, 'thread/fork', { threadId: started.thread.id, weftWorktree: true });
    expect(own.thread.weftWorktree).toEqual({
      path: expect.stringMatching(new RegExp(`^${worktreesRoot()}/[0-9a-f]{8}$`)) as unknown,
      branch: expect.stringMatching(/^weft\/[0-9a-f]{8}$/) as unknown,
      baseRef: wt?.branch,
      projectRoot: repo.dir,
    });
    expect(own.cwd).toBe(own.thread.weftWorktree?.path);
    expect(await readFile(join(own.cwd, 'made.txt'), 'utf8')).toBe('in the worktree\n');

    const ofLocal = await ok<Started>(client, 'thread/fork', { threadId: local.thread.id, weftWorktree: true });
    expect(ofLocal.thread.weftWorktree).toEqual({
      path: ofLocal.cwd,
      branch: expect.stringMatching(/^weft\/[0-9a-f]{8}$/) as unknown,
      baseRef: 'main',
      projectRoot: repo.dir,
    });
    // All of them are the project's threads.
    const listed = await ok<{ data: Started['thread'][] }>(client, 'thread/list', { cwd: repo.dir });
    expect(listed.data.map((t) => t.id).sort()).toEqual(
      [local.thread.id, started.thread.id, shared.thread.id, own.thread.id, ofLocal.thread.id].sort(),
    );
  });
});

/** `weft config trust DIR`: the project and its config files as they are now. */
function trust(dir: string): Promise<number | null> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [WEFT, 'config', 'trust', dir], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...ENV() },
    });
    child.on('error', reject);
    child.on('close', (code) => resolveRun(code));
  });
}

async function projectConfig(text: string): Promise<void> {
  await mkdir(repo.path('.weft'), { recursive: true });
  await writeFile(repo.path('.weft/config.toml'), text);
  await repo.git('add', '.weft/config.toml');
  await repo.git('commit', '-qm', 'project config');
}

interface CommandItem {
  type: string;
  command: string;
  status: string;
  exitCode: number | null;
  aggregatedOutput: string | null;
  weftWorktreeSetup?: boolean;
}

describe('the setup script', () => {
  it('of a trusted project runs in the sandbox before the first turn, its output streamed as a command item', async () => {
    await projectConfig('[worktree]\nsetup = "echo setting up && echo ready > .setup-done && touch ../escaped"\n');
    expect(await trust(repo.dir)).toBe(0);
    const client = await appServer();
    const from = client.received.length;
    const started = await ok<Started>(client, 'thread/start', { cwd: repo.dir, weftWorktree: true });
    const threadId = started.thread.id;
    // A turn asked for at once waits for the setup to end.
    server.enqueueMany([answer('after setup')]);
    const regular = await ok<{ turn: { id: string } }>(client, 'turn/start', {
      threadId,
      input: [{ type: 'text', text: 'go' }],
    });
    await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === regular.turn.id, from);

    const path = started.thread.weftWorktree?.path ?? '';
    const order = client.received
      .slice(from)
      .filter((m) => m.method === 'turn/started' || m.method === 'turn/completed')
      .map((m) => [m.method, (m.params as { turn: { id: string } }).turn.id === regular.turn.id ? 'regular' : 'setup']);
    expect(order).toEqual([
      ['turn/started', 'setup'],
      ['turn/completed', 'setup'],
      ['turn/started', 'regular'],
      ['turn/completed', 'regular'],
    ]);
    const completed = client
      .notifications('item/completed')
      .map((p) => p['item'] as CommandItem)
      .filter((item) => item.type === 'commandExecution');
    expect(completed).toEqual([
      expect.objectContaining({
        command: 'echo setting up && echo ready > .setup-done && touch ../escaped',
        status: 'failed',
        exitCode: 1,
        weftWorktreeSetup: true,
        cwd: path,
      }),
    ]);
    const output = client
      .notifications('item/commandExecution/outputDelta')
      .map((p) => p['delta'])
      .join('');
    expect(output).toContain('setting up');
    expect(completed[0]?.aggregatedOutput).toBe(output);
    // It ran in the worktree, inside the sandbox: the folder above the worktree is not writable.
    expect(await readFile(join(path, '.setup-done'), 'utf8')).toBe('ready\n');
    expect(existsSync(join(path, '..', 'escaped'))).toBe(false);
    expect(existsSync(repo.path('.setup-done'))).toBe(false);
    // A failure is said; the thread went on.
    expect(client.notifications('warning').map((p) => p['message'])).toEqual([
      expect.stringContaining(
        'The worktree setup script `echo setting up && echo ready > .setup-done && touch ../escaped` failed: it exited with code 1',
      ) as unknown,
    ]);
    // The model heard of it with the first turn.
    const body = JSON.stringify(server.requests[0]?.body ?? {});
    expect(body).toContain('<worktree_setup>');
  });

  it('that passes completes as a command item and says nothing more; an untrusted project runs none', async () => {
    await projectConfig('[worktree]\nsetup = "echo all good"\n');
    let client = await appServer();
    // Not trusted yet: no setup turn.
    const untrusted = await ok<Started>(client, 'thread/start', { cwd: repo.dir, weftWorktree: true });
    server.enqueueMany([answer('plain')]);
    await turn(client, untrusted.thread.id, 'hi');
    expect(
      client.notifications('item/started').filter((p) => (p['item'] as CommandItem).type === 'commandExecution'),
    ).toEqual([]);
    expect(await trust(repo.dir)).toBe(0);
    client = await restart(client);
    const from = client.received.length;
    const started = await ok<Started>(client, 'thread/start', { cwd: repo.dir, weftWorktree: true });
    const done = await client.notification('turn/completed', (p) => p['threadId'] === started.thread.id, from);
    expect((done['turn'] as { status: string }).status).toBe('completed');
    const items = (done['turn'] as { items: CommandItem[] }).items;
    expect(items).toEqual([
      expect.objectContaining({
        type: 'commandExecution',
        command: 'echo all good',
        status: 'completed',
        exitCode: 0,
        aggregatedOutput: 'all good\n',
        weftWorktreeSetup: true,
      }),
    ]);
    expect(client.notifications('warning')).toEqual([]);
    // A local thread of the same project runs no setup.
    const local = await ok<Started>(client, 'thread/start', { cwd: repo.dir });
    expect(local.thread.weftWorktree).toBeUndefined();
    expect(local.cwd).toBe(repo.dir);
  });
});
