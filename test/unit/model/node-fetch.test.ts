import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { gzipSync, brotliCompressSync, deflateSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFetch } from '../../../src-main/model/node-fetch';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let base: string;
let seen: Seen[];
let respond: (req: IncomingMessage, res: ServerResponse) => void;

beforeEach(async () => {
  seen = [];
  respond = (_req, res) => res.end('ok');
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      respond(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A fallback `fetch` that records what was left to it and answers 299. */
function recordingFallback(): { fetch: typeof fetch; calls: unknown[][] } {
  const calls: unknown[][] = [];
  return {
    calls,
    fetch: (...args: Parameters<typeof fetch>) => {
      calls.push(args);
      return Promise.resolve(new Response('from fallback', { status: 299 }));
    },
  };
}

const noFallback: typeof fetch = () => Promise.reject(new Error('the fallback was used'));

describe('nodeFetch', () => {
  it('sends the method, headers and body it is given, with the body’s length, and answers a Response', async () => {
    respond = (_req, res) => {
      res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-request-id': 'req_1' });
      res.end('{"ok":true}');
    };
    const body = JSON.stringify({ input: 'héllo' });
    const response = await nodeFetch(noFallback, {})(`${base}/v1/responses?x=1`, {
      method: 'post',
      headers: new Headers({ 'content-type': 'application/json', authorization: 'Bearer k' }),
      body,
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.ok).toBe(true);
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(await response.json()).toEqual({ ok: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.method).toBe('POST');
    expect(seen[0]?.url).toBe('/v1/responses?x=1');
    expect(seen[0]?.body).toBe(body);
    expect(seen[0]?.headers['authorization']).toBe('Bearer k');
    expect(seen[0]?.headers['content-type']).toBe('application/json');
    expect(seen[0]?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(seen[0]?.headers['accept']).toBe('*/*');
    // A length, never a chunked body: some servers refuse chunked requests.
    expect(seen[0]?.headers['transfer-encoding']).toBeUndefined();
  });

  it('hands on each piece of a streamed body as it arrives, before the server ends it', async () => {
    let next: () => void = () => undefined;
    respond = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      next = () => res.end('data: two\n\n');
    };
    const response = await nodeFetch(noFallback, {})(`${base}/stream`, { method: 'POST', body: '{}' });
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error('no body');
    const first = await reader.read();
    expect(Buffer.from(first.value ?? new Uint8Array()).toString()).toBe('data: one\n\n');
    next();
    let rest = '';
    for (let part = await reader.read(); !part.done; part = await reader.read())
      rest += Buffer.from(part.value).toString();
    expect(rest).toBe('data: two\n\n');
  });

  it('takes off the content coding a server used, as fetch does', async () => {
    const text = 'x'.repeat(5000);
    for (const [coding, encode] of [
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ] as const) {
      respond = (_req, res) => {
        const bytes = encode(Buffer.from(text));
        res.writeHead(200, { 'content-encoding': coding, 'content-length': bytes.length });
        res.end(bytes);
      };
      const response = await nodeFetch(noFallback, {})(`${base}/coded`);
      expect(await response.text(), coding).toBe(text);
      expect(response.headers.get('content-encoding')).toBeNull();
    }
  });

  it('fails a body that does not decode, and lets its connection go', async () => {
    let closed: Promise<void> = Promise.resolve();
    respond = (req, res) => {
      closed = new Promise((resolve) => req.socket.once('close', () => resolve()));
      res.writeHead(200, { 'content-encoding': 'gzip' });
      // Not gzip, and the answer never ends: only the client can let the connection go.
      res.write('this is not gzip at all');
    };
    const response = await nodeFetch(noFallback, {})(`${base}/bad`);
    await expect(response.text()).rejects.toThrow();
    await closed;
  });

  it('answers an error status as a Response, with its body, as fetch does', async () => {
    respond = (_req, res) => {
      res.writeHead(429, { 'retry-after': '2', 'content-type': 'application/json' });
      res.end('{"error":{"message":"slow down"}}');
    };
    const response = await nodeFetch(noFallback, {})(`${base}/limited`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(429);
    expect(response.ok).toBe(false);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(await response.json()).toEqual({ error: { message: 'slow down' } });
  });

  it('answers 204 with no body', async () => {
    respond = (_req, res) => {
      res.writeHead(204);
      res.end();
    };
    const response = await nodeFetch(noFallback, {})(`${base}/empty`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('fails as fetch fails on a status no Response can have, and stays usable', async () => {
    respond = (req, res) => {
      if (req.url === '/odd') res.writeHead(999, { 'content-type': 'text/plain' });
      res.end('odd');
    };
    const send = nodeFetch(noFallback, {});
    const error: unknown = await send(`${base}/odd`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe('fetch failed');
    expect(await (await send(`${base}/fine`)).text()).toBe('odd');
  });

  it('fails as fetch fails when nothing listens: a TypeError whose cause is the connection’s error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error: unknown = await nodeFetch(noFallback, {})(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe('fetch failed');
    expect(((error as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('rejects with the signal’s reason when aborted before the answer, and sends nothing once aborted', async () => {
    respond = () => undefined; // Never answers.
    const controller = new AbortController();
    const pending = nodeFetch(noFallback, {})(`${base}/slow`, {
      method: 'POST',
      body: '{}',
      signal: controller.signal,
    });
    await expect.poll(() => seen.length).toBe(1);
    const reason = new Error('stopped by the user');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    const already = new AbortController();
    already.abort();
    await expect(nodeFetch(noFallback, {})(`${base}/x`, { signal: already.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(seen).toHaveLength(1);
  });

  it('ends a body being read with an error when aborted in the middle of it', async () => {
    respond = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
    };
    const controller = new AbortController();
    const response = await nodeFetch(noFallback, {})(`${base}/stream`, {
      method: 'POST',
      body: '{}',
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error('no body');
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
  });

  it('ends a body with an error when the server drops the connection in the middle of it', async () => {
    respond = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n', () => res.socket?.destroy());
    };
    const response = await nodeFetch(noFallback, {})(`${base}/drop`, { method: 'POST', body: '{}' });
    await expect(response.text()).rejects.toThrow();
  });

  it('leaves to fetch a redirect, a proxy, and a body that is neither text nor bytes', async () => {
    respond = (_req, res) => {
      res.writeHead(307, { location: '/elsewhere' });
      res.end();
    };
    const redirected = recordingFallback();
    const init = { method: 'POST', body: '{}' };
    const response = await nodeFetch(redirected.fetch, {})(`${base}/moved`, init);
    expect(response.status).toBe(299);
    expect(redirected.calls).toEqual([[`${base}/moved`, init]]);

    const proxied = recordingFallback();
    await nodeFetch(proxied.fetch, { HTTPS_PROXY: 'http://proxy.invalid:3128' })(`${base}/a`);
    expect(proxied.calls).toHaveLength(1);

    const streamed = recordingFallback();
    await nodeFetch(streamed.fetch, {})(`${base}/b`, { method: 'POST', body: new Blob(['x']) });
    expect(streamed.calls).toHaveLength(1);
    // Only the redirect reached the server.
    expect(seen.map((s) => s.url)).toEqual(['/moved']);
  });

  it('reuses the connection for the next request', async () => {
    const sockets = new Set<unknown>();
    respond = (req, res) => {
      sockets.add(req.socket);
      res.end('ok');
    };
    const send = nodeFetch(noFallback, {});
    for (let i = 0; i < 3; i++)
      expect(await (await send(`${base}/r${i}`, { method: 'POST', body: '{}' })).text()).toBe('ok');
    expect(sockets.size).toBe(1);
  });
});

describe('nodeFetch over https', () => {
  // A certificate for 127.0.0.1 made for these tests only (`openssl req -x509`, valid until 2126).
  const tls = join(__dirname, '../../fixtures/tls');
  const cert = readFileSync(join(tls, 'localhost-cert.pem'), 'utf8');
  const key = readFileSync(join(tls, 'localhost-key.pem'), 'utf8');
  const defaults = getCACertificates('default');

  afterEach(() => setDefaultCACertificates(defaults));

  async function httpsServer(): Promise<{ url: string; close(): Promise<void> }> {
    const server = createHttpsServer({ cert, key }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: secure\n\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1/responses`,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  it('talks to a server whose certificate the process trusts', async () => {
    setDefaultCACertificates([...defaults, cert]);
    const server = await httpsServer();
    try {
      const response = await nodeFetch(noFallback, {})(server.url, { method: 'POST', body: '{}' });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('data: secure\n\n');
    } finally {
      await server.close();
    }
  });

  it('refuses a server whose certificate it does not trust, as fetch refuses it', async () => {
    const server = await httpsServer();
    try {
      const error: unknown = await nodeFetch(noFallback, {})(server.url, { method: 'POST', body: '{}' }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(TypeError);
      expect(((error as TypeError).cause as NodeJS.ErrnoException).code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    } finally {
      await server.close();
    }
  });
});
