// Weft's set-up requests through the real app server: providers and where their key comes from, a key
// saved and used by the next turn of an open thread (no restart), remembered rules listed and revoked,
// and folder completion.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { answerTurn } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let client: StdioRpcClient | null = null;

const CONFIG = (url: string) =>
  `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'one\n', 'src/app.ts': 'x\n', 'scripts/a.sh': 'y\n' });
  home = await makeWeftHome(CONFIG(server.url));
});

afterEach(async () => {
  await client?.close();
  client = null;
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

async function start(env: Record<string, string> = {}): Promise<StdioRpcClient> {
  client = StdioRpcClient.start({ WEFT_HOME: home.dir, ...env }, ws.dir);
  await client.initialize();
  return client;
}

async function runTurn(c: StdioRpcClient, threadId: string, text: string) {
  const from = c.received.length;
  const { turn } = await c.request<{ turn: { id: string } }>('turn/start', {
    threadId,
    input: [{ type: 'text', text }],
  });
  const done = await c.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id, from);
  return done as { turn: { status: string; error: { message: string } | null } };
}

interface ProviderInfo {
  id: string;
  keySource: string | null;
  savedKey: boolean;
  keyRequired: boolean;
  baseUrl: string | null;
}

describe('set-up requests', () => {
  it('saves a key that the next turn of an open thread uses, and never returns it', async () => {
    const c = await start();
    const before = await c.request<{
      providers: ProviderInfo[];
      activeProviderId: string;
      configFile: string;
      keyStorage: string;
    }>('weft/provider/list', {});
    expect(before.activeProviderId).toBe('mock');
    expect(before.configFile).toBe(join(home.dir, 'config.toml'));
    expect(before.keyStorage).toBe('file');
    expect(before.providers.map((p) => p.id)).toEqual(['openai', 'ollama', 'lmstudio', 'mock']);
    expect(before.providers.find((p) => p.id === 'mock')).toEqual({
      id: 'mock',
      name: 'Mock',
      builtin: false,
      baseUrl: server.url.replace(/\/$/, ''),
      wireApi: 'responses',
      envKey: 'MOCK_API_KEY',
      keyRequired: true,
      keySource: null,
      savedKey: false,
    });
    expect(before.providers.find((p) => p.id === 'ollama')).toMatchObject({ keyRequired: false, keySource: null });

    const { thread } = await c.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    const failed = await runTurn(c, thread.id, 'hello');
    expect(failed.turn.status).toBe('failed');
    expect(failed.turn.error?.message).toContain('MOCK_API_KEY is not set');
    expect(failed.turn.error?.message).toContain(join(home.dir, 'config.toml'));
    expect(server.requests).toHaveLength(0);

    const bad = await c.call('weft/auth/setKey', { providerId: 'mock', apiKey: '   ' });
    expect(bad.error?.message).toMatch(/the key is empty/);
    const unknown = await c.call('weft/auth/setKey', { providerId: 'nope', apiKey: 'sk-1' });
    expect(unknown.error?.message).toMatch(/there is no provider "nope"/);

    expect(await c.request('weft/auth/setKey', { providerId: 'mock', apiKey: ' sk-saved-123 ' })).toEqual({
      providerId: 'mock',
      keyStorage: 'file',
    });
    const auth = join(home.dir, 'auth.json');
    expect((await stat(auth)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(auth, 'utf8'))).toEqual({ version: 1, keys: { mock: 'sk-saved-123' } });
    const after = await c.request<{ providers: ProviderInfo[] }>('weft/provider/list', {});
    expect(after.providers.find((p) => p.id === 'mock')).toMatchObject({ keySource: 'saved', savedKey: true });
    expect(JSON.stringify(after)).not.toContain('sk-saved-123');

    server.enqueue(answerTurn('Hello there.'));
    const ok = await runTurn(c, thread.id, 'hello again');
    expect(ok.turn.status).toBe('completed');
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-saved-123');
    expect(JSON.stringify(c.received)).not.toContain('sk-saved-123');

    expect(await c.request('weft/auth/clearKey', { providerId: 'mock' })).toEqual({ removed: true });
    expect(await c.request('weft/auth/clearKey', { providerId: 'mock' })).toEqual({ removed: false });
  });

  it('prefers the environment over a saved key', async () => {
    await writeFile(join(home.dir, 'auth.json'), JSON.stringify({ version: 1, keys: { mock: 'sk-saved' } }), {
      mode: 0o600,
    });
    const c = await start({ MOCK_API_KEY: 'sk-env' });
    const list = await c.request<{ providers: ProviderInfo[] }>('weft/provider/list', {});
    expect(list.providers.find((p) => p.id === 'mock')).toMatchObject({ keySource: 'env', savedKey: true });
    const { thread } = await c.request<{ thread: { id: string } }>('thread/start', { cwd: ws.dir });
    server.enqueue(answerTurn('ok'));
    expect((await runTurn(c, thread.id, 'hi')).turn.status).toBe('completed');
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-env');
  });

  it('lists remembered rules with their origin and revokes one', async () => {
    await mkdir(join(home.dir, 'rules'), { recursive: true });
    await writeFile(
      join(home.dir, 'rules', 'default.toml'),
      '[[rule]]\nid = "r-1"\npattern = ["npm", "test"]\ndecision = "allow"\ncreated_at = "2026-11-20T10:00:00Z"\n\n[[rule]]\nid = "r-2"\npattern = ["git", "push"]\ndecision = "forbidden"\njustification = "never push from the agent"\n',
    );
    const c = await start();
    const listed = await c.request<{ rules: unknown[] }>('weft/rules/list', {});
    expect(listed).toEqual({
      rules: [
        {
          id: 'r-1',
          pattern: ['npm', 'test'],
          decision: 'allow',
          justification: null,
          createdAt: '2026-11-20T10:00:00Z',
          sourceFile: join(home.dir, 'rules', 'default.toml'),
          line: 1,
        },
        {
          id: 'r-2',
          pattern: ['git', 'push'],
          decision: 'forbidden',
          justification: 'never push from the agent',
          createdAt: null,
          sourceFile: join(home.dir, 'rules', 'default.toml'),
          line: 7,
        },
      ],
      warnings: [],
    });
    expect(await c.request('weft/rules/revoke', { id: 'r-1' })).toMatchObject({ revoked: { id: 'r-1' } });
    expect(await c.request('weft/rules/revoke', { id: 'r-1' })).toEqual({ revoked: null });
    expect((await c.request<{ rules: { id: string }[] }>('weft/rules/list', {})).rules.map((r) => r.id)).toEqual([
      'r-2',
    ]);
    expect(await readFile(join(home.dir, 'rules', 'default.toml'), 'utf8')).not.toContain('npm');
  });

  it('completes folder paths and says what a path is', async () => {
    const c = await start();
    expect(await c.request('weft/fs/complete', { path: join(ws.dir, 's') })).toEqual({
      resolved: join(ws.dir, 's'),
      kind: 'missing',
      completions: [join(ws.dir, 'scripts'), join(ws.dir, 'src')],
    });
    expect(await c.request('weft/fs/complete', { path: `${ws.dir}/` })).toEqual({
      resolved: ws.dir,
      kind: 'folder',
      completions: [join(ws.dir, 'scripts'), join(ws.dir, 'src')],
    });
    expect(await c.request('weft/fs/complete', { path: join(ws.dir, 'notes.txt') })).toMatchObject({
      kind: 'file',
      completions: [],
    });
  });
});
