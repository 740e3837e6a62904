/**
 * Caps the sockets `weft serve` keeps open: per client address and in total. A socket over a cap is
 * closed as soon as it is accepted, so a flood of idle connections cannot use up the process's file
 * descriptors; together with the header and idle timeouts (http-server.ts), the sockets held are freed.
 */
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** Open sockets per client address. Default 64 (a browser opens 6 per host, plus WebSockets). */
  perClient?: number;
  /** Open sockets in all. Default 256. */
  total?: number;
}

export const DEFAULT_CONNECTION_LIMITS = { perClient: 64, total: 256 } as const;

export class ConnectionLimiter {
  readonly #perClient: number;
  readonly #total: number;
  readonly #byAddress = new Map<string, number>();
  #open = 0;
  /** Sockets closed at once for being over a cap. */
  refused = 0;

  constructor(limits: ConnectionLimits = {}) {
    this.#perClient = limits.perClient ?? DEFAULT_CONNECTION_LIMITS.perClient;
    this.#total = limits.total ?? DEFAULT_CONNECTION_LIMITS.total;
  }

  /** Sockets held now. */
  get open(): number {
    return this.#open;
  }

  /** Counts an accepted socket, or closes it when a cap is reached; true when it may be served. */
  admit(socket: Socket): boolean {
    const address = socket.remoteAddress ?? 'unknown';
    const fromAddress = this.#byAddress.get(address) ?? 0;
    if (this.#open >= this.#total || fromAddress >= this.#perClient) {
      this.refused++;
      socket.destroy();
      return false;
    }
    this.#open++;
    this.#byAddress.set(address, fromAddress + 1);
    socket.once('close', () => {
      this.#open--;
      const left = (this.#byAddress.get(address) ?? 1) - 1;
      if (left > 0) this.#byAddress.set(address, left);
      else this.#byAddress.delete(address);
    });
    return true;
  }
}
