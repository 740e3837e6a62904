// The WebSocket transport writes the messages of one tick to the kernel together: the socket is corked at
// the first and uncorked after the tick. Before, each message was a write of its own (a hold's deltas, a
// turn's items), the largest cost of serving a page beside busy agents. A real `ws` client against the
// real endpoint on 127.0.0.1; the server side's socket writes are counted.
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createWebSocketEndpoint, TOKEN_PROTOCOL_PREFIX, WS_PATH } from '../../../src-main/server/websocket';
import type { ClientSink } from '../../../src-main/server/transport';

const BURST = 40;

let http: Server | null = null;
let client: WebSocket | null = null;

afterEach(async () => {
  client?.terminate();
  client = null;
  await new Promise<void>((resolve) => (http === null ? resolve() : http.close(() => resolve())));
  http = null;
});

/** Listens on a free loopback port and opens a client with the token; the client is closed after the test. */
async function connect(server: Server): Promise<WebSocket> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const ws = new WebSocket(`ws://127.0.0.1:${port}${WS_PATH}`, [`${TOKEN_PROTOCOL_PREFIX}secret`]);
  client = ws;
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return ws;
}

describe('the WebSocket transport', () => {
  it('sends the messages of one tick in one write', async () => {
    let writes = 0;
    // Each incoming message is answered with BURST notifications sent in one go.
    const endpoint = createWebSocketEndpoint(
      {
        connect: (sink: ClientSink) => ({
          receive: () => {
            writes = 0;
            for (let i = 0; i < BURST; i++) sink.send({ method: 'test/burst', params: { i } });
          },
          close: () => undefined,
        }),
      },
      { token: 'secret', allowedOrigins: new Set(), log: () => undefined },
    );
    http = createServer();
    http.on('upgrade', (request, socket: Socket, head: Buffer) => {
      // What reaches the kernel: every write Node makes on this socket goes through _write or _writev.
      const counted = socket as Socket & { _write: (...a: unknown[]) => void; _writev?: (...a: unknown[]) => void };
      const write = counted._write.bind(socket);
      counted._write = (...args: unknown[]) => {
        writes++;
        write(...args);
      };
      const writev = counted._writev?.bind(socket);
      if (writev !== undefined)
        counted._writev = (...args: unknown[]) => {
          writes++;
          writev(...args);
        };
      endpoint.handleUpgrade(request, socket, head);
    });
    const ws = await connect(http);
    const received: unknown[] = [];
    const all = new Promise<void>((resolve) =>
      ws.on('message', (data: Buffer) => {
        received.push(JSON.parse(data.toString('utf8')));
        if (received.length === BURST) resolve();
      }),
    );
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'go' }));
    await all;
    expect(received).toHaveLength(BURST);
    expect(received.at(-1)).toMatchObject({ method: 'test/burst', params: { i: BURST - 1 } });
    // One write for the whole burst (each message's frame header and text included).
    expect(writes).toBe(1);
    await endpoint.close();
  });

  it('goes on sending after a message bigger than its high-water mark, sent in a burst', async () => {
    // The burst's last message holds the queue until the socket has written it; a later one must follow.
    let later: (() => void) | null = null;
    const endpoint = createWebSocketEndpoint(
      {
        connect: (sink: ClientSink) => ({
          receive: (message: unknown) => {
            if ((message as { method?: string }).method === 'go') {
              sink.send({ method: 'test/small' });
              sink.send({ method: 'test/big', params: { text: 'x'.repeat(5_000_000) } });
              later = () => sink.send({ method: 'test/later' });
            } else later?.();
          },
          close: () => undefined,
        }),
      },
      { token: 'secret', allowedOrigins: new Set(), log: () => undefined },
    );
    http = createServer();
    http.on('upgrade', (request, socket: Socket, head: Buffer) => endpoint.handleUpgrade(request, socket, head));
    const ws = await connect(http);
    const methods: string[] = [];
    const done = new Promise<void>((resolve) =>
      ws.on('message', (data: Buffer) => {
        const { method } = JSON.parse(data.toString('utf8')) as { method: string };
        methods.push(method);
        // Once the big one is in, ask for one more: it is sent after the big one's write completed.
        if (method === 'test/big') ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'more' }));
        if (method === 'test/later') resolve();
      }),
    );
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'go' }));
    await done;
    expect(methods).toEqual(['test/small', 'test/big', 'test/later']);
    await endpoint.close();
  });
});
