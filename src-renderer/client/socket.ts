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
        else reject(new Error(`could not connect to ${new URL(url).host}: ${reason}`));
      });
    });
}
