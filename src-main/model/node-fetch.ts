// The model client's `fetch`, on Node's own HTTP client. Node's `fetch` (undici) parses HTTP with llhttp
// compiled to WebAssembly: a process's first response compiles it, and once its functions are hot V8
// compiles them again with its optimizing compiler on a background thread, 40–55 ms of a core that a
// process waits for when it ends (`weft exec` with one tool call ended 30–38 ms after its last output, 8 ms
// without a second request). `node:http` parses with the llhttp built into Node. What `fetch` does and this
// does not (a proxy from the environment, redirects, bodies that are streams or forms) is left to `fetch`.

import type { IncomingMessage, RequestOptions } from 'node:http';
import type { Readable } from 'node:stream';

/** Variables through which Node's `fetch` may be told to use a proxy: with any of them set, `fetch` sends. */
const PROXY_VARIABLES = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'NODE_USE_ENV_PROXY',
];

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Statuses whose responses have no body (a `Response` refuses one). */
const NO_BODY = new Set([204, 205, 304]);
const CODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br']);

type Body = string | Uint8Array | null;

/** The request's body as text or bytes; undefined when it is of a kind left to `fetch` (a stream, a form, a blob). */
function bodyOf(body: RequestInit['body']): Body | undefined {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (body instanceof URLSearchParams) return body.toString();
  return undefined;
}

function codingOf(message: IncomingMessage): string {
  return (message.headers['content-encoding'] ?? '').trim().toLowerCase();
}

/** A response's body with its content coding (gzip, deflate, br) taken off, as `fetch` takes it off. */
function decoded(message: IncomingMessage): Readable {
  const coding = codingOf(message);
  if (!CODINGS.has(coding)) return message;
  const zlib = process.getBuiltinModule('node:zlib');
  const decoder =
    coding === 'br' ? zlib.createBrotliDecompress() : coding === 'deflate' ? zlib.createInflate() : zlib.createGunzip();
  // Either side failing ends both: a body that does not decode lets its connection go too. The error reaches
  // the reader through the decoder.
  process.getBuiltinModule('node:stream').pipeline(message, decoder, () => undefined);
  return decoder;
}

function headersOf(message: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = message.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] ?? '', raw[i + 1] ?? '');
  // The body handed on is decoded: the server's coding and length no longer describe it.
  if (CODINGS.has(codingOf(message))) {
    headers.delete('content-encoding');
    headers.delete('content-length');
  }
  return headers;
}

/** The headers `fetch` would send: the caller's, a default `accept`, and the length of the body. */
function requestHeaders(init: RequestInit | undefined, body: Body): Record<string, string> {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value;
  });
  headers['accept'] ??= '*/*';
  if (typeof body === 'string') headers['content-type'] ??= 'text/plain;charset=UTF-8';
  if (body !== null)
    headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  return headers;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** Sends the request; resolves with the response's head (its body not read yet). */
function send(
  url: URL,
  options: RequestOptions,
  body: Body,
  signal: AbortSignal | undefined,
): Promise<IncomingMessage> {
  const { request } = process.getBuiltinModule(url.protocol === 'https:' ? 'node:https' : 'node:http');
  return new Promise((resolve, reject) => {
    const outgoing = request(url, options, resolve);
    // As `fetch` fails: an abort with the signal's reason, anything else as a TypeError whose cause says why.
    // (A listener that stays: an error the request raises after its answer came is settled already, and must
    // not be left without one.)
    outgoing.on('error', (error) =>
      reject(signal?.aborted === true ? abortError(signal) : new TypeError('fetch failed', { cause: error })),
    );
    outgoing.end(body ?? undefined);
  });
}

/**
 * A `fetch` for the model client: requests over `node:http` and `node:https` (their global agents, which
 * keep connections alive), answered as a standard `Response` whose body streams as it arrives, decoded.
 * `fallback` (Node's `fetch`) sends what this does not: any request when a proxy is configured, a request
 * answered with a redirect, and bodies that are not text or bytes.
 */
export function nodeFetch(fallback: typeof fetch = fetch, env: NodeJS.ProcessEnv = process.env): typeof fetch {
  const proxied = PROXY_VARIABLES.some((name) => (env[name] ?? '') !== '');
  return async (input, init) => {
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : null;
    const body = bodyOf(init?.body);
    const url = href === null ? null : new URL(href);
    if (proxied || url === null || body === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      return fallback(input, init);
    const signal = init?.signal ?? undefined;
    if (signal?.aborted === true) throw abortError(signal);
    const method = (init?.method ?? 'GET').toUpperCase();
    const options: RequestOptions = { method, headers: requestHeaders(init, body), ...(signal ? { signal } : {}) };
    const message = await send(url, options, body, signal);
    const status = message.statusCode ?? 0;
    if (REDIRECTS.has(status) && message.headers.location !== undefined && init?.redirect !== 'manual') {
      message.destroy();
      return fallback(input, init);
    }
    const empty = method === 'HEAD' || NO_BODY.has(status);
    try {
      const headers = headersOf(message);
      if (empty) {
        // Read to its end so the connection can be used again; nobody else listens to it.
        message.on('error', () => undefined);
        message.resume();
        return new Response(null, { status, statusText: message.statusMessage ?? '', headers });
      }
      const { Readable: NodeReadable } = process.getBuiltinModule('node:stream');
      const stream = NodeReadable.toWeb(decoded(message)) as ReadableStream<Uint8Array>;
      return new Response(stream, { status, statusText: message.statusMessage ?? '', headers });
    } catch (error) {
      // A head `Response` refuses (a status outside 200–599): failed as fetch fails, the connection let go.
      message.destroy();
      throw new TypeError('fetch failed', { cause: error });
    }
  };
}
