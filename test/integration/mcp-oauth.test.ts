// OAuth for streamable HTTP MCP servers: a loopback MCP server protected by the SDK's own server-side
// auth pieces (mcpAuthRouter, requireBearerAuth, the SDK's in-memory authorization provider). Without a
// sign-in the server is reported as needing `weft mcp login`; the login's authorization step (a browser
// in real use) is completed here by fetching the URL; the tokens land in WEFT_HOME (mode 0600) and the
// next thread calls the server's tools with them; logout forgets them.
import { spawn } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express from 'express';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpToolCallItem, ThreadItem } from '../../src-preload/protocol';
import { McpOAuthStore, mcpLogin } from '../../src-main/mcp/oauth';
import { paramsOf, startAgent, type AgentHarness } from '../support/agent';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { evAssistantMessage, evCompleted, evCreated, evNamespacedCall, evOutputTextDelta } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let model: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let agent: AgentHarness | undefined;
let http: Server;
let mcpUrl: string;
let provider: DemoInMemoryAuthProvider;

beforeEach(async () => {
  model = await startMockResponsesServer();
  ws = await makeTempWorkspace({});
  home = await makeWeftHome('');
  provider = new DemoInMemoryAuthProvider();
  const app = express();
  app.use(express.json());
  http = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  mcpUrl = `${base}/mcp`;
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(base),
      resourceServerUrl: new URL(mcpUrl),
      scopesSupported: ['mcp:tools'],
    }),
  );
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(mcpUrl)),
  });
  app.post('/mcp', bearer, async (req, res) => {
    const server = new McpServer({ name: 'secure', version: '1.0.0' });
    server.registerTool(
      'whoami',
      { description: 'Says which OAuth client called', inputSchema: {}, annotations: { readOnlyHint: true } },
      async (_args, extra) => ({
        content: [{ type: 'text', text: `signed in as client ${extra.authInfo?.clientId ?? 'nobody'}` }],
      }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get('/mcp', (_req, res) => void res.status(405).end());
  app.delete('/mcp', (_req, res) => void res.status(405).end());
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await model.close();
  await ws.cleanup();
  await home.cleanup();
});

const answer = (text: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evOutputTextDelta(text), evAssistantMessage(text), evCompleted()],
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
    model.enqueueMany([answer('without it')]);
    let a = start();
    const events = await a.runTurn('hello');
    const failed = paramsOf(events, 'mcpServer/startupStatus/updated').find((s) => s.status === 'failed');
    expect(failed?.error).toBe('MCP server "secure" needs you to sign in: run weft mcp login secure');
    expect(a.session.options.mcp?.statuses()[0]?.authStatus).toBe('notLoggedIn');
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
      answer('done'),
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
