// Test helpers for the web transport: a WebSocket client that records what it receives, and raw HTTP GETs
// (raw so that paths like `/../x` reach the server unnormalised).
import { request } from 'node:http';
import { WebSocket, type ClientOptions } from 'ws';

/** An open client socket and everything it has received, parsed. */
export class TestClient {
  readonly messages: unknown[] = [];
  readonly #waiters = new Set<() => void>();
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      this.messages.push(JSON.parse(data.toString('utf8')) as unknown);
      for (const wake of [...this.#waiters]) wake();
    });
    this.closed = new Promise((resolve) =>
      ws.on('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString() })),
    );
  }

  send(message: object): void {
    this.ws.send(JSON.stringify(message));
  }

  /** Resolves with the first message (already received or future) matching `predicate`. */
  next(predicate: (message: unknown) => boolean, label: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.messages.find(predicate);
        if (found === undefined) return false;
        this.#waiters.delete(wake);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const wake = (): void => {
        check();
      };
      // Deadlock guard only: a working server answers in milliseconds.
      const timer = setTimeout(() => {
        this.#waiters.delete(wake);
        reject(new Error(`no message matching ${label}; got ${JSON.stringify(this.messages).slice(0, 500)}`));
      }, 15_000);
      if (!check()) this.#waiters.add(wake);
    });
  }
}

export function withId(id: unknown) {
  return (message: unknown): boolean =>
    typeof message === 'object' && message !== null && 'id' in message && message.id === id;
}

/** Opens a client; rejects with `HTTP <status>` when the server refuses the upgrade. */
export function openClient(url: string, protocols?: string[], options: ClientOptions = {}): Promise<TestClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, options);
    const client = new TestClient(ws);
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_request, response) => {
      reject(new Error(`HTTP ${response.statusCode ?? '?'}`));
      ws.terminate();
    });
    ws.once('error', (error) => reject(error));
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function rawGet(port: number, path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
