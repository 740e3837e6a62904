// OAuth for streamable HTTP MCP servers: a loopback MCP server protected by the SDK's own server-side
// auth pieces (mcpAuthRouter, requireBearerAuth, the SDK's in-memory authorization provider). Without a
// sign-in the server is reported as needing `weft mcp login`; the login's authorization step (a browser
// in real use) is completed here by fetching the URL; the tokens land in WEFT_HOME (mode 0600) and the
// next thread calls the server's tools with them; logout forgets them.
import { spawn } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpToolCallItem, ThreadItem } from '../../src-preload/protocol';
import { McpOAuthStore, mcpLogin } from '../../src-main/mcp/oauth';
import { McpServerOauthLoginResult, McpServerStatusListResult } from '../../src-preload/protocol';
import { startInProcessHost, type InProcessHost } from '../support/in-process-host';
import { waitFor } from '../support/wait';
import { startOAuthMcpServer, type OAuthMcpServer } from '../support/mcp-oauth-server';
import { paramsOf, startAgent, type AgentHarness } from '../support/agent';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { evCompleted, evCreated, evNamespacedCall, answerTurn } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let model: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let agent: AgentHarness | undefined;
let oauthServer: OAuthMcpServer;
let mcpUrl: string;
let provider: DemoInMemoryAuthProvider;
let host: InProcessHost | null = null;

beforeEach(async () => {
  model = await startMockResponsesServer();
  ws = await makeTempWorkspace({});
  home = await makeWeftHome('');
  oauthServer = await startOAuthMcpServer();
  provider = oauthServer.provider;
  mcpUrl = oauthServer.url;
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await host?.close();
  host = null;
  await oauthServer.close();
  await model.close();
  await ws.cleanup();
  await home.cleanup();
});

function start(): AgentHarness {
  agent = startAgent({
    baseUrl: model.url,
    cwd: ws.dir,
    weftHome: home.dir,
    config: { mcp_servers: { secure: { url: mcpUrl } } },
  });
  return agent;
}

