// `weft serve` against a hostile page and a hostile client: requests addressed to another host name
// (DNS rebinding) get 421; idle and trickling sockets are closed; a flood of connections cannot use up
// the server's file descriptors nor lock out the page that holds the token. `weft mcp-server --port`
// closes stalled sockets the same way. All with real sockets.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startMcpHttpServer } from '../../src-main/faces/mcp-server/transports';
import { startWebServer, type WebServer, type WebServerOptions } from '../../src-main/server/http-server';
import { waitFor } from '../support/wait';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace } from '../support/workspace';
import { EchoHost } from '../unit/server/helpers';
import { openClient, rawGet, withId } from './ws-client';

const TOKEN = 'test-token-0123456789';
const WEFT = resolve(__dirname, '../../bin/weft.js');

let workspace: TempWorkspace;
const servers: Pick<WebServer, 'close'>[] = [];
const sockets: Socket[] = [];

beforeEach(async () => {
  workspace = await makeTempWorkspace({ 'renderer/index.html': '<!doctype html><title>Weft</title>' });
});

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers.splice(0)) await s.close();
  await workspace.cleanup();
});

async function start(overrides: Partial<WebServerOptions> = {}): Promise<WebServer> {
  const server = await startWebServer(new EchoHost(), {
    host: '127.0.0.1',
    port: 0,
    hostExplicit: false,
    token: TOKEN,
    staticDir: workspace.path('renderer'),
    log: () => undefined,
    ...overrides,
  });
  servers.push(server);
  return server;
}

/** What each raw connection has received. */
const received = new WeakMap<Socket, string>();

/**
 * A raw TCP connection; resolves once connected. It reads whatever the server sends: the server may
 * answer 408 before closing, and a socket left holding unread bytes never reports the close.
 */
function open(port: number, localAddress?: string): Promise<Socket> {
  return new Promise((resolveOpen, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ...(localAddress === undefined ? {} : { localAddress }) });
    sockets.push(socket);
    received.set(socket, '');
    socket.on('data', (chunk: Buffer) => received.set(socket, (received.get(socket) ?? '') + chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolveOpen(socket));
    socket.once('error', reject);
  });
}

const closed = (socket: Socket): Promise<void> =>
  socket.closed ? Promise.resolve() : new Promise((r) => socket.once('close', () => r()));

describe('weft serve: Host check', () => {
  it('answers 421 to any Host that is not a loopback name with its port, for pages, /healthz and the socket', async () => {
    const server = await start();
    const port = server.port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
      expect((await rawGet(port, '/healthz', { Host: host })).status, host).toBe(200);
      expect((await rawGet(port, '/', { Host: host })).status, host).toBe(200);
    }
    for (const host of [
      `evil.example:${port}`,
      'evil.example',
      `127.0.0.1:${port + 1}`,
      '127.0.0.1',
      `localhost.evil.example:${port}`,
      `127.0.0.2:${port}`,
    ]) {
      const health = await rawGet(port, '/healthz', { Host: host });
      expect(health.status, host).toBe(421);
      expect(health.body).not.toContain('ok');
      const page = await rawGet(port, '/', { Host: host });
      expect(page.status, host).toBe(421);
      expect(page.body).not.toContain('<title>Weft</title>');
    }
    const rebound = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${TOKEN}`, {
      headers: { Host: `evil.example:${port}` },
    });
    const status = await new Promise<number>((done) => {
      rebound.on('unexpected-response', (_req, res) => done(res.statusCode ?? 0));
      rebound.on('open', () => done(101));
      rebound.on('error', () => undefined);
    });
    rebound.terminate();
    expect(status).toBe(421);
    const good = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${TOKEN}`);
    await new Promise<void>((done, fail) => {
      good.once('open', () => done());
      good.once('error', fail);
    });
    good.close();
  });
});

