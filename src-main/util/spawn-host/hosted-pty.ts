// A command in a pseudo-terminal, started through the spawn host (or directly with node-pty where there is
// none): the PTY's output as bytes, its exit once that output was read to the end, writes and resizes.
// A PTY's command is a session leader, so its pid is its process group, which the caller signals itself.
import type * as NodePty from 'node-pty';
import { spawnHostConnection } from './connection';
import type { FromSpawnHost } from './messages';

export interface HostedPtyOptions {
  cwd: string;
  env: Record<string, string>;
  /** The terminal type (TERM). */
  name: string;
  cols: number;
  rows: number;
}

export interface PtyExit {
  exitCode: number;
  /** The signal that ended it, if one did. */
  signal: number | null;
}

export interface HostedPty {
  readonly pid: number;
  /** One listener; output that came before it is handed over when it is set. */
  onData(listener: (chunk: Buffer) => void): void;
  readonly exited: Promise<PtyExit>;
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): void;
}

/** Starting failed because node-pty could not be loaded (`code` NO_PTY), or the program could not start. */
export class PtyStartError extends Error {
  constructor(
    message: string,
    readonly code: 'NO_PTY' | 'START',
  ) {
    super(message);
  }
}

class OutputRelay {
  private listener: ((chunk: Buffer) => void) | null = null;
  private early: Buffer[] = [];

  set(listener: (chunk: Buffer) => void): void {
    this.listener = listener;
    const early = this.early;
    this.early = [];
    for (const chunk of early) listener(chunk);
  }

  push(chunk: Buffer): void {
    if (this.listener === null) this.early.push(chunk);
    else this.listener(chunk);
  }
}

async function startDirect(file: string, args: readonly string[], options: HostedPtyOptions): Promise<HostedPty> {
  let pty: typeof NodePty;
  try {
    pty = await import('node-pty');
  } catch (error) {
    throw new PtyStartError(error instanceof Error ? error.message : String(error), 'NO_PTY');
  }
  let term: NodePty.IPty;
  try {
    term = pty.spawn(file, [...args], { ...options, encoding: null });
  } catch (error) {
    throw new PtyStartError(error instanceof Error ? error.message : String(error), 'START');
  }
  const relay = new OutputRelay();
  const data = term.onData((chunk: string | Buffer) =>
    relay.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk),
  );
  const exited = new Promise<PtyExit>((resolve) => {
    const sub = term.onExit(({ exitCode, signal }) => {
      data.dispose();
      sub.dispose();
      resolve({ exitCode, signal: signal !== undefined && signal > 0 ? signal : null });
    });
  });
  return {
    pid: term.pid,
    onData: (listener) => relay.set(listener),
    exited,
    write: (chunk) => term.write(chunk),
    resize: (cols, rows) => term.resize(cols, rows),
  };
}

/** Starts `file` in a PTY; rejects with a {@link PtyStartError} when it cannot. */
export async function spawnHostedPty(
  file: string,
  args: readonly string[],
  options: HostedPtyOptions,
): Promise<HostedPty> {
  const connection = await spawnHostConnection();
  if (connection === null || !connection.usable) return startDirect(file, args, options);
  const relay = new OutputRelay();
  let resolveExit: (exit: PtyExit) => void = () => undefined;
  const exited = new Promise<PtyExit>((resolve) => {
    resolveExit = resolve;
  });
  return new Promise<HostedPty>((resolve, reject) => {
    const id = connection.register({
      report(message: FromSpawnHost) {
        switch (message.kind) {
          case 'spawned':
            resolve({
              pid: message.pid,
              onData: (listener) => relay.set(listener),
              exited,
              write: (chunk) =>
                connection.send({ kind: 'stdin', id, data: typeof chunk === 'string' ? Buffer.from(chunk) : chunk }),
              resize: (cols, rows) => connection.send({ kind: 'ptyResize', id, cols, rows }),
            });
            break;
          case 'failed':
            reject(new PtyStartError(message.message, message.code === 'NO_PTY' ? 'NO_PTY' : 'START'));
            break;
          case 'output':
            relay.push(Buffer.from(message.data.buffer, message.data.byteOffset, message.data.byteLength));
            break;
          case 'ptyExit':
            connection.forget(id);
            resolveExit({ exitCode: message.exitCode, signal: message.signal });
            break;
          case 'exit':
          case 'close':
            break;
        }
      },
      lost() {
        reject(new PtyStartError('the process that starts commands stopped before this one started', 'START'));
        resolveExit({ exitCode: -1, signal: null });
      },
    });
    connection.send({ kind: 'startPty', id, file, args: [...args], ...options });
  });
}
