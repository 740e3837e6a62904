/**
 * The WebSocket endpoint of `weft serve`: authorizes upgrade requests (path, Origin, token), then
 * attaches each socket to the dispatcher as one client. One JSON-RPC message per text frame.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { errorMessage } from '../util/errors';
import { formatLimit, MAX_MESSAGE_BYTES, parseFrame, type FrameError } from './framing';
import { OutboundQueue } from './outbound-queue';
import type { ClientConnection, ConnectionHost } from './transport';
import type { Disposable } from '../util/disposable';

export const WS_PATH = '/ws';
/** A browser cannot set headers on a WebSocket; it may offer the token as this subprotocol instead. */
export const TOKEN_PROTOCOL_PREFIX = 'weft.token.';
export const DEFAULT_KEEPALIVE_MS = 30_000;

/** How long a WebSocket client's streaming deltas are held to be merged (about one frame at 60 Hz). */
const DELTA_HOLD_MS = 16;

/** `bufferedAmount` above which the socket counts as congested (outgoing messages wait in the queue). */
const HIGH_WATER_BYTES = 1024 * 1024;
/** `bufferedAmount` at or below which a congested socket takes messages again. */
const LOW_WATER_BYTES = 256 * 1024;
/** How long a closing peer gets to answer the close frame at shutdown before its socket is cut. */
const SHUTDOWN_GRACE_MS = 1_000;

export interface WebSocketEndpointOptions {
  token: string;
  /** Exact `Origin` values allowed to connect, e.g. `http://127.0.0.1:4280`. No `Origin` is allowed too. */
  allowedOrigins: ReadonlySet<string>;
  log: (line: string) => void;
  /** Interval between pings; a peer that has not answered the previous ping is closed. Default 30 s. */
  keepaliveIntervalMs?: number;
  /** Largest text frame accepted. Default 10 MiB. */
  maxPayloadBytes?: number;
  /** Outgoing bytes allowed to wait for a slow client before it is dropped. Default 64 MiB. */
  maxQueuedBytes?: number;
}

export interface WebSocketEndpoint extends Disposable {
  /**
   * Handles an http `upgrade` event: answers 404/403/401 itself (false), or opens the WebSocket of a
   * request that presented the token (true).
   */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** `dispose`: closes every client (code 1001) and stops the keepalive timer. */
  close(): Promise<void>;
  readonly clientCount: number;
}

interface Client {
  readonly ws: WebSocket;
  readonly label: string;
  alive: boolean;
}

