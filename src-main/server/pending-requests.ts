import type { ServerRequest } from '../../src-preload/protocol';
import type { Client } from './dispatcher';

interface Pending {
  id: number;
  request: ServerRequest;
  settle(result: unknown): void;
}

/**
 * Server requests of one thread (approvals, questions). Every subscriber gets each request; the first
 * answer wins and everyone is told (`serverRequest/resolved`). A client that disconnects mid-request
 * leaves it pending for the others, or for the next client to attach.
 */
export class PendingRequests {
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly threadId: string,
    private readonly nextId: () => number,
    private readonly subscribers: () => Iterable<Client>,
    private readonly log: (line: string) => void,
  ) {}

  get size(): number {
    return this.pending.size;
  }

  /** Asks the subscribed clients; resolves with the first answer, or `onAbort()` when the signal fires. */
  ask(request: ServerRequest, signal: AbortSignal, onAbort: () => unknown): Promise<unknown> {
    return new Promise((resolve) => {
      const id = this.nextId();
      const finish = (result: unknown): void => {
        if (!this.pending.delete(id)) return;
        signal.removeEventListener('abort', abort);
        resolve(result);
        for (const client of this.subscribers()) {
          client.notify({ method: 'serverRequest/resolved', params: { threadId: this.threadId, requestId: id } });
        }
      };
      const abort = (): void => finish(onAbort());
      const entry: Pending = { id, request, settle: finish };
      this.pending.set(id, entry);
      if (signal.aborted) {
        abort();
        return;
      }
      signal.addEventListener('abort', abort, { once: true });
      for (const client of this.subscribers()) this.sendTo(client, entry);
    });
  }

  /** A client just subscribed: it gets every request still waiting. */
  attach(client: Client): void {
    for (const entry of this.pending.values()) this.sendTo(client, entry);
  }

  /** Settles everything still waiting (thread unloading). */
  cancelAll(result: (request: ServerRequest) => unknown): void {
    for (const entry of [...this.pending.values()]) entry.settle(result(entry.request));
  }

  private sendTo(client: Client, entry: Pending): void {
    client.request(entry.request, entry.id).then(
      (result) => entry.settle(result),
      (error: unknown) => {
        if (client.closed) return; // stays pending for another client
        this.log(
          `weft app-server: ${client.label} answered ${entry.request.method} #${entry.id} with an error: ${error instanceof Error ? error.message : String(error)}`,
        );
      },
    );
  }
}
