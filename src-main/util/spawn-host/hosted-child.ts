// A child process started through the spawn host, shaped like the part of Node's ChildProcess that Weft
// uses: `pid`, the three pipes, `kill`, and the events `spawn`, `error`, `exit` and `close`, in Node's
// order. Where there is no spawn host (run from source, or WEFT_SPAWN_HOST=0), the same object wraps a
// direct `spawn`, so callers never tell the two apart.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Readable, Writable } from 'node:stream';
import type { FromSpawnHost } from './messages';
import { spawnHostConnection } from './connection';
import type { SpawnHostConnection } from './connection';

export interface HostedSpawnOptions {
  cwd: string;
  env: Record<string, string>;
  /** Leads a process group of its own (its pid is the group's id). */
  detached?: boolean;
  /** stdin: closed (default), or a pipe the caller writes to. */
  stdin?: 'ignore' | 'pipe';
  /** Aborting kills the child (SIGTERM) and reports an AbortError, as Node's `signal` option does. */
  signal?: AbortSignal;
}

type ExitListener = (code: number | null, signal: NodeJS.Signals | null) => void;

/** The part of ChildProcess callers rely on; a hosted and a direct child both provide it. */
export interface SpawnedChild {
  readonly pid: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  kill(signal?: NodeJS.Signals | number): boolean;
  on(event: 'spawn', listener: () => void): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  on(event: 'exit' | 'close', listener: ExitListener): unknown;
  once(event: 'spawn', listener: () => void): unknown;
  once(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  once(event: 'exit' | 'close', listener: ExitListener): unknown;
}

function abortError(): Error {
  return Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}

class HostedChild extends EventEmitter {
  pid: number | undefined = undefined;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly stdin: PassThrough | null;
  private pendingKill: NodeJS.Signals | null = null;
  private ended = false;

  constructor(private readonly options: HostedSpawnOptions) {
    super();
    this.stdin = options.stdin === 'pipe' ? new PassThrough() : null;
  }

  kill(signal: NodeJS.Signals | number = 'SIGTERM'): boolean {
    const name = typeof signal === 'number' ? 'SIGKILL' : signal;
    if (this.ended) return false;
    if (this.pid === undefined) {
      this.pendingKill = name;
      return true;
    }
    try {
      process.kill(this.pid, typeof signal === 'number' ? signal : name);
      return true;
    } catch {
      return false;
    }
  }

  /** Relays what the caller writes to stdin, and its giving up on the output; after the start message. */
  attach(connection: SpawnHostConnection, id: number): void {
    const stdin = this.stdin;
    if (stdin !== null) {
      stdin.on('data', (data: Buffer) => connection.send({ kind: 'stdin', id, data }));
      stdin.on('end', () => connection.send({ kind: 'stdinEnd', id }));
    }
    // The caller gave up on the output (a background process holds the pipes): the spawn host stops too.
    const onDestroyed = (): void => {
      if (!this.ended) connection.send({ kind: 'destroy', id });
    };
    this.stdout.once('close', onDestroyed);
    this.stderr.once('close', onDestroyed);
  }

  report(message: FromSpawnHost): void {
    switch (message.kind) {
      case 'spawned':
        this.pid = message.pid;
        this.emit('spawn');
        if (this.pendingKill !== null) this.kill(this.pendingKill);
        break;
      case 'failed':
        this.fail(Object.assign(new Error(message.message), message.code === undefined ? {} : { code: message.code }));
        break;
      case 'output':
        (message.fd === 1 ? this.stdout : this.stderr).write(
          Buffer.from(message.data.buffer, message.data.byteOffset, message.data.byteLength),
        );
        break;
      case 'exit':
        this.exit(message.code, message.signal as NodeJS.Signals | null);
        break;
      case 'close':
        this.close(message.code, message.signal as NodeJS.Signals | null);
        break;
      case 'ptyExit':
        break; // Only a PTY's, never a piped child's.
    }
  }

  /** The spawn host went away: the child is reported as ended with no code (its group may live on). */
  lost(): void {
    if (this.pid === undefined) {
      this.fail(new Error('the process that starts commands stopped before this one started'));
      return;
    }
    if (this.exitCode === null && this.signalCode === null) this.exit(null, null);
    this.close(null, null);
  }

  fail(error: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.stdout.end();
    this.stderr.end();
    this.emit('error', error);
    this.emit('close', null, null);
  }

  exit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exitCode = code;
    this.signalCode = signal;
    this.emit('exit', code, signal);
  }

  close(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.ended) return;
    this.ended = true;
    let open = 2;
    const done = (): void => {
      open -= 1;
      if (open === 0) this.emit('close', code, signal);
    };
    for (const stream of [this.stdout, this.stderr]) {
      if (stream.destroyed || stream.readableEnded) done();
      else {
        stream.once('end', done);
        stream.once('close', () => {
          stream.off('end', done);
        });
        stream.end();
        // Nobody reads it: let it flow so that 'end' comes.
        if (stream.listenerCount('data') === 0 && stream.listenerCount('readable') === 0) stream.resume();
      }
    }
  }

  /** Starts the child directly (no spawn host): Node's own events and pipes, forwarded. */
  startDirect(file: string, args: readonly string[]): void {
    const child = spawn(file, args, {
      cwd: this.options.cwd,
      env: this.options.env,
      detached: this.options.detached ?? false,
      stdio: [this.options.stdin ?? 'ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(this.stdout, { end: false });
    child.stderr?.pipe(this.stderr, { end: false });
    if (this.stdin !== null && child.stdin !== null) {
      child.stdin.on('error', () => undefined);
      this.stdin.pipe(child.stdin);
    }
    child.once('spawn', () => this.report({ kind: 'spawned', id: 0, pid: child.pid ?? 0 }));
    child.on('error', (error) => {
      if (this.pid === undefined) this.fail(error);
    });
    child.once('exit', (code, signal) => this.exit(code, signal));
    child.once('close', (code, signal) => this.close(code, signal));
    this.stdout.once('close', () => child.stdout?.destroy());
    this.stderr.once('close', () => child.stderr?.destroy());
  }
}

/**
 * Starts `file` with `args`, through the spawn host when there is one. Returns at once, as `spawn` does;
 * `spawn` or `error` follows.
 */
export function spawnHosted(file: string, args: readonly string[], options: HostedSpawnOptions): SpawnedChild {
  const child = new HostedChild(options);
  const { signal } = options;
  if (signal !== undefined) {
    const onAbort = (): void => {
      child.kill('SIGTERM');
      child.emit('error', abortError());
    };
    if (signal.aborted) queueMicrotask(onAbort);
    else {
      signal.addEventListener('abort', onAbort, { once: true });
      child.once('close', () => signal.removeEventListener('abort', onAbort));
    }
  }
  void spawnHostConnection().then(
    (connection) => {
      if (connection === null || !connection.usable) {
        child.startDirect(file, args);
        return;
      }
      const id = connection.register(child);
      connection.send({
        kind: 'start',
        id,
        file,
        args: [...args],
        cwd: options.cwd,
        env: options.env,
        detached: options.detached ?? false,
        stdin: options.stdin ?? 'ignore',
      });
      child.attach(connection, id);
    },
    (error: unknown) => child.fail(error instanceof Error ? error : new Error(String(error))),
  );
  return child;
}