export function createWebSocketEndpoint(host: ConnectionHost, options: WebSocketEndpointOptions): WebSocketEndpoint {
  const { log, allowedOrigins } = options;
  const maxPayload = options.maxPayloadBytes ?? MAX_MESSAGE_BYTES;
  const tooLargeReason = `message too large: the limit is ${formatLimit(maxPayload)} per message`;
  const expectedDigest = digest(options.token);
  const clients = new Set<Client>();

  /** ws closes an oversized message with 1009 and no reason; this gives the peer one it can show. */
  class WeftWebSocket extends WebSocket {
    override close(code?: number, data?: string | Buffer): void {
      if (code === 1009 && data === undefined) super.close(code, tooLargeReason);
      else super.close(code, data);
    }
  }

  const tokenMatches = (candidate: string): boolean => timingSafeEqual(digest(candidate), expectedDigest);
  const server = new WebSocketServer({
    noServer: true,
    maxPayload,
    perMessageDeflate: false,
    WebSocket: WeftWebSocket,
    handleProtocols: (protocols) => {
      for (const protocol of protocols) {
        if (protocol.startsWith(TOKEN_PROTOCOL_PREFIX) && tokenMatches(protocol.slice(TOKEN_PROTOCOL_PREFIX.length))) {
          return protocol;
        }
      }
      return false;
    },
  });

  function handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(request.url ?? '/', 'http://upgrade.invalid');
    if (url.pathname !== WS_PATH) {
      reject(socket, 404, `No WebSocket endpoint at ${url.pathname}; connect to ${WS_PATH}.`);
      return false;
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin)) {
      log(`weft serve: refused a WebSocket from origin ${origin} (only this server's own pages may connect)`);
      reject(socket, 403, `WebSocket connections from origin ${origin} are not allowed.`);
      return false;
    }
    if (!presentsToken(request, url)) {
      reject(socket, 401, 'Missing or wrong token: open the URL that `weft serve` printed (it carries ?token=…).');
      return false;
    }
    server.handleUpgrade(request, socket, head, (ws) => attach(ws, request, socket));
    return true;
  }

  function presentsToken(request: IncomingMessage, url: URL): boolean {
    const queryToken = url.searchParams.get('token');
    if (queryToken !== null && tokenMatches(queryToken)) return true;
    const offered = request.headers['sec-websocket-protocol'];
    if (offered === undefined) return false;
    return offered
      .split(',')
      .map((protocol) => protocol.trim())
      .some(
        (protocol) =>
          protocol.startsWith(TOKEN_PROTOCOL_PREFIX) && tokenMatches(protocol.slice(TOKEN_PROTOCOL_PREFIX.length)),
      );
  }

  function attach(ws: WebSocket, request: IncomingMessage, socket: Duplex): void {
    const label = `ws ${request.socket.remoteAddress ?? '?'}:${request.socket.remotePort ?? '?'}`;
    const client: Client = { ws, label, alive: true };
    clients.add(client);
    let congested = false;
    const attached: { connection?: ClientConnection } = {};

    // A write's callback has null for "no error" when the socket flushes several writes at once (corked).
    const afterSend = (error?: Error | null): void => {
      if ((error !== undefined && error !== null) || !congested || ws.bufferedAmount > LOW_WATER_BYTES) return;
      congested = false;
      queue.drained();
    };
    // The messages written in one tick (a hold's deltas released together, a turn's items) leave in one
    // write to the kernel: the socket is corked at the first of them and uncorked after the tick. Each
    // message was a write of its own: beside eight busy agents those writes were the largest item of the
    // host's main-thread profile (353-354 ms of a 12-14 s run; 222-281 ms corked).
    let corked = false;
    const uncork = (): void => {
      corked = false;
      socket.uncork();
    };
    const queue = new OutboundQueue(
      {
        write(text) {
          if (!corked) {
            corked = true;
            socket.cork();
            process.nextTick(uncork);
          }
          ws.send(text, afterSend);
          congested = ws.bufferedAmount > HIGH_WATER_BYTES;
          return !congested;
        },
      },
      {
        label,
        log,
        onOverflow: () => ws.terminate(),
        // A page draws at most once a frame: a frame's deltas of one item go to it as one message.
        holdDeltasMs: DELTA_HOLD_MS,
        ...(options.maxQueuedBytes === undefined ? {} : { maxQueuedBytes: options.maxQueuedBytes }),
      },
    );

    const deliver = (message: unknown): void => {
      try {
        attached.connection?.receive(message);
      } catch (error) {
        log(`weft serve: the dispatcher failed on a message from ${label}: ${errorMessage(error)}`);
      }
    };

    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) {
        deliver(BINARY_FRAME_ERROR);
        return;
      }
      deliver(parseFrame(rawDataToBuffer(data).toString('utf8')));
    });
    ws.on('pong', () => {
      client.alive = true;
    });
    ws.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
        log(
          `weft serve: ${label} sent a message over the ${formatLimit(maxPayload)} limit; closing its connection (1009)`,
        );
      } else {
        log(`weft serve: ${label}: ${error.message}`);
      }
    });
    ws.on('close', () => {
      clients.delete(client);
      queue.close();
      try {
        attached.connection?.close();
      } catch (error) {
        log(`weft serve: closing ${label} failed: ${errorMessage(error)}`);
      }
    });

    attached.connection = host.connect({
      label,
      send: (message) => queue.send(message),
      whenSent: () => queue.whenSent(),
      boundsNesting: true,
    });
  }

  const keepalive = setInterval(() => {
    for (const client of clients) {
      if (!client.alive) {
        log(`weft serve: ${client.label} did not answer a ping; closing its connection`);
        client.ws.terminate();
        continue;
      }
      client.alive = false;
      client.ws.ping();
    }
  }, options.keepaliveIntervalMs ?? DEFAULT_KEEPALIVE_MS);
  keepalive.unref();

  async function close(): Promise<void> {
    clearInterval(keepalive);
    const closed = [...clients].map(
      ({ ws }) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) {
            resolve();
            return;
          }
          ws.once('close', () => resolve());
          ws.close(1001, 'the server is shutting down');
          setTimeout(() => ws.terminate(), SHUTDOWN_GRACE_MS).unref();
        }),
    );
    await Promise.all(closed);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  return {
    handleUpgrade,
    close,
    dispose: close,
    get clientCount() {
      return clients.size;
    },
  };
}

const BINARY_FRAME_ERROR: FrameError = {
  kind: 'frame-error',
  code: -32600,
  message: 'binary frames are not supported: send each JSON-RPC message as a UTF-8 text frame',
};

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function rawDataToBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Answers an upgrade request with a plain HTTP error and closes the socket. */
function reject(socket: Duplex, status: number, message: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = `${message}\n`;
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${process.getBuiltinModule('node:http').STATUS_CODES[status] ?? ''}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      '\r\n' +
      body,
  );
}
