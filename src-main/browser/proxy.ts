// The gate every non-loopback request of the browser goes through: Chromium is started with this HTTP proxy
// on 127.0.0.1 (loopback hosts bypass proxies in Chromium, and are always allowed), so redirects,
// sub-resources, WebSockets and HTTPS tunnels are all checked, which request interception does not give
// (a redirect's next hop is never intercepted).
import type * as Http from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';

// node:http through getBuiltinModule, when the proxy starts: importing it makes Node build its ES facade,
// which reads every export, and one of them (its WebSocket) loads undici, ~30 ms of every host's start.
const http = (): typeof Http => process.getBuiltinModule('node:http');

/** Decides about one origin (`scheme://host[:port]`) or URL; resolves with null to allow, else the reason. */
export type ProxyGate = (url: string) => Promise<string | null>;

export interface BrowserProxy {
  /** `http://127.0.0.1:<port>`, for `--proxy-server`. */
  url: string;
  close(): Promise<void>;
}

/** Starts the proxy; `gate` is asked about each request before anything leaves the machine. */
export async function startBrowserProxy(gate: ProxyGate): Promise<BrowserProxy> {
  const sockets = new Set<Socket>();
  const server: Server = http().createServer((req, res) => void forward(gate, req, res));
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => void tunnel(gate, req, client, head));
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the browser proxy has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function forward(gate: ProxyGate, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const target = req.url ?? '';
  const refused = await gate(target).catch((error: unknown) => String(error));
  if (refused !== null) {
    res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end(refused);
    return;
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    res.writeHead(400).end('not an absolute URL');
    return;
  }
  const headers = { ...req.headers };
  delete headers['proxy-connection'];
  delete headers['proxy-authorization'];
  const upstream = http().request(url, { method: req.method ?? 'GET', headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', (error) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`the browser's request to ${url.origin} failed: ${error.message}`);
  });
  req.pipe(upstream);
}

async function tunnel(gate: ProxyGate, req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
  client.on('error', () => undefined);
  const [host = '', portText = '443'] = splitHostPort(req.url ?? '');
  const port = Number(portText);
  const scheme = port === 80 ? 'http' : 'https';
  const refused = await gate(`${scheme}://${host}${port === 443 || port === 80 ? '' : `:${port}`}/`).catch(
    (error: unknown) => String(error),
  );
  if (refused !== null || !Number.isInteger(port)) {
    client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    return;
  }
  const upstream = connect(port, host, () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
  client.on('close', () => upstream.destroy());
}

/** `host:port` or `[v6]:port`. */
function splitHostPort(authority: string): [string, string] {
  const v6 = /^\[([^\]]+)\]:(\d+)$/.exec(authority);
  if (v6) return [v6[1] ?? '', v6[2] ?? ''];
  const at = authority.lastIndexOf(':');
  return at < 0 ? [authority, '443'] : [authority.slice(0, at), authority.slice(at + 1)];
}
