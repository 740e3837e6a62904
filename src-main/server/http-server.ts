/**
 * The HTTP side of `weft serve`: the built renderer as static files, `/healthz`, and the WebSocket
 * endpoint at `/ws`. Loopback only unless the caller explicitly asked for another host; the socket
 * always requires the token. Every request (and upgrade) must name this server in `Host`
 * (host-allowlist.ts: 421 otherwise); sockets that have not presented the token are capped per client
 * and in total (connection-limiter.ts); request timeouts are those of http-timeouts.ts. A WebSocket,
 * once open, is kept by its own pings.
 *
 * Static files do NOT require the token: the page reads the token from its own URL and presents it on
 * the socket, and without the socket the page can do nothing. Requiring it for assets would only force
 * the token into every asset URL (and Referer headers) for no protection gained.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { resolve, sep } from 'node:path';
import { errorMessage } from '../util/errors';
import { ConnectionLimiter, type ConnectionLimits } from './connection-limiter';
import { contentTypeFor } from './content-types';
import { allowedHosts, isAllowedHost, MISDIRECTED_MESSAGE } from './host-allowlist';
import { createTimedHttpServer, type HttpTimeouts } from './http-timeouts';
import type { ConnectionHost } from './transport';
import { createWebSocketEndpoint, WS_PATH } from './websocket';
import type { Disposable } from '../util/disposable';

export interface WebServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** True when the user named the host; only then may it be a non-loopback address. */
  hostExplicit: boolean;
  /** Defaults to 32 random bytes, base64url. */
  token?: string;
  /** The built renderer (`dist/renderer`); may be missing, then `/` explains how to build it. */
  staticDir: string;
  log: (line: string) => void;
  /** Interval between WebSocket pings. Default 30 s. */
  keepaliveIntervalMs?: number;
  /** Outgoing bytes allowed to wait for a slow WebSocket client before it is dropped. Default 64 MiB. */
  maxQueuedBytes?: number;
  /** Socket caps and timeouts; defaults in connection-limiter.ts and http-timeouts.ts. */
  limits?: ConnectionLimits & HttpTimeouts;
}

export interface WebServer extends Disposable {
  /** `http://HOST:PORT/?token=…`: the page to open. */
  url: string;
  port: number;
  token: string;
  /** `dispose`: closes every WebSocket client and the listener. */
  close(): Promise<void>;
}

/** Why the server could not start, for the CLI to phrase advice. */
export class WebServerStartError extends Error {
  constructor(
    message: string,
    readonly reason: 'non-loopback' | 'address-in-use' | 'listen-failed',
  ) {
    super(message);
    this.name = 'WebServerStartError';
  }
}

/** `GET /token-check?token=…`: 200 when the token opens the socket, 401 when it does not. */
export const TOKEN_CHECK_PATH = '/token-check';

