/**
 * Where `weft mcp-server` listens: stdio (one MCP client, the process's stdin/stdout), or streamable
 * HTTP on loopback, where every MCP session gets its own server and host client and every request must
 * carry the token (`Authorization: Bearer TOKEN`, or `?token=TOKEN` in the URL), as `weft serve` does.
 * Stalled sockets are closed with `weft serve`'s timeouts (server/http-timeouts.ts).
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createTimedHttpServer, type HttpTimeouts } from '../../server/http-timeouts';
import type { ConnectionHost } from '../../server/transport';
import { VERSION } from '../../version';
import { errorMessage } from '../../util/errors';
import { connectHostClient, type HostClient } from '../host-client';
import { createWeftMcpServer } from './server';

const CLIENT_INFO = { name: 'weft-mcp-server', title: 'Weft MCP server', version: VERSION };
/** Largest request body accepted over HTTP (a prompt with pasted files fits easily). */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface McpStdioOptions {
  host: ConnectionHost;
  stdin: Readable;
  stdout: Writable;
  log: (line: string) => void;
}

/** Serves one MCP client on stdio; resolves when stdin closes. */
export async function serveMcpStdio(options: McpStdioOptions): Promise<void> {
  const client = await connectHostClient(options.host, {
    label: 'mcp-server stdio',
    clientInfo: CLIENT_INFO,
    log: options.log,
  });
  const server = createWeftMcpServer({ client, log: options.log });
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const ended = new Promise<void>((resolve) => {
    options.stdin.once('end', resolve);
    options.stdin.once('close', resolve);
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await ended;
  await server.close().catch(() => undefined);
  client.close();
}

export interface McpHttpOptions {
  host: ConnectionHost;
  /** 0 picks a free port. */
  port: number;
  /** Default: 32 random bytes, base64url. */
  token?: string;
  log: (line: string) => void;
  /** Default: http-timeouts.ts's, the same as `weft serve`'s. */
  limits?: HttpTimeouts;
}

export interface McpHttpServer {
  /** `http://127.0.0.1:PORT/mcp` */
  readonly url: string;
  readonly token: string;
  close(): Promise<void>;
}

interface McpSession {
  transport: StreamableHTTPServerTransport;
  client: HostClient;
}

/** Starts the streamable HTTP endpoint `/mcp` on 127.0.0.1. */
export async function startMcpHttpServer(options: McpHttpOptions): Promise<McpHttpServer> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const sessions = new Map<string, McpSession>();
  let port = 0;

  const authorized = (req: IncomingMessage, url: URL): boolean => {
    const header = req.headers.authorization;
    const given = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : url.searchParams.get('token');
    if (given === null || given === undefined) return false;
    const a = Buffer.from(given);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b);
  };

  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const client = await connectHostClient(options.host, {
      label: 'mcp-server http',
      clientInfo: CLIENT_INFO,
      log: options.log,
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, client });
      },
      enableDnsRebindingProtection: true,
      allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`],
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      client.close();
    };
    await createWeftMcpServer({ client, log: options.log }).connect(transport);
    return transport;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/mcp') return plain(res, 404, 'Not found: the MCP endpoint is /mcp');
    if (!authorized(req, url))
      return plain(res, 401, 'Unauthorized: send the token as "Authorization: Bearer TOKEN" or ?token=TOKEN');
    const origin = req.headers.origin;
    if (origin !== undefined && !/^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(origin))
      return plain(res, 403, `Forbidden: requests from ${origin} are not accepted`);
    const sessionId = req.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (req.method !== 'POST') {
      if (!known) return plain(res, 400, 'Bad request: no such MCP session');
      return known.transport.handleRequest(req, res);
    }
    const body = await readJson(req);
    if (body === undefined) return plain(res, 400, 'Bad request: the body must be JSON (at most 10 MiB)');
    if (known) return known.transport.handleRequest(req, res, body);
    if (sessionId !== undefined)
      return plain(res, 404, 'Not found: no such MCP session (start a new one with initialize)');
    if (!isInitializeRequest(body)) return plain(res, 400, 'Bad request: a new MCP session starts with initialize');
    const transport = await newSession();
    await transport.handleRequest(req, res, body);
  };

  const { server } = createTimedHttpServer(options.limits);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      options.log(`weft mcp-server: ${req.method ?? ''} ${req.url ?? ''} failed: ${errorMessage(error)}`);
      if (!res.headersSent) plain(res, 500, 'Internal error');
      else res.destroy();
    });
  });
  port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('the server has no TCP address'));
      else resolve(address.port);
    });
  });

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    token,
    close: async () => {
      for (const session of [...sessions.values()]) await session.transport.close().catch(() => undefined);
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${text}\n`);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
