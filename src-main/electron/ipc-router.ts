// One JSON-RPC connection per page, over Electron IPC. Pure: the Electron glue (ipc-transport.ts) checks
// the sender, then hands messages here; this module owns the page → connection map.
import type { ClientConnection, ConnectionHost } from '../server/transport';

/** The webContents of a window, as far as the router needs it. */
export interface IpcPeer {
  readonly id: number;
  /** Sends one message to the page's main frame. */
  send(message: object): void;
  isDestroyed(): boolean;
}

export class IpcRouter {
  readonly #host: ConnectionHost;
  readonly #connections = new Map<number, ClientConnection>();

  constructor(host: ConnectionHost) {
    this.#host = host;
  }

  /**
   * The page of `peer` (re)started its bridge: any connection of an earlier page in the same webContents
   * (a reload) is closed, and a fresh one is attached.
   */
  open(peer: IpcPeer): void {
    this.close(peer.id);
    const connection = this.#host.connect({
      label: `ipc window ${peer.id}`,
      send: (message) => {
        if (!peer.isDestroyed()) peer.send(message);
      },
    });
    this.#connections.set(peer.id, connection);
  }

  /** Delivers one message from a page; false when the page has no open connection (it never sent open). */
  receive(peerId: number, message: unknown): boolean {
    const connection = this.#connections.get(peerId);
    if (connection === undefined) return false;
    connection.receive(message);
    return true;
  }

  /** The page went away (navigation, crash, window closed). Safe to call when nothing is open. */
  close(peerId: number): void {
    const connection = this.#connections.get(peerId);
    if (connection === undefined) return;
    this.#connections.delete(peerId);
    connection.close();
  }

  closeAll(): void {
    for (const peerId of [...this.#connections.keys()]) this.close(peerId);
  }

  get openCount(): number {
    return this.#connections.size;
  }
}