describe('weft serve: held sockets', () => {
  it('closes a socket that sends nothing, and one that trickles its headers, and still serves', async () => {
    const server = await start({ limits: { headersTimeoutMs: 400, requestTimeoutMs: 800 } });
    const idle = await open(server.port);
    const slow = await open(server.port);
    const header = `GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX-Slow: ${'a'.repeat(4000)}`;
    let sent = 0;
    // The attack itself: one byte at a time, never finishing the headers.
    const trickle = setInterval(() => {
      if (!slow.destroyed && sent < header.length) slow.write(header[sent++] ?? 'a');
    }, 20);
    try {
      await Promise.all([closed(idle), closed(slow)]);
    } finally {
      clearInterval(trickle);
    }
    expect(sent).toBeLessThan(header.length);
    // Closed with nothing said, or with a 408: never a page.
    for (const socket of [idle, slow]) expect(received.get(socket)).toMatch(/^(|HTTP\/1\.1 408 [^]*)$/);
    expect((await rawGet(server.port, '/healthz')).status).toBe(200);
  });

  it('caps the idle sockets of one client and in all: a new one pushes out the oldest', async () => {
    const server = await start({ limits: { perClient: 5, total: 8 } });
    const held: Socket[] = [];
    const openAll = async (...from: string[]): Promise<void> => {
      for (const address of from) held.push(await open(server.port, address));
    };
    const states = (): string => held.map((s) => (s.closed ? 'x' : 'o')).join('');
    await openAll(...Array<string>(5).fill('127.0.0.1'));
    // Over the per-client cap: the oldest socket of that address makes room.
    await openAll('127.0.0.1');
    await closed(held[0] as Socket);
    expect(states()).toBe('xooooo');
    // Two more addresses fill the total cap; the next socket pushes out the oldest of all.
    await openAll('127.0.0.2', '127.0.0.2', '127.0.0.3', '127.0.0.3');
    await closed(held[1] as Socket);
    expect(states()).toBe('xxoooooooo');
    // The page's socket pushes out the oldest idle one, then presents the token and leaves the caps:
    // the next socket finds room, and only the one after it pushes out another.
    const page = await openClient(`ws://127.0.0.1:${server.port}/ws?token=${TOKEN}`);
    await closed(held[2] as Socket);
    await openAll('127.0.0.3', '127.0.0.3');
    await closed(held[3] as Socket);
    page.send({ id: 1, method: 'initialize', params: {} });
    await page.next(withId(1), 'an answer on the page socket');
    expect(states()).toBe('xxxxoooooooo');
    expect(page.ws.readyState).toBe(WebSocket.OPEN);
    page.ws.close();
    for (const s of held) s.destroy();
    // A slot freed is a slot usable again.
    await waitFor<number>(
      (listener) => {
        const tick = setInterval(
          () =>
            void rawGet(server.port, '/healthz').then(
              (r) => listener(r.status),
              () => listener(0),
            ),
          50,
        );
        return () => clearInterval(tick);
      },
      (status) => status === 200,
      { label: 'a request served once a slot is free' },
    );
  });

  it('keeps its file descriptors bounded under a flood of idle connections', async () => {
    const { child, port, stop } = await startServe();
    try {
      const fds = (): number => readdirSync(`/proc/${child.pid ?? 0}/fd`).length;
      const before = fds();
      const FLOOD = 3000;
      const closeListeners = new Set<(n: number) => void>();
      let closedCount = 0;
      const flood: Socket[] = [];
      // In waves that fit the listen backlog (an overflowing backlog leaves client sockets that think
      // they are connected but never reached the server: they would prove nothing).
      for (let wave = 0; wave < FLOOD / 200; wave++) {
        const sockets200 = Array.from({ length: 200 }, () => {
          const socket = connect({ host: '127.0.0.1', port });
          sockets.push(socket);
          socket.on('error', () => undefined);
          socket.once('close', () => {
            closedCount++;
            for (const l of [...closeListeners]) l(closedCount);
          });
          return socket;
        });
        await Promise.all(
          sockets200.map(
            (socket) => new Promise((r) => (socket.connecting ? socket.once('connect', r).once('close', r) : r(null))),
          ),
        );
        flood.push(...sockets200);
      }
      // Everything over the per-client cap is closed by the server as soon as it is accepted.
      await waitFor<number>(
        (listener) => {
          closeListeners.add(listener);
          return () => closeListeners.delete(listener);
        },
        (n) => n >= FLOOD - 64,
        { label: 'the extra sockets closed', timeoutMs: 60_000 },
      );
      const during = fds();
      expect(flood.filter((s) => !s.closed).length).toBeLessThanOrEqual(64);
      expect(during - before).toBeLessThanOrEqual(64 + 8);
      const opened = flood;
      for (const s of opened) s.destroy();
      await waitFor<number>(
        (listener) => {
          const tick = setInterval(
            () =>
              void rawGet(port, '/healthz').then(
                (r) => listener(r.status),
                () => listener(0),
              ),
            50,
          );
          return () => clearInterval(tick);
        },
        (status) => status === 200,
        { label: 'served again after the flood' },
      );
    } finally {
      await stop();
    }
  }, 120_000);

  it('serves the page holding the token, and upgrades its socket, while idle sockets fill the per-client cap', async () => {
    const { port, stop } = await startServe();
    try {
      // Any local process shares the page's address: these fill its per-client cap and then some.
      const idle = await Promise.all(Array.from({ length: 80 }, () => open(port)));
      let seenClosed = 0;
      const closeWaiters = new Set<(n: number) => void>();
      for (const socket of idle)
        socket.once('close', () => {
          seenClosed++;
          for (const l of [...closeWaiters]) l(seenClosed);
        });
      const closedAtLeast = (n: number, label: string): Promise<number> =>
        waitFor<number>(
          (listener) => {
            closeWaiters.add(listener);
            listener(seenClosed);
            return () => closeWaiters.delete(listener);
          },
          (count) => count >= n,
          { label },
        );
      // The server has taken all 80 once 16 are gone: it holds no more than 64 sockets nobody vouched for.
      await closedAtLeast(80 - 64, 'the sockets over the cap closed');

      const page = await rawGet(port, `/?token=${TOKEN}`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('<html');
      const client = await openClient(`ws://127.0.0.1:${port}/ws?token=${TOKEN}`);
      client.send({ id: 1, method: 'initialize', params: { clientInfo: { name: 'test', version: '0' } } });
      expect(await client.next(withId(1), 'initialize answer')).toMatchObject({ id: 1, result: {} });

      // Another flood: still capped, and it does not push out the page's socket.
      const more = await Promise.all(Array.from({ length: 80 }, () => open(port)));
      for (const socket of more)
        socket.once('close', () => {
          seenClosed++;
          for (const l of [...closeWaiters]) l(seenClosed);
        });
      await closedAtLeast(160 - 64, 'the second flood capped');
      expect([...idle, ...more].filter((s) => !s.closed)).toHaveLength(64);
      client.send({ id: 2, method: 'thread/list', params: {} });
      expect(await client.next(withId(2), 'thread/list answer')).toMatchObject({ id: 2, result: { data: [] } });
      expect(client.ws.readyState).toBe(WebSocket.OPEN);
      client.ws.close();
    } finally {
      await stop();
    }
  }, 60_000);
});

describe('weft mcp-server --port: held sockets', () => {
  it('closes a socket that sends nothing and one that stops inside its request line, as weft serve does', async () => {
    const server = await startMcpHttpServer({
      host: new EchoHost(),
      port: 0,
      token: TOKEN,
      log: () => undefined,
      limits: { headersTimeoutMs: 400, requestTimeoutMs: 800 },
    });
    servers.push(server);
    const port = Number(new URL(server.url).port);
    const idle = await open(port);
    const partial = await open(port);
    partial.write('POST /mc');
    await Promise.all([closedWithin(idle, 'the idle socket'), closedWithin(partial, 'the partial request line')]);
    for (const socket of [idle, partial]) expect(received.get(socket)).toMatch(/^(|HTTP\/1\.1 408 [^]*)$/);
    const served = await rawGet(port, `/mcp?token=${TOKEN}`);
    expect(served).toMatchObject({ status: 400, body: 'Bad request: no such MCP session\n' });
  });
});

/**
 * Resolves when the server has closed `socket`; rejects well after the 400 ms header timeout the
 * tests set (a deadlock guard that names what stayed open: Node's own default is 60 s).
 */
function closedWithin(socket: Socket, label: string): Promise<void> {
  return new Promise((resolveClosed, reject) => {
    const guard = setTimeout(() => reject(new Error(`${label} is still open 5 s after it was accepted`)), 5_000);
    void closed(socket).then(() => {
      clearTimeout(guard);
      resolveClosed();
    });
  });
}

/** `weft serve` (the built binary) on a free port, with its own WEFT_HOME. */
async function startServe(): Promise<{ child: ChildProcessWithoutNullStreams; port: number; stop(): Promise<void> }> {
  const home = await makeWeftHome();
  const child = spawn(process.execPath, [WEFT, 'serve', '--port', '0', '--token', TOKEN, '--cd', workspace.dir], {
    cwd: workspace.dir,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', WEFT_HOME: home.dir },
  });
  const exited = new Promise((r) => child.once('exit', r));
  const stop = async (): Promise<void> => {
    child.kill();
    await exited;
    await home.cleanup();
  };
  try {
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.resume();
    const port = await waitFor<number>(
      (listener) => {
        const onData = (): void => {
          const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(stdout);
          if (m) listener(Number(m[1]));
        };
        child.stdout.on('data', onData);
        return () => child.stdout.off('data', onData);
      },
      () => true,
      { label: 'weft serve URL' },
    );
    return { child, port, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
