// The WebSocket transport of `weft serve`: the page's own host, path `/ws`, and the token the server put
// in the page URL (`?token=`).
import type { Connection, Connector } from './rpc-client';

/** `ws(s)://<host>/ws?token=<token>` for a page served from `pageUrl`; null when the page has no token. */
export function socketUrlFor(pageUrl: string): string | null {
  const page = new URL(pageUrl);
  const token = page.searchParams.get('token');
  if (token === null || token === '') return null;
  if (page.protocol !== 'http:' && page.protocol !== 'https:') return null;
  const scheme = page.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${page.host}/ws?token=${encodeURIComponent(token)}`;
}

/** Closing codes people can act on; the rest read "closed (code N)". */
function describeClose(event: CloseEvent): string {
  if (event.code === 1006) return 'the connection dropped';
  if (event.code === 1008 || event.code === 4401) return 'Weft refused the token in this page address';
  if (event.reason !== '') return event.reason;
  return `the connection closed (code ${event.code})`;
}

/** The server answered but refused this page's token: it was restarted with a new one. Retrying cannot help. */
export class TokenRejectedError extends Error {
  readonly tokenRejected = true;
}

export const TOKEN_REJECTED_MESSAGE =
  'Weft restarted with a new access token, so this page’s address no longer works. Open the address `weft serve` printed when it started (run it again to print it).';

/**
 * Why a socket did not open: asks the server's `/token-check` (a browser never sees the status of a
 * refused WebSocket upgrade). A 401 means a new token; no answer means the server is not there.
 */
async function whyNotOpen(url: string, reason: string): Promise<Error> {
  const socket = new URL(url);
  const check = new URL('/token-check', `${socket.protocol === 'wss:' ? 'https:' : 'http:'}//${socket.host}`);
  check.searchParams.set('token', socket.searchParams.get('token') ?? '');
  try {
    const response = await fetch(check, { cache: 'no-store' });
    if (response.status === 401) return new TokenRejectedError(TOKEN_REJECTED_MESSAGE);
  } catch {
    // Unreachable: reported below.
  }
  return new Error(`could not connect to ${socket.host}: ${reason}`);
}

export function webSocketConnector(url: string): Connector {
  return (handlers) =>
    new Promise<Connection>((resolve, reject) => {
      let opened = false;
      const socket = new WebSocket(url);
      socket.addEventListener('open', () => {
        opened = true;
        resolve({
          send: (text) => {
            if (socket.readyState === WebSocket.OPEN) socket.send(text);
          },
          close: () => socket.close(1000, 'closed by the UI'),
        });
      });
      socket.addEventListener('message', (event: MessageEvent<unknown>) => {
        if (typeof event.data === 'string') handlers.onMessage(event.data);
      });
      socket.addEventListener('close', (event) => {
        const reason = describeClose(event);
        if (opened) handlers.onClose(reason);
        else void whyNotOpen(url, reason).then(reject);
      });
    });
}