export function isLoopbackHost(host: string): boolean {
  const bare = unbracket(host).toLowerCase();
  if (bare === 'localhost' || bare === '::1' || bare === '0:0:0:0:0:0:0:1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

export async function startWebServer(host: ConnectionHost, opts: WebServerOptions): Promise<WebServer> {
  const bindHost = unbracket(opts.host);
  if (!isLoopbackHost(bindHost) && !opts.hostExplicit) {
    throw new WebServerStartError(
      `refusing to listen on ${opts.host}: it is not a loopback address, and anyone who can reach it could ` +
        'load the UI. Pass --host explicitly to allow it (the WebSocket still requires the token).',
      'non-loopback',
    );
  }
  const token = opts.token ?? randomBytes(32).toString('base64url');
  const limiter = new ConnectionLimiter(opts.limits);
  const { server, spoke } = createTimedHttpServer(opts.limits, (socket) => limiter.admit(socket));
  const port = await listen(server, bindHost, opts.port);
  const hosts = allowedHosts({ port, explicitHost: opts.hostExplicit && !isLoopbackHost(bindHost) ? bindHost : null });

  const urlHost = formatHost(isWildcard(bindHost) ? '127.0.0.1' : bindHost);
  const origins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`]);
  if (opts.hostExplicit) origins.add(`http://${formatHost(bindHost)}:${port}`);
  const endpoint = createWebSocketEndpoint(host, {
    token,
    allowedOrigins: origins,
    log: opts.log,
    ...(opts.keepaliveIntervalMs === undefined ? {} : { keepaliveIntervalMs: opts.keepaliveIntervalMs }),
    ...(opts.maxQueuedBytes === undefined ? {} : { maxQueuedBytes: opts.maxQueuedBytes }),
  });
  const staticRoot = resolve(opts.staticDir);
  const tokenDigest = createHash('sha256').update(token).digest();
  const tokenMatches = (candidate: string | null): boolean =>
    candidate !== null && timingSafeEqual(createHash('sha256').update(candidate).digest(), tokenDigest);

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    spoke(socket);
    if (!isAllowedHost(request.headers.host, hosts)) {
      refuseUpgrade(socket);
      return;
    }
    if (endpoint.handleUpgrade(request, socket, head)) limiter.trust(request.socket);
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    limiter.requestStarted(socket);
    response.once('close', () => limiter.requestEnded(socket));
    // The CSP names the socket address the page was actually loaded from (a source list cannot hold an
    // IPv6 literal such as [::1], so there only 'self' applies, which covers the page's own ws: origin).
    const headers = securityHeaders(socketSourceFor(request.headers.host, origins));
    if (!isAllowedHost(request.headers.host, hosts)) {
      sendText(response, 421, headers, MISDIRECTED_MESSAGE);
      return;
    }
    if (tokenMatches(queryToken(request))) limiter.trust(socket);
    handleRequest(request, response, staticRoot, headers, tokenMatches).catch((error: unknown) => {
      opts.log(`weft serve: ${request.method ?? '?'} ${request.url ?? '?'} failed: ${errorMessage(error)}`);
      if (!response.headersSent) sendText(response, 500, headers, 'Internal error; see the server log.\n');
      else response.destroy();
    });
  });

  async function dispose(): Promise<void> {
    const closed = new Promise<void>((done) => server.close(() => done()));
    await endpoint.dispose();
    server.closeAllConnections();
    await closed;
  }

  return {
    url: `http://${urlHost}:${port}/?token=${encodeURIComponent(token)}`,
    port,
    token,
    close: dispose,
    dispose,
  };
}

/** Answers an upgrade addressed to another host with 421 and closes the socket. */
function refuseUpgrade(socket: Duplex): void {
  const body = Buffer.from(MISDIRECTED_MESSAGE);
  socket.end(
    `HTTP/1.1 421 Misdirected Request\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\n\r\n${MISDIRECTED_MESSAGE}`,
  );
}

/** The `token` query parameter of a request, or null. */
function queryToken(request: IncomingMessage): string | null {
  return new URL(request.url ?? '/', 'http://localhost').searchParams.get('token');
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolveListen, rejectListen) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      if (error.code === 'EADDRINUSE') {
        rejectListen(new WebServerStartError(`port ${port} on ${host} is already in use`, 'address-in-use'));
      } else {
        rejectListen(new WebServerStartError(`cannot listen on ${host}:${port}: ${error.message}`, 'listen-failed'));
      }
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      if (address === null || typeof address === 'string') {
        rejectListen(new WebServerStartError(`cannot listen on ${host}:${port}: no TCP address`, 'listen-failed'));
        return;
      }
      resolveListen(address.port);
    });
  });
}

type Headers = Readonly<Record<string, string>>;

