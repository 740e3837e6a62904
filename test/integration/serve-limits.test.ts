// `weft serve` against a hostile page and a hostile client: requests addressed to another host name
// (DNS rebinding) get 421; idle and trickling sockets are closed; a flood of connections cannot use up
// the server's file descriptors. All with real sockets.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startWebServer, type WebServer, type WebServerOptions } from '../../src-main/server/http-server';
import { waitFor } from '../support/wait';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace } from '../support/workspace';
import { EchoHost } from '../unit/server/helpers';
import { rawGet } from './ws-client';

const TOKEN = 'test-token-0123456789';
const WEFT = resolve(__dirname, '../../bin/weft.js');

let workspace: TempWorkspace;
const servers: WebServer[] = [];
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
function open(port: number): Promise<Socket> {
  return new Promise((resolveOpen, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
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

  it('caps the sockets of one client and in all, closing the extra ones at once', async () => {
    const server = await start({ limits: { perClient: 5, total: 8 } });
    const held = await Promise.all(Array.from({ length: 5 }, () => open(server.port)));
    const extra = await open(server.port);
    await closed(extra);
    expect(held.every((s) => !s.destroyed)).toBe(true);
    held[0]?.destroy();
    await closed(held[0] as Socket);
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
    const home = await makeWeftHome();
    const child = spawn(process.execPath, [WEFT, 'serve', '--port', '0', '--token', TOKEN, '--cd', workspace.dir], {
      cwd: workspace.dir,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', WEFT_HOME: home.dir },
    });
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
      child.kill();
      await new Promise((r) => child.once('exit', r));
      await home.cleanup();
    }
  }, 120_000);
});
