import { randomBytes } from 'node:crypto';
import { connect as netConnect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  startWebServer,
  WebServerStartError,
  type WebServer,
  type WebServerOptions,
} from '../../src-main/server/http-server';
import { waitFor } from '../support/wait';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';
import { EchoHost } from '../unit/server/helpers';
import { openClient, rawGet, withId } from './ws-client';

const TOKEN = 'test-token-0123456789';

let workspace: TempWorkspace;
let host: EchoHost;
let logs: string[];
const servers: WebServer[] = [];

async function start(overrides: Partial<WebServerOptions> = {}): Promise<WebServer> {
  const server = await startWebServer(host, {
    host: '127.0.0.1',
    port: 0,
    hostExplicit: false,
    token: TOKEN,
    staticDir: workspace.path('renderer'),
    log: (line) => logs.push(line),
    ...overrides,
  });
  servers.push(server);
  return server;
}

const wsUrl = (server: WebServer, query = `?token=${TOKEN}`) => `ws://127.0.0.1:${server.port}/ws${query}`;

beforeEach(async () => {
  workspace = await makeTempWorkspace({
    'renderer/index.html': '<!doctype html><title>Weft</title><script type="module" src="/assets/app.js"></script>',
    'renderer/assets/app.js': 'console.log("weft");\n',
    'renderer/assets/app.css': 'body{}\n',
    'package.json': '{"name":"SECRET-OUTSIDE-ROOT"}',
  });
  host = new EchoHost();
  logs = [];
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await workspace.cleanup();
});

