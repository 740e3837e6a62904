// A window holding several projects asks the one app server about the project it shows, not the one the
// server was started in (`--cd`): `model/list {weftCwd}` and `mcpServerStatus/list {weftCwd}` (no thread
// open) read that project's trusted config, and `fs/readFile` reads in a project once the client has
// listed its threads (as the project switcher does), with no thread of it loaded. `thread/list
// {weftNeedsYou}` finds the threads of a project that wait on the person however old they are.
import { mkdir, writeFile } from 'node:fs/promises';
import type { Turn } from '../../src-preload/protocol';
import { ThreadStore } from '../../src-main/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { saveThreads } from '../support/saved-threads';
import { runWeftCli } from '../support/weft-cli';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let started: TempWorkspace;
let other: TempWorkspace;
let home: WeftHome;
let client: StdioRpcClient | null = null;

beforeEach(async () => {
  server = await startMockResponsesServer();
  started = await makeTempWorkspace({ '.git/HEAD': 'ref: refs/heads/main\n', 'a.txt': 'in the first project\n' });
  other = await makeTempWorkspace({ '.git/HEAD': 'ref: refs/heads/main\n', 'b.txt': 'in the other project\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  // The other project's own config, trusted: its own model and an MCP server of its own.
  await mkdir(other.path('.weft'), { recursive: true });
  await writeFile(
    other.path('.weft/config.toml'),
    'model = "other-model"\n[mcp_servers.other-docs]\ncommand = "false"\nstartup_timeout_sec = 5\n',
  );
  const trusted = await runWeftCli(['config', 'trust'], { cwd: other.dir, weftHome: home.dir });
  expect(trusted.code).toBe(0);
});

afterEach(async () => {
  await client?.close();
  client = null;
  await server.close();
  await started.cleanup();
  await other.cleanup();
  await home.cleanup();
});

async function appServer(): Promise<StdioRpcClient> {
  const c = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, started.dir);
  await c.initialize();
  return c;
}

describe('services for the project a client shows', () => {
  it('lists the models and MCP servers of the project the client names, not of --cd', async () => {
    client = await appServer();
    const defaultOf = (result: { data: { id: string; isDefault: boolean }[] }) =>
      result.data.filter((m) => m.isDefault).map((m) => m.id);
    expect(defaultOf(await client.request('model/list', {}))).toEqual(['mock-model']);
    expect(defaultOf(await client.request('model/list', { weftCwd: other.dir }))).toEqual(['other-model']);
    const names = (result: { data: { name: string }[] }) => result.data.map((s) => s.name);
    expect(names(await client.request('mcpServerStatus/list', {}))).toEqual([]);
    expect(names(await client.request('mcpServerStatus/list', { weftCwd: other.dir }))).toEqual(['other-docs']);
  });

  it('reads a file of a project whose threads the client listed, and none of a project it never named', async () => {
    client = await appServer();
    const read = (path: string) => client?.call('fs/readFile', { path });
    expect((await read(started.path('a.txt')))?.result).toEqual({
      dataBase64: Buffer.from('in the first project\n').toString('base64'),
    });
    const refused = await read(other.path('b.txt'));
    expect(refused?.error).toEqual({
      code: -32602,
      message: `${other.path('b.txt')} is outside the folders this server reads (the project, the threads' folders and WEFT_HOME)`,
    });
    await client.request('thread/list', { cwd: [other.dir], archived: false });
    expect((await read(other.path('b.txt')))?.result).toEqual({
      dataBase64: Buffer.from('in the other project\n').toString('base64'),
    });
    // Another connection has named no project but the server's.
    const second = await appServer();
    try {
      expect((await second.call('fs/readFile', { path: other.path('b.txt') })).error?.code).toBe(-32602);
    } finally {
      await second.close();
    }
  });
});

describe('account and commands for the project a request names', () => {
  it('reads the account of the provider the named project configures, and runs commands there by default', async () => {
    // A third project whose trusted config picks a provider that needs a key this server lacks.
    const keyless = await makeTempWorkspace({ '.git/HEAD': 'ref: refs/heads/main\n', 'c.txt': 'third\n' });
    try {
      await mkdir(keyless.path('.weft'), { recursive: true });
      await writeFile(
        keyless.path('.weft/config.toml'),
        'model_provider = "keyless"\n[model_providers.keyless]\nname = "Keyless"\nbase_url = "http://127.0.0.1:9/v1"\nenv_key = "KEYLESS_API_KEY"\nwire_api = "responses"\n',
      );
      expect((await runWeftCli(['config', 'trust'], { cwd: keyless.dir, weftHome: home.dir })).code).toBe(0);
      await mkdir(keyless.path('sub'));
      client = await appServer();
      expect(await client.request('account/read', {})).toEqual({
        account: { type: 'apiKey' },
        requiresOpenaiAuth: false,
      });
      expect(await client.request('account/read', { weftCwd: keyless.dir })).toEqual({
        account: null,
        requiresOpenaiAuth: false,
      });
      const pwd = (params: Record<string, unknown>) =>
        client?.request<{ exitCode: number; stdout: string }>('command/exec', {
          command: ['pwd'],
          sandboxPolicy: { type: 'readOnly' },
          ...params,
        });
      expect(await pwd({})).toEqual({ exitCode: 0, stdout: `${started.dir}\n`, stderr: '' });
      expect(await pwd({ weftCwd: other.dir })).toEqual({ exitCode: 0, stdout: `${other.dir}\n`, stderr: '' });
      // A relative cwd is taken from the named project; an absolute one wins over it.
      expect(await pwd({ weftCwd: keyless.dir, cwd: 'sub' })).toEqual({
        exitCode: 0,
        stdout: `${keyless.path('sub')}\n`,
        stderr: '',
      });
      expect(await pwd({ weftCwd: keyless.dir, cwd: other.dir })).toEqual({
        exitCode: 0,
        stdout: `${other.dir}\n`,
        stderr: '',
      });
    } finally {
      await keyless.cleanup();
    }
  });
});

/** A saved thread of `cwd` whose one turn failed, `read` or not since, a year ago. */
async function saveFailedThread(cwd: string, id: string, read: boolean): Promise<void> {
  const yearAgo = Date.now() - 365 * 24 * 3600 * 1000;
  const store = ThreadStore.open(home.dir, { now: () => new Date(yearAgo), onWarning: () => undefined });
  try {
    const { recorder } = store.createThread({
      id,
      cwd,
      modelProvider: 'mock',
      model: 'mock-model',
      source: 'appServer',
      baseInstructions: null,
    });
    const turn: Turn = {
      id: `${id}-turn`,
      items: [],
      status: 'inProgress',
      error: null,
      startedAt: Math.floor(yearAgo / 1000),
      completedAt: null,
      durationMs: null,
    };
    recorder.notification({ method: 'turn/started', params: { threadId: id, turn } });
    recorder.responseItems([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: `task ${id}` }] }]);
    recorder.notification({
      method: 'turn/completed',
      params: { threadId: id, turn: { ...turn, status: 'failed', error: { message: 'the model went away' } } },
    });
    await recorder.turnEnded();
    await recorder.close();
    await store.recordAttribute(id, { type: 'weft_thread_read_state', mark: 'turnEnded', ended_turn_id: turn.id });
    if (read) await store.recordAttribute(id, { type: 'weft_thread_read_state', mark: 'read' });
  } finally {
    await store.close();
  }
}

