// A JSON-RPC test client for Weft's app server, over stdio (a `weft app-server` subprocess) or
// WebSocket (a `weft serve` subprocess). It records every message, answers server requests through a
// handler the test sets, and waits on messages — never on time.
import { sharedCompileCache } from './weft-cli';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { WebSocket } from 'ws';

/** This checkout's `weft` (resolved when used: a bundled benchmark has no `__dirname`). */
const weftBin = (): string => resolve(__dirname, '../../bin/weft.js');
/** How long a wait lasts before it fails with what arrived last (a guard against a hang, not a deadline). */
const GUARD_MS = 20_000;

export interface RpcMessage {
  id?: string | number | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

interface Waiter {
  /** Resolves the wait if a message matches; says whether it did. */
  check(): boolean;
  fail(why: string): void;
}

export type ServerRequestHandler = (method: string, params: Record<string, unknown>) => unknown | Promise<unknown>;

export abstract class RpcClient {
  readonly received: RpcMessage[] = [];
  /** When each message of `received` arrived (performance.now(), same index). */
  readonly receivedAt: number[] = [];
  private readonly waiters = new Set<Waiter>();
  private nextId = 1;
  /** Answers server requests; default: never answers (the test decides when). */
  onServerRequest: ServerRequestHandler | null = null;

  protected abstract write(text: string): void;
  abstract close(): Promise<void>;

  protected onMessage(text: string): void {
    const message = JSON.parse(text) as RpcMessage;
    this.received.push(message);
    this.receivedAt.push(performance.now());
    for (const waiter of [...this.waiters]) waiter.check();
    if (message.method && message.id !== undefined && message.id !== null && this.onServerRequest) {
      const id = message.id;
      void Promise.resolve(
        this.onServerRequest(message.method, (message.params ?? {}) as Record<string, unknown>),
      ).then((result) => {
        if (result !== undefined) this.send({ id, result });
      });
    }
  }

  send(message: object): void {
    this.write(`${JSON.stringify(message)}\n`);
  }

  sendRaw(text: string): void {
    this.write(text);
  }

  /** Sends a request; resolves with the whole response message (result or error). */
  async call(method: string, params?: unknown): Promise<RpcMessage> {
    const id = this.nextId++;
    this.send(params === undefined ? { id, method } : { id, method, params });
    return this.waitFor((m) => m.id === id && m.method === undefined, `response to ${method}`);
  }

  /** Sends a request; resolves with its result, or rejects with the error message. */
  async request<T = Record<string, unknown>>(method: string, params?: unknown): Promise<T> {
    const response = await this.call(method, params);
    if (response.error) throw new Error(`${method} failed: ${response.error.code} ${response.error.message}`);
    return response.result as T;
  }

  async initialize(): Promise<void> {
    await this.request('initialize', { clientInfo: { name: 'weft-tests', version: '1' } });
    this.send({ method: 'initialized' });
  }

  /**
   * The first message received at or after index `from` that matches. `guardMs`: longer than the usual
   * guard only for work that is big by design (thousands of files written on a busy machine).
   */
  waitFor(predicate: (m: RpcMessage) => boolean, label: string, from = 0, guardMs = GUARD_MS): Promise<RpcMessage> {
    return new Promise((resolveWait, reject) => {
      const waiter: Waiter = {
        check: () => {
          const hit = this.received.slice(from).find(predicate);
          if (!hit) return false;
          this.waiters.delete(waiter);
          clearTimeout(timer);
          resolveWait(hit);
          return true;
        },
        fail: (why) => {
          this.waiters.delete(waiter);
          clearTimeout(timer);
          reject(new Error(`${why} while waiting for ${label}`));
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(
          new Error(
            `timed out waiting for ${label}; last messages: ${JSON.stringify(this.received.slice(-5)).slice(0, 1500)}`,
          ),
        );
      }, guardMs);
      if (!waiter.check()) this.waiters.add(waiter);
    });
  }

  /** Rejects every pending wait (the peer is gone: nothing more will arrive). */
  protected failWaiters(why: string): void {
    for (const waiter of [...this.waiters]) waiter.fail(why);
  }