describe('weft serve: WebSocket', () => {
  it('serves a client that presents the token in the URL, both ways', async () => {
    const server = await start();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${TOKEN}`);
    const client = await openClient(wsUrl(server));
    client.send({ id: 1, method: 'thread/list', params: {} });
    expect(await client.next(withId(1), 'id 1')).toEqual({ id: 1, result: { echo: 'thread/list', params: {} } });
    const connection = host.connections[0];
    expect(connection?.sink.label).toMatch(/^ws 127\.0\.0\.1:\d+$/);
    connection?.notify('warning', { message: 'hi' });
    expect(await client.next((m) => JSON.stringify(m).includes('warning'), 'warning')).toEqual({
      method: 'warning',
      params: { message: 'hi' },
    });
    const closed = waitFor(host.subscribe, (event) => event.type === 'close', { label: 'close' });
    client.ws.close();
    await closed;
    expect(connection?.closed).toBe(true);
  });

  it('accepts the token as the weft.token.<token> subprotocol', async () => {
    const server = await start();
    const client = await openClient(wsUrl(server, ''), [`weft.token.${TOKEN}`]);
    expect(client.ws.protocol).toBe(`weft.token.${TOKEN}`);
    client.ws.close();
  });

  it('refuses upgrades without the right token (401), on another path (404), or from a foreign origin (403)', async () => {
    const server = await start();
    await expect(openClient(wsUrl(server, ''))).rejects.toThrow('HTTP 401');
    await expect(openClient(wsUrl(server, '?token=wrong'))).rejects.toThrow('HTTP 401');
    await expect(openClient(wsUrl(server, ''), ['weft.token.wrong'])).rejects.toThrow('HTTP 401');
    await expect(openClient(`ws://127.0.0.1:${server.port}/other?token=${TOKEN}`)).rejects.toThrow('HTTP 404');
    await expect(openClient(wsUrl(server), undefined, { origin: 'https://evil.example' })).rejects.toThrow('HTTP 403');
    await expect(
      openClient(wsUrl(server), undefined, { origin: `http://localhost:${server.port + 1}` }),
    ).rejects.toThrow('HTTP 403');
    expect(host.connections).toHaveLength(0);
    const own = await openClient(wsUrl(server), undefined, { origin: `http://127.0.0.1:${server.port}` });
    const local = await openClient(wsUrl(server), undefined, { origin: `http://localhost:${server.port}` });
    expect(host.connections).toHaveLength(2);
    own.ws.close();
    local.ws.close();
  });

  it('survives garbage: non-JSON text and binary frames become frame errors, the socket keeps working', async () => {
    const server = await start();
    const client = await openClient(wsUrl(server));
    client.ws.send('definitely { not json');
    client.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    client.send({ id: 'ok', method: 'ping' });
    await client.next(withId('ok'), 'id ok');
    expect(client.messages).toEqual([
      { id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: /) as unknown } },
      {
        id: null,
        error: {
          code: -32600,
          message: 'binary frames are not supported: send each JSON-RPC message as a UTF-8 text frame',
        },
      },
      { id: 'ok', result: { echo: 'ping', params: null } },
    ]);
    client.ws.close();
  });

  it('closes a client that sends an 11 MB frame with code 1009 and a reason, and keeps serving others', async () => {
    const server = await start();
    const client = await openClient(wsUrl(server));
    const hostSawClose = waitFor(host.subscribe, (event) => event.type === 'close', { label: 'close' });
    client.ws.send('x'.repeat(11 * 1024 * 1024));
    expect(await client.closed).toEqual({ code: 1009, reason: 'message too large: the limit is 10 MiB per message' });
    await hostSawClose;
    expect(logs.join('\n')).toMatch(
      /ws 127\.0\.0\.1:\d+ sent a message over the 10 MiB limit; closing its connection \(1009\)/,
    );
    const next = await openClient(wsUrl(server));
    next.send({ id: 2, method: 'after' });
    await next.next(withId(2), 'id 2');
    next.ws.close();
  });

  it('closes a peer that stops answering pings', async () => {
    const server = await start({ keepaliveIntervalMs: 50 });
    const connected = waitFor(host.subscribe, (event) => event.type === 'connect', { label: 'connect' });
    const socket = netConnect(server.port, '127.0.0.1');
    socket.resume(); // reads (and ignores) the 101 response and the pings
    // A hand-made handshake, then silence: this peer never answers a ping.
    socket.write(
      `GET /ws?token=${TOKEN} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    const { connection } = await connected;
    const socketClosed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await waitFor(host.subscribe, (event) => event.type === 'close' && event.connection === connection, {
      label: 'close of the silent peer',
    });
    await socketClosed;
    expect(logs.join('\n')).toContain('did not answer a ping; closing its connection');
  });

  it('drops a client that stops reading once its queue passes the limit', async () => {
    const server = await start({ maxQueuedBytes: 1024 * 1024 });
    const client = await openClient(wsUrl(server));
    client.ws.pause(); // stops reading the TCP socket: the server's writes back up
    const connection = host.connections[0];
    if (connection === undefined) throw new Error('no connection');
    const closed = waitFor(host.subscribe, (event) => event.type === 'close', { label: 'drop of the slow client' });
    const chunk = 'z'.repeat(64 * 1024);
    let sent = 0;
    const push = (): void => {
      // Bounded so that a broken limit fails by timeout instead of eating memory.
      for (let i = 0; i < 16 && !connection.closed && sent < 4000; i += 1, sent += 1)
        connection.notify('warning', { message: chunk });
      if (!connection.closed && sent < 4000) setImmediate(push);
    };
    push();
    await closed;
    expect(logs.join('\n')).toMatch(
      /weft: client ws 127\.0\.0\.1:\d+ is not reading fast enough: [\d.]+ MiB of outgoing messages queued \(limit 1\.0 MiB\); dropping the connection/,
    );
    client.ws.terminate();
  });
});

describe('weft serve: HTTP', () => {
  it('answers /healthz without a token', async () => {
    const server = await start();
    const response = await rawGet(server.port, '/healthz');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ status: 'ok' });
  });

  it('serves the renderer with MIME types, cache rules and security headers, without a token', async () => {
    const server = await start();
    const index = await rawGet(server.port, '/');
    expect(index.status).toBe(200);
    expect(index.body).toContain('<title>Weft</title>');
    expect(index.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    const csp = String(index.headers['content-security-policy']);
    expect(csp).toContain(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:",
    );
    expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${server.port};`);
    expect(csp).toContain("frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    const script = await rawGet(server.port, '/assets/app.js');
    expect(script).toMatchObject({ status: 200, body: 'console.log("weft");\n' });
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await rawGet(server.port, '/assets/app.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await rawGet(server.port, '/nope.js')).status).toBe(404);
    expect((await rawGet(server.port, '/assets/')).status).toBe(404);
  });

  it('builds the CSP from the host the page was loaded from, never with an IPv6 literal', async () => {
    const server = await start();
    const cspFor = async (host: string): Promise<string> =>
      String((await rawGet(server.port, '/', { host })).headers['content-security-policy']);
    expect(await cspFor(`localhost:${server.port}`)).toContain(`connect-src 'self' ws://localhost:${server.port};`);
    const v6 = await cspFor(`[::1]:${server.port}`);
    expect(v6).toContain("connect-src 'self';");
    expect(v6).not.toContain('[');
    // A Host that is not one of ours is not echoed into the policy.
    expect(await cspFor('evil.example:80')).toContain("connect-src 'self';");
  });

  it('answers /token-check with 200 for the token and 401 for any other', async () => {
    const server = await start();
    expect(await rawGet(server.port, `/token-check?token=${TOKEN}`)).toMatchObject({
      status: 200,
      body: '{"token":"ok"}',
    });
    expect(await rawGet(server.port, '/token-check?token=old-token')).toMatchObject({
      status: 401,
      body: '{"token":"rejected"}',
    });
    expect((await rawGet(server.port, '/token-check')).status).toBe(401);
  });

  it.each([
    '/../package.json',
    '/%2e%2e/package.json',
    '/..%2fpackage.json',
    '/assets/../../package.json',
    '/%2e%2e%5cpackage.json',
    '/assets%2f..%2f..%2fpackage.json',
    '//etc/passwd',
    '/.%2e/package.json',
  ])('refuses the traversal attempt %s', async (path) => {
    const server = await start();
    const response = await rawGet(server.port, path);
    expect([400, 404]).toContain(response.status);
    expect(response.body).not.toContain('SECRET');
  });

  it('explains how to build the renderer when it is missing', async () => {
    const server = await start({ staticDir: workspace.path('no-such-dir') });
    const response = await rawGet(server.port, '/');
    expect(response.status).toBe(503);
    expect(response.body).toContain('npm run build');
  });
});