function securityHeaders(wsOrigins: readonly string[]): Headers {
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    ['connect-src', "'self'", ...wsOrigins].join(' '),
    "worker-src 'self' blob:",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

/** `ws://host:port` for a Host header naming one of the served origins, when CSP can express it. */
function socketSourceFor(host: string | undefined, origins: ReadonlySet<string>): string[] {
  if (host === undefined || !origins.has(`http://${host}`) || host.startsWith('[')) return [];
  return [`ws://${host}`];
}

async function handleRequest(
  request: IncomingMessage,
  response: ServerResponse,
  root: string,
  headers: Headers,
  tokenMatches: (candidate: string | null) => boolean,
): Promise<void> {
  const rawPath = (request.url ?? '/').split(/[?#]/, 1)[0] ?? '/';
  if (rawPath === TOKEN_CHECK_PATH) {
    // Lets the page tell "the server is gone" from "the server restarted with another token" (a browser
    // WebSocket never sees the 401 of a refused upgrade).
    const ok = tokenMatches(queryToken(request));
    sendBody(
      response,
      ok ? 200 : 401,
      { ...headers, 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
      ok ? '{"token":"ok"}' : '{"token":"rejected"}',
      request.method === 'HEAD',
    );
    return;
  }
  if (rawPath === '/healthz' || rawPath === '/readyz') {
    sendBody(
      response,
      200,
      { ...headers, 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
      '{"status":"ok"}',
      request.method === 'HEAD',
    );
    return;
  }
  if (rawPath === WS_PATH) {
    sendText(
      response,
      426,
      { ...headers, Upgrade: 'websocket' },
      `${WS_PATH} is the WebSocket endpoint; connect with a WebSocket client.\n`,
    );
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    sendText(response, 405, { ...headers, Allow: 'GET, HEAD' }, 'Only GET and HEAD are served here.\n');
    return;
  }
  const relative = safeRelativePath(rawPath);
  if (relative === null) {
    sendText(response, 400, headers, 'Bad path.\n');
    return;
  }
  const file = await findFile(root, relative === '' ? 'index.html' : relative);
  if (file === null) {
    if (relative === '')
      sendBody(
        response,
        503,
        { ...headers, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' },
        NOT_BUILT_PAGE,
        request.method === 'HEAD',
      );
    else sendText(response, 404, headers, 'Not found.\n');
    return;
  }
  const isIndex = relative === '' || relative === 'index.html';
  response.writeHead(200, {
    ...headers,
    'Content-Type': mimeType(file.path),
    'Content-Length': String(file.size),
    'Cache-Control': !isIndex && relative.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  const stream = createReadStream(file.path);
  stream.on('error', () => response.destroy());
  stream.pipe(response);
}

/**
 * The request path as a relative file path (`''` for `/`), or null when it tries to leave the root:
 * `..` or `.` segments, encoded slashes or backslashes, NUL, or invalid percent-encoding. Hidden files
 * (segments starting with a dot) are refused too.
 */
export function safeRelativePath(rawPath: string): string | null {
  if (!rawPath.startsWith('/') || rawPath.includes('\\') || /%(2f|5c|00)/i.test(rawPath)) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.slice(1).split('/');
  if (segments.some((segment, index) => segment.startsWith('.') || (segment === '' && index < segments.length - 1)))
    return null;
  return segments.join('/');
}

interface FoundFile {
  path: string;
  size: number;
}

/** A regular file under `root` (after resolving symlinks), or null. */
async function findFile(root: string, relative: string): Promise<FoundFile | null> {
  if (relative.endsWith('/')) return null;
  const candidate = resolve(root, relative);
  if (!candidate.startsWith(root + sep)) return null;
  try {
    const [real, realRoot] = await Promise.all([realpath(candidate), realpath(root)]);
    if (!real.startsWith(realRoot + sep)) return null;
    const info = await stat(real);
    return info.isFile() ? { path: real, size: info.size } : null;
  } catch {
    return null;
  }
}

/** Kept under its old name for callers and tests of this module. */
export const mimeType = contentTypeFor;

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Weft: renderer not built</title></head>
<body><h1>The Weft UI is not built</h1>
<p>This server found no built renderer to serve. Run <code>npm run build</code> in the Weft checkout, then reload this page.</p>
</body></html>
`;

function sendText(response: ServerResponse, status: number, headers: Headers, text: string): void {
  sendBody(
    response,
    status,
    { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
    text,
    false,
  );
}

function sendBody(response: ServerResponse, status: number, headers: Headers, body: string, headOnly: boolean): void {
  response.writeHead(status, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
  response.end(headOnly ? undefined : body);
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '';
}

/** A host as it appears in a URL: IPv6 addresses in brackets. */
function formatHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}
