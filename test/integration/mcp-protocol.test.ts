// The app server's MCP methods in Codex's shapes: mcpServerStatus/list (with and without a thread),
// mcpServer/tool/call, config/mcpServer/reload, and the startup notifications a client sees.
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpServerStatusListResult, McpServerToolCallResult } from '../../src-preload/protocol';
import { startInProcessHost, type InProcessHost } from '../support/in-process-host';
import { waitFor } from '../support/wait';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);
const FAILING = resolve(__dirname, '..', 'fixtures', 'mcp', 'failing-server.mjs');

let ws: TempWorkspace;
let home: WeftHome;
let app: InProcessHost | null = null;

const config = (servers: string): string => `model = "mock-model"\n${servers}`;
const everything = `[mcp_servers.everything]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(EVERYTHING)}, "stdio"]\ndisabled_tools = ["get-env"]\n`;
const broken = `[mcp_servers.broken]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FAILING)}]\n`;

beforeEach(async () => {
  ws = await makeTempWorkspace({});
  home = await makeWeftHome(config(everything + broken));
});

afterEach(async () => {
  await app?.close();
  app = null;
  await ws.cleanup();
  await home.cleanup();
});

async function start(): Promise<InProcessHost> {
  app = await startInProcessHost({
    weftHome: home.dir,
    cwd: ws.dir,
    env: { WEFT_HOME: home.dir, OPENAI_API_KEY: 'x', PATH: process.env['PATH'] ?? '' },
  });
  return app;
}

describe('MCP methods of the app server', () => {
  it('lists the configured servers without a thread, with their tools, state and start log', async () => {
    const { client } = await start();
    const reply = await client.call('mcpServerStatus/list', {});
    const list = McpServerStatusListResult.parse(reply.result);
    expect(list.data.map((s) => [s.name, s.runtimeStatus])).toEqual([
      ['broken', 'failed'],
      ['everything', 'connected'],
    ]);
    const ev = list.data[1];
    expect(ev?.tools['echo']).toMatchObject({ name: 'echo', description: 'Echoes back the input string' });
    expect(ev?.weftVisibleTools).toContain('echo');
    expect(ev?.weftVisibleTools).not.toContain('get-env');
    expect(ev?.serverInfo?.name).toBeTruthy();
    expect(list.data[0]?.weftLog?.join('\n')).toContain('cannot open the database');
  });

  it("lists each server's resources and resource templates in Codex's shapes", async () => {
    const { client } = await start();
    const list = McpServerStatusListResult.parse((await client.call('mcpServerStatus/list', {})).result);
    const ev = list.data.find((s) => s.name === 'everything');
    expect(ev?.resources).toContainEqual(
      expect.objectContaining({
        uri: 'demo://resource/static/document/architecture.md',
        name: 'architecture.md',
        mimeType: 'text/markdown',
      }),
    );
    expect(ev?.resourceTemplates).toContainEqual(
      expect.objectContaining({ uriTemplate: 'demo://resource/dynamic/text/{resourceId}', name: expect.any(String) }),
    );
    // A server that never started has none.
    expect(list.data.find((s) => s.name === 'broken')).toMatchObject({ resources: [], resourceTemplates: [] });
  });

  it('reports startup to the thread, calls a tool directly, and restarts servers on reload', async () => {
    const { client } = await start();
    const started = await client.call('thread/start', { cwd: ws.dir, ephemeral: true });
    const threadId = (started.result as { thread: { id: string } }).thread.id;
    const ready = (name: string) =>
      waitFor(
        client.subscribe,
        (m) =>
          'method' in m &&
          m.method === 'mcpServer/startupStatus/updated' &&
          JSON.stringify(m).includes(`"name":"${name}"`) &&
          JSON.stringify(m).includes('"status":"ready"'),
        { label: `${name} ready` },
      );
    await ready('everything');
    const failed = client
      .notifications('mcpServer/startupStatus/updated')
      .find((n) => n.params['name'] === 'broken' && n.params['status'] === 'failed');
    expect(failed?.params['threadId']).toBe(threadId);

    const call = await client.call('mcpServer/tool/call', {
      threadId,
      server: 'everything',
      tool: 'get-sum',
      arguments: { a: 1, b: 2 },
    });
    const result = McpServerToolCallResult.parse(call.result);
    expect(JSON.stringify(result.content)).toContain('3');

    const unknown = await client.call('mcpServer/tool/call', { threadId, server: 'nope', tool: 'x' });
    expect(unknown.error?.message).toContain('no MCP server named "nope"');

    // Reload picks up the edited config: the broken server is gone.
    await writeFile(join(home.dir, 'config.toml'), config(everything));
    const readyAgain = ready('everything');
    expect((await client.call('config/mcpServer/reload', {})).result).toEqual({});
    await readyAgain;
    const list = McpServerStatusListResult.parse((await client.call('mcpServerStatus/list', { threadId })).result);
    expect(list.data.map((s) => [s.name, s.runtimeStatus])).toEqual([['everything', 'connected']]);
  });
});
