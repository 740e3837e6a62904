/**
 * The timeouts of Weft's HTTP listeners (`weft serve`, `weft mcp-server --port`): a socket must deliver a
 * request's headers within `headersTimeoutMs` of being accepted (or of its previous response), also
 * one that sends nothing at all, and a whole request within `requestTimeoutMs`. Node's own defaults
 * (60 s for headers, 300 s per request) would let a stalled or hostile client hold sockets far longer
 * than a real client ever needs. An idle kept-alive socket is closed after Node's 5 s.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface HttpTimeouts {
  /** From accepting a socket (or its previous response) to the end of a request's headers. */
  headersTimeoutMs?: number;
  /** From the start of a request to its end. */
  requestTimeoutMs?: number;
}

/** A real client's requests take milliseconds; these only bound what a stalled or hostile one can hold. */
export const DEFAULT_HTTP_TIMEOUTS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 } as const;

export interface TimedHttpServer {
  server: Server;
  /**
   * Stops the wait for a socket's first request. Requests do it themselves; an `upgrade` listener must
   * call it for the socket it takes over.
   */
  spoke(socket: Duplex): void;
}

/**
 * An HTTP server with these timeouts (defaults for those left out). `admit` sees every accepted socket
 * first; a socket it refuses (and closes) is left alone.
 */
export function createTimedHttpServer(
  timeouts: HttpTimeouts = {},
  admit: (socket: Socket) => boolean = () => true,
): TimedHttpServer {
  const headersTimeoutMs = timeouts.headersTimeoutMs ?? DEFAULT_HTTP_TIMEOUTS.headersTimeoutMs;
  const requestTimeoutMs = timeouts.requestTimeoutMs ?? DEFAULT_HTTP_TIMEOUTS.requestTimeoutMs;
  // node:http through getBuiltinModule: importing it makes Node build its ES facade, which reads every
  // export and so loads undici (see browser/proxy.ts).
  const server = process.getBuiltinModule('node:http').createServer({
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    // How often those two are checked; Node's default (30 s) would let a stalled socket linger.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, headersTimeoutMs / 4)),
  });
  // Node's header timeout starts with the first byte: a socket that never sends one is closed here.
  const silent = new WeakMap<Duplex, NodeJS.Timeout>();
  const spoke = (socket: Duplex): void => {
    clearTimeout(silent.get(socket));
    silent.delete(socket);
  };
  server.on('connection', (socket: Socket) => {
    if (!admit(socket)) return;
    const timer = setTimeout(() => socket.destroy(), headersTimeoutMs);
    timer.unref();
    silent.set(socket, timer);
    socket.once('close', () => spoke(socket));
  });
  server.on('request', (request: IncomingMessage) => spoke(request.socket));
  return { server, spoke };
}