describe('OAuth for streamable HTTP MCP servers', () => {
  it('asks for weft mcp login, signs in through the loopback redirect, keeps the tokens private, and uses them', async () => {
    // Not signed in: the server is reported, its tools are left out, the turn goes on.
    model.enqueueMany([answerTurn('without it')]);
    let a = start();
    const events = await a.runTurn('hello');
    const failed = paramsOf(events, 'mcpServer/startupStatus/updated').find((s) => s.status === 'failed');
    expect(failed?.error).toBe('MCP server "secure" needs you to sign in: run weft mcp login secure');
    expect(failed?.failureReason).toBe('reauthenticationRequired');
    expect(a.session.options.mcp?.statuses()[0]).toMatchObject({
      authStatus: 'notLoggedIn',
      runtimeStatus: 'authenticationRequired',
    });
    await agent?.close();
    agent = undefined;

    // The login: the "browser" follows the authorization URL, which redirects to Weft's listener.
    const opened: URL[] = [];
    await mcpLogin({
      weftHome: home.dir,
      server: 'secure',
      url: mcpUrl,
      open: async (url) => {
        opened.push(url);
        const page = await fetch(url);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('Signed in');
      },
    });
    expect(opened[0]?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(opened[0]?.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const file = join(home.dir, 'mcp-oauth.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(file, 'utf8')) as {
      servers: Record<string, { url: string; tokens?: { access_token: string }; client?: { client_id: string } }>;
    };
    const entry = saved.servers['secure'];
    expect(entry?.url).toBe(mcpUrl);
    expect(await provider.verifyAccessToken(entry?.tokens?.access_token ?? '')).toMatchObject({
      clientId: entry?.client?.client_id,
    });

    // Signed in: the next thread's server starts and its tool answers as the registered client.
    model.enqueueMany([
      { kind: 'sse', events: [evCreated(), evNamespacedCall('c1', 'mcp__secure', 'whoami', {}), evCompleted()] },
      answerTurn('done'),
    ]);
    a = start();
    const after = await a.runTurn('who am I');
    const item = paramsOf(after, 'item/completed')
      .map((p) => p.item)
      .find((i: ThreadItem): i is McpToolCallItem => i.type === 'mcpToolCall');
    expect(item).toMatchObject({ server: 'secure', tool: 'whoami', status: 'completed' });
    expect(JSON.stringify(assertAllToolOutputsAnswered(model.requests[2]?.body)[0]?.output)).toContain(
      `signed in as client ${entry?.client?.client_id ?? '?'}`,
    );
    expect(a.session.options.mcp?.statuses()[0]?.authStatus).toBe('oAuth');
    // The token is never in the start log.
    expect(a.session.options.mcp?.statuses()[0]?.weftLog?.join('\n')).not.toContain(entry?.tokens?.access_token ?? '?');

    // Logout forgets the sign-in.
    expect(await new McpOAuthStore(home.dir).remove('secure')).toBe(true);
    expect(await new McpOAuthStore(home.dir).get('secure', mcpUrl)).toBeUndefined();
  });

  it('weft mcp login prints the authorization URL and saves the sign-in; weft mcp logout forgets it', async () => {
    await writeFile(join(home.dir, 'config.toml'), `[mcp_servers.secure]\nurl = ${JSON.stringify(mcpUrl)}\n`);
    const weft = (args: string[]) =>
      spawn(process.execPath, [resolve(__dirname, '../../bin/weft.js'), 'mcp', ...args], {
        cwd: ws.dir,
        env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', WEFT_HOME: home.dir },
      });
    const finished = (child: ReturnType<typeof weft>) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (code) => done({ code, stdout, stderr }));
      });
    const child = weft(['login', 'secure', '--no-browser']);
    const result = finished(child);
    // The user's browser: follow the URL the command printed.
    const url = await new Promise<string>((found) => {
      let text = '';
      child.stderr.on('data', (d: Buffer) => {
        text += d.toString();
        const match = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(text);
        if (match?.[1] !== undefined) found(match[1]);
      });
    });
    expect((await fetch(url)).status).toBe(200);
    const login = await result;
    expect(login).toMatchObject({ code: 0, stdout: 'Signed in to "secure".\n' });
    const saved = await new McpOAuthStore(home.dir).get('secure', mcpUrl);
    expect(saved?.tokens?.access_token).toBeTruthy();
    // The token is not printed.
    expect(login.stderr + login.stdout).not.toContain(saved?.tokens?.access_token ?? '?');

    expect(await finished(weft(['logout', 'secure']))).toMatchObject({ code: 0, stdout: 'Signed out of "secure".\n' });
    expect(await new McpOAuthStore(home.dir).get('secure', mcpUrl)).toBeUndefined();
  });
});

describe('MCP servers answering 401', () => {
  const plainStatus = async (server: Record<string, unknown>, weftHome: string | undefined) => {
    model.enqueueMany([answerTurn('went on')]);
    agent = startAgent({
      baseUrl: model.url,
      cwd: ws.dir,
      ...(weftHome === undefined ? {} : { weftHome }),
      config: { mcp_servers: { plain: { url: mcpUrl.replace(/\/mcp$/, '/plain'), ...server } } },
    });
    const events = await agent.runTurn('hello');
    const failed = paramsOf(events, 'mcpServer/startupStatus/updated').find((s) => s.status === 'failed');
    return { failed, status: agent.session.options.mcp?.statuses()[0] };
  };

  it('reports a server without OAuth that answers 401 as authenticationRequired, naming what to configure', async () => {
    const { failed, status } = await plainStatus({}, undefined);
    expect(failed?.failureReason).toBe('reauthenticationRequired');
    expect(status?.runtimeStatus).toBe('authenticationRequired');
    expect(status?.weftError).toBe(
      'MCP server "plain" answered 401 Unauthorized: it wants credentials (bearer_token_env_var, http_headers or env_http_headers)',
    );
  });

  it('with sign-ins available, a 401 without OAuth metadata still asks for weft mcp login', async () => {
    const { failed, status } = await plainStatus({}, home.dir);
    expect(failed?.failureReason).toBe('reauthenticationRequired');
    expect(status).toMatchObject({ runtimeStatus: 'authenticationRequired', authStatus: 'notLoggedIn' });
    expect(status?.weftError).toBe('MCP server "plain" needs you to sign in: run weft mcp login plain');
  });

  it('says the bearer token was refused when one is configured', async () => {
    const { status } = await plainStatus({ bearer_token_env_var: 'TZ' }, home.dir);
    expect(status).toMatchObject({ runtimeStatus: 'authenticationRequired', authStatus: 'bearerToken' });
    expect(status?.weftError).toBe('MCP server "plain" refused the bearer token in TZ (401 Unauthorized)');
  });
});