describe('weft serve: listening', () => {
  it('refuses a non-loopback host unless it was given explicitly, and still requires the token then', async () => {
    await expect(start({ host: '0.0.0.0' })).rejects.toThrow(WebServerStartError);
    await expect(start({ host: '0.0.0.0' })).rejects.toThrow(
      /refusing to listen on 0\.0\.0\.0: .*Pass --host explicitly/,
    );
    const server = await start({ host: '0.0.0.0', hostExplicit: true });
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${TOKEN}`);
    await expect(openClient(wsUrl(server, ''))).rejects.toThrow('HTTP 401');
    const client = await openClient(wsUrl(server));
    client.ws.close();
  });

  it('generates a random 32-byte base64url token when none is given', async () => {
    const server = await start({ token: undefined });
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${server.token}`);
    await expect(openClient(wsUrl(server))).rejects.toThrow('HTTP 401');
    const client = await openClient(wsUrl(server, `?token=${server.token}`));
    client.ws.close();
  });

  it('closes connected clients when the server closes', async () => {
    const server = await start();
    const client = await openClient(wsUrl(server));
    const hostClosed = waitFor(host.subscribe, (event) => event.type === 'close', { label: 'close' });
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    expect(await client.closed).toEqual({ code: 1001, reason: 'the server is shutting down' });
    await hostClosed;
    expect(host.connections.every((c) => c.closed)).toBe(true);
  });
});
