import type { ServerRequest } from '../../src-preload/protocol';
import { errorMessage } from '../util/errors';
import type { Client } from './dispatcher';

interface Pending {
  id: number;
  request: ServerRequest;
  /** Clients sent the request (still able to answer until they fail or go). */
  asked: Set<Client>;
  /** Clients that answered with an error, with what they said. */
  failed: Map<Client, string>;
  settle(result: unknown): void;
}

/** What a request resolves to when the turn is interrupted or the thread closes before anyone answers. */
export function cancelAnswer(request: ServerRequest): unknown {
  return request.method === 'item/tool/requestUserInput' ? { answers: {} } : { decision: 'cancel' };
}

/** What a request resolves to when no client could answer it: a refusal the model is told about. */
export function declineAnswer(request: ServerRequest): unknown {
  return request.method === 'item/tool/requestUserInput' ? { answers: {} } : { decision: 'decline' };
}

/**
 * Server requests of one thread (approvals, questions). Every subscriber gets each request; the first
 * answer wins and everyone is told (`serverRequest/resolved`). A client that disconnects mid-request
 * leaves it pending for the others, or for the next client to attach. A client that answers with an
 * error cannot answer it: once every client asked has failed or gone (and one failed), the request is
 * declined (`declineAnswer`) and the subscribers get a `warning` saying why.
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

  /**
   * Asks the subscribed clients; resolves with the first answer, `onAbort()` when the signal fires
   * (default `cancelAnswer`), or `declineAnswer` when no client could answer.
   */
  ask(
    request: ServerRequest,
    signal: AbortSignal,
    onAbort: () => unknown = () => cancelAnswer(request),
  ): Promise<unknown> {
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
      const entry: Pending = { id, request, asked: new Set(), failed: new Map(), settle: finish };
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

  /** Settles everything still waiting with `cancelAnswer` (thread unloading). */
  cancelAll(): void {
    for (const entry of [...this.pending.values()]) entry.settle(cancelAnswer(entry.request));
  }

  private sendTo(client: Client, entry: Pending): void {
    entry.asked.add(client);
    entry.failed.delete(client);
    client.request(entry.request, entry.id).then(
      (result) => entry.settle(result),
      (error: unknown) => {
        if (!client.closed) {
          const message = errorMessage(error);
          entry.failed.set(client, message);
          this.log(
            `weft app-server: ${client.label} answered ${entry.request.method} #${entry.id} with an error: ${message}`,
          );
        }
        this.declineIfUnanswerable(entry);
      },
    );
  }

  /** Declines a request every asked client has failed or left, once one of them failed. */
  private declineIfUnanswerable(entry: Pending): void {
    if (!this.pending.has(entry.id) || entry.failed.size === 0) return;
    for (const client of entry.asked) if (!client.closed && !entry.failed.has(client)) return;
    const why = [...entry.failed].map(([client, message]) => `${client.label}: ${message}`).join('; ');
    const message = `${entry.request.method} was declined: every client that could answer it failed (${why})`;
    this.log(`weft app-server: thread ${this.threadId}: ${message}`);
    for (const client of this.subscribers())
      client.notify({ method: 'warning', params: { threadId: this.threadId, message } });
    entry.settle(declineAnswer(entry.request));
  }
}