describe('thread/list {weftNeedsYou}', () => {
  it('lists the threads of a project that wait on the person, past its newest 100', async () => {
    await saveFailedThread(other.dir, 'thr-failed-unread', false);
    await saveFailedThread(other.dir, 'thr-failed-read', true);
    await saveThreads(
      home.dir,
      other.dir,
      Array.from({ length: 105 }, (_, i) => `newer task ${i}`),
    );
    client = await appServer();
    const ids = (r: { data: { id: string }[] }) => r.data.map((t) => t.id);
    const first = await client.request<{ data: { id: string }[] }>('thread/list', {
      cwd: other.dir,
      archived: false,
      sortKey: 'updated_at',
      limit: 100,
    });
    expect(ids(first)).not.toContain('thr-failed-unread');
    const needing = await client.request<{ data: { id: string; weftLastTurnStatus?: string }[] }>('thread/list', {
      cwd: other.dir,
      archived: false,
      sortKey: 'updated_at',
      weftNeedsYou: true,
    });
    expect(needing.data.map((t) => ({ id: t.id, last: t.weftLastTurnStatus }))).toEqual([
      { id: 'thr-failed-unread', last: 'failed' },
    ]);
    // Another project's: none.
    expect(ids(await client.request('thread/list', { cwd: started.dir, weftNeedsYou: true }))).toEqual([]);
  });
});

describe('skills and MCP sign-in for the project a request names', () => {
  it('lists skills of the folders named (or weftCwd) and signs in to the servers of the named project or thread', async () => {
    // The server runs in a project whose trusted config names a provider that does not exist: a request
    // about another folder must not depend on it.
    const broken = await makeTempWorkspace({ '.git/HEAD': 'ref: refs/heads/main\n' });
    // A project with a skill and an MCP server of its own (a stdio one: which config was read shows in the
    // refusal, before any sign-in starts).
    const narrow = await makeTempWorkspace({
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.agents/skills/outer/SKILL.md': '---\nname: outer\ndescription: At the project root.\n---\nBody.\n',
    });
    try {
      await mkdir(broken.path('.weft'), { recursive: true });
      await writeFile(broken.path('.weft/config.toml'), 'model_provider = "nowhere"\n');
      expect((await runWeftCli(['config', 'trust'], { cwd: broken.dir, weftHome: home.dir })).code).toBe(0);
      await mkdir(narrow.path('.weft'), { recursive: true });
      await writeFile(narrow.path('.weft/config.toml'), '[mcp_servers.narrow-local]\ncommand = "false"\n');
      expect((await runWeftCli(['config', 'trust'], { cwd: narrow.dir, weftHome: home.dir })).code).toBe(0);
      const c = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, broken.dir);
      client = c;
      await c.initialize();
      const skills = async (params: Record<string, unknown>) =>
        (await c.request<{ data: { cwd: string; skills: { name: string }[] }[] }>('skills/list', params)).data.map(
          (d) => [d.cwd, d.skills.filter((s) => s.name === 'outer').map((s) => s.name)],
        );
      expect(await skills({ cwds: [narrow.dir] })).toEqual([[narrow.dir, ['outer']]]);
      expect(await skills({ weftCwd: narrow.dir })).toEqual([[narrow.dir, ['outer']]]);

      const login = (params: Record<string, unknown>) => c.call('mcpServer/oauth/login', params);
      const stdio = 'params.name: "narrow-local" is a stdio server; OAuth is for servers reached by URL';
      expect((await login({ name: 'narrow-local', weftCwd: narrow.dir })).error?.message).toBe(stdio);
      const { thread } = await c.request<{ thread: { id: string } }>('thread/start', {
        cwd: narrow.dir,
        ephemeral: true,
      });
      expect((await login({ name: 'narrow-local', threadId: thread.id })).error?.message).toBe(stdio);
      expect((await login({ name: 'narrow-local', threadId: 'not-a-thread' })).error?.message).toBe(
        'thread not-a-thread is not loaded; call thread/resume first',
      );
    } finally {
      await narrow.cleanup();
      await broken.cleanup();
    }
  });
});
