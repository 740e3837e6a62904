/**
 * Caps the sockets `weft serve` keeps open for clients that have not shown the token: per client
 * address and in total, so a flood of idle connections cannot use up the process's file descriptors.
 *
 * Every local process shares the page's address (127.0.0.1), so a cap that refused new sockets would
 * let any of them lock the page out by holding 64 idle ones. Instead, a socket over a cap takes the
 * place of the oldest idle socket nobody vouched for (one that is not being served a request), and is
 * refused only when every one of them is busy. A socket whose request or WebSocket upgrade presented
 * the token is trusted from then on: it no longer counts against the caps and is never pushed out (its
 * holder can already run commands as the user). Together with the header and idle timeouts
 * (http-timeouts.ts), the sockets held are freed.
 */
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** Open untrusted sockets per client address. Default 64 (a browser opens 6 per host, plus WebSockets). */
  perClient?: number;
  /** Open untrusted sockets in all. Default 256. */
  total?: number;
}

export const DEFAULT_CONNECTION_LIMITS = { perClient: 64, total: 256 } as const;

interface Held {
  readonly address: string;
  trusted: boolean;
  /** Requests being served on the socket now. */
  busy: number;
}

export class ConnectionLimiter {
  readonly #perClient: number;
  readonly #total: number;
  /** Every socket held, oldest first. */
  readonly #held = new Map<Socket, Held>();
  readonly #untrustedByAddress = new Map<string, number>();
  #untrusted = 0;

  constructor(limits: ConnectionLimits = {}) {
    this.#perClient = limits.perClient ?? DEFAULT_CONNECTION_LIMITS.perClient;
    this.#total = limits.total ?? DEFAULT_CONNECTION_LIMITS.total;
  }

  /** Untrusted sockets held now. */
  get untrusted(): number {
    return this.#untrusted;
  }

  /**
   * Counts an accepted socket, closing the oldest idle untrusted one to make room when a cap is
   * reached (or this one, when none is idle); true when it may be served.
   */
  admit(socket: Socket): boolean {
    const address = socket.remoteAddress ?? 'unknown';
    const fromAddress = this.#untrustedByAddress.get(address) ?? 0;
    if (fromAddress >= this.#perClient || this.#untrusted >= this.#total) {
      const victim = this.#oldestIdle(fromAddress >= this.#perClient ? address : null);
      if (victim === null) {
        socket.destroy();
        return false;
      }
      this.#forget(victim);
      victim.destroy();
    }
    this.#held.set(socket, { address, trusted: false, busy: 0 });
    this.#count(address, +1);
    socket.once('close', () => this.#forget(socket));
    return true;
  }

  /** The socket presented the token: it leaves the caps and is never pushed out. */
  trust(socket: Socket): void {
    const held = this.#held.get(socket);
    if (held === undefined || held.trusted) return;
    held.trusted = true;
    this.#count(held.address, -1);
  }

  /** A request is being served on the socket: it is not pushed out until the response ends. */
  requestStarted(socket: Socket): void {
    const held = this.#held.get(socket);
    if (held !== undefined) held.busy++;
  }

  requestEnded(socket: Socket): void {
    const held = this.#held.get(socket);
    if (held !== undefined) held.busy = Math.max(0, held.busy - 1);
  }

  #oldestIdle(address: string | null): Socket | null {
    for (const [socket, held] of this.#held) {
      if (!held.trusted && held.busy === 0 && (address === null || held.address === address)) return socket;
    }
    return null;
  }

  #forget(socket: Socket): void {
    const held = this.#held.get(socket);
    if (held === undefined) return;
    this.#held.delete(socket);
    if (!held.trusted) this.#count(held.address, -1);
  }

  #count(address: string, delta: number): void {
    this.#untrusted += delta;
    const left = (this.#untrustedByAddress.get(address) ?? 0) + delta;
    if (left > 0) this.#untrustedByAddress.set(address, left);
    else this.#untrustedByAddress.delete(address);
  }
}