  notification(
    method: string,
    match: (params: Record<string, unknown>) => boolean = () => true,
    from = 0,
    guardMs = GUARD_MS,
  ): Promise<Record<string, unknown>> {
    return this.waitFor(
      (m) => m.method === method && m.id === undefined && match((m.params ?? {}) as Record<string, unknown>),
      method,
      from,
      guardMs,
    ).then((m) => (m.params ?? {}) as Record<string, unknown>);
  }

  serverRequest(method: string, from = 0): Promise<RpcMessage> {
    return this.waitFor((m) => m.method === method && m.id !== undefined, `server request ${method}`, from);
  }

  notifications(method: string): Record<string, unknown>[] {
    return this.received
      .filter((m) => m.method === method && m.id === undefined)
      .map((m) => (m.params ?? {}) as Record<string, unknown>);
  }
}

export class StdioRpcClient extends RpcClient {
  stderr = '';
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    super();
    createInterface({ input: child.stdout }).on('line', (line) => this.onMessage(line));
    child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((r) => child.on('exit', (code) => r(code)));
    // 'close' comes once the process has exited and its output is read to the end: what it said last
    // on stderr is what explains an unexpected end.
    child.on('close', (code, signal) =>
      this.failWaiters(
        `the app server ended (exit ${String(code)}, signal ${String(signal)}; stderr: ${JSON.stringify(this.stderr.slice(-2000))})`,
      ),
    );
  }

  /** A client for an app server the test spawned itself (e.g. inside a namespace). */
  static attach(child: ChildProcessWithoutNullStreams): StdioRpcClient {
    return new StdioRpcClient(child);
  }

  /** `weft app-server` of this checkout, or of the `bin/weft.js` given (another build, for benchmarks). */
  static start(
    env: Record<string, string>,
    cwd: string,
    bin: string = weftBin(),
    nodeArgs: readonly string[] = [],
  ): StdioRpcClient {
    const child = spawn(process.execPath, [...nodeArgs, bin, 'app-server'], {
      cwd,
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '',
        SHELL: '/bin/bash',
        ...sharedCompileCache(),
        ...env,
      },
    });
    return new StdioRpcClient(child);
  }

  protected write(text: string): void {
    this.child.stdin.write(text);
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await this.exited;
  }
}

export class WsRpcClient extends RpcClient {
  private constructor(private readonly ws: WebSocket) {
    super();
    ws.on('message', (data: Buffer) => this.onMessage(data.toString('utf8')));
  }

  static connect(url: string): Promise<WsRpcClient> {
    return new Promise((resolveConnect, reject) => {
      const ws = new WebSocket(url);
      const client = new WsRpcClient(ws);
      ws.once('open', () => resolveConnect(client));
      ws.once('error', reject);
    });
  }

  protected write(text: string): void {
    this.ws.send(text.trimEnd());
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((r) => {
      this.ws.once('close', () => r());
      this.ws.close();
    });
  }
}

/** A `weft serve` subprocess; resolves once it prints its URL. */
export async function startWeftServe(
  env: Record<string, string>,
  cwd: string,
  extraArgs: readonly string[] = [],
): Promise<{ url: string; wsUrl: string; pid: number; stop(): Promise<void>; stderr(): string }> {
  const args = [weftBin(), 'serve', '--port', '0', '--cd', cwd, '--token', 'test-token', ...extraArgs];
  const child = spawn(process.execPath, args, {
    cwd: extraArgs.includes('--env') ? (env['WEFT_HOME'] ?? cwd) : cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', SHELL: '/bin/bash', ...env },
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`weft serve did not start: ${stderr}`)), GUARD_MS);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^Weft is serving (\S+)$/.exec(line);
      if (m?.[1]) {
        clearTimeout(timer);
        resolveUrl(m[1]);
      }
    });
    child.on('exit', () => reject(new Error(`weft serve exited: ${stderr}`)));
  });
  const u = new URL(url);
  return {
    url,
    wsUrl: `ws://${u.host}/ws?token=${u.searchParams.get('token') ?? ''}`,
    pid: child.pid ?? 0,
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
