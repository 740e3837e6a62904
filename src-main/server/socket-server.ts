/**
 * The per-user app server's transport: the protocol on a unix socket, one JSON object per line, one
 * client per connection (each the same as a `weft app-server` stdio client). The socket sits in a folder
 * only its user may enter (`user-socket.ts`), so the file system's permissions decide who connects;
 * nothing listens on a network port.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { runStdioServer } from './stdio';
import type { ConnectionHost } from './transport';

export interface SocketServer {
  /** Clients connected now. */
  readonly connections: number;
  /** Called whenever a client connects or leaves. */
  onConnectionsChanged(listener: (count: number) => void): void;
  /** Stops listening and removes the socket file; the clients connected stay. */
  stopListening(): void;
  /** Stops listening, ends every connection and removes the socket file. */
  close(): Promise<void>;
}

/** Listens on `path` (which must not exist); rejects with Node's error (EADDRINUSE…) when it cannot. */
export function listenOnSocket(host: ConnectionHost, path: string, log: (line: string) => void): Promise<SocketServer> {
  const sockets = new Set<Socket>();
  const listeners: ((count: number) => void)[] = [];
  const changed = (): void => {
    for (const listener of listeners) listener(sockets.size);
  };
  const logStream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      log(String(chunk).trimEnd());
      done();
    },
  });
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    changed();
    socket.on('error', (error) => log(`weft app-server: a socket client failed: ${error.message}`));
    void runStdioServer(host, { stdin: socket, stdout: socket, stderr: logStream }).then(() => {
      socket.end();
      sockets.delete(socket);
      changed();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve({
        get connections() {
          return sockets.size;
        },
        onConnectionsChanged: (listener) => {
          listeners.push(listener);
        },
        stopListening: () => {
          // Its callback comes once the last client has left; the socket file goes now.
          server.close(() => undefined);
        },
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
