// A small web site on 127.0.0.1 for the browser tools' tests: the handler answers every request.
import { createServer, type RequestListener } from 'node:http';

export interface LocalSite {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  close(): Promise<void>;
}

export async function startLocalSite(handler: RequestListener): Promise<LocalSite> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the test site has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    // The browser keeps its connections open: they are ended, or closing would wait for them.
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