describe('mcpServer/oauth/login', () => {
  const startHost = async (): Promise<InProcessHost> => {
    await writeFile(
      join(home.dir, 'config.toml'),
      `model = "mock-model"\n[mcp_servers.secure]\nurl = ${JSON.stringify(mcpUrl)}\n[mcp_servers.local]\ncommand = "true"\n`,
    );
    host = await startInProcessHost({
      weftHome: home.dir,
      cwd: ws.dir,
      env: { WEFT_HOME: home.dir, OPENAI_API_KEY: 'x', PATH: process.env['PATH'] ?? '' },
    });
    return host;
  };

  it('signs in from the protocol and restarts the server in the open thread', async () => {
    const { client } = await startHost();
    const listed = McpServerStatusListResult.parse((await client.call('mcpServerStatus/list', {})).result);
    expect(listed.data.find((s) => s.name === 'secure')).toMatchObject({
      runtimeStatus: 'authenticationRequired',
      authStatus: 'notLoggedIn',
    });

    const started = await client.call('thread/start', { cwd: ws.dir, ephemeral: true });
    const threadId = (started.result as { thread: { id: string } }).thread.id;
    const secureIs = (status: string) =>
      waitFor(
        client.subscribe,
        (m) =>
          'method' in m &&
          m.method === 'mcpServer/startupStatus/updated' &&
          JSON.stringify(m).includes('"name":"secure"') &&
          JSON.stringify(m).includes(`"status":"${status}"`),
        { label: `secure ${status}` },
      );
    const failed = (await secureIs('failed')) as { params: { failureReason?: string } };
    expect(failed.params.failureReason).toBe('reauthenticationRequired');

    const ready = secureIs('ready');
    const completed = waitFor(client.subscribe, (m) => 'method' in m && m.method === 'mcpServer/oauthLogin/completed', {
      label: 'oauthLogin/completed',
    });
    const reply = await client.call('mcpServer/oauth/login', { name: 'secure' });
    const { authorizationUrl } = McpServerOauthLoginResult.parse(reply.result);
    expect(authorizationUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    // The user's browser follows the URL; the redirect lands on Weft's loopback listener.
    expect((await fetch(authorizationUrl ?? '')).status).toBe(200);
    expect(await completed).toMatchObject({ params: { name: 'secure', success: true } });
    await ready;
    const after = McpServerStatusListResult.parse((await client.call('mcpServerStatus/list', { threadId })).result);
    expect(after.data.find((s) => s.name === 'secure')).toMatchObject({
      runtimeStatus: 'connected',
      authStatus: 'oAuth',
    });
    expect(Object.keys(after.data.find((s) => s.name === 'secure')?.tools ?? {})).toEqual(['whoami']);
    // The tokens never go over the protocol.
    const saved = await new McpOAuthStore(home.dir).get('secure', mcpUrl);
    expect(JSON.stringify(client.received)).not.toContain(saved?.tokens?.access_token ?? '?');
  });

  it('refuses unknown and stdio servers with errors naming them', async () => {
    const { client } = await startHost();
    expect((await client.call('mcpServer/oauth/login', { name: 'nope' })).error?.message).toBe(
      'params.name: no MCP server named "nope" in the config',
    );
    expect((await client.call('mcpServer/oauth/login', { name: 'local' })).error?.message).toBe(
      'params.name: "local" is a stdio server; OAuth is for servers reached by URL',
    );
  });
});
