// The spawn host: a small process of its own that starts the commands the host runs and relays their
// output. Starting a process from Node forks the whole calling process, synchronously, and the fork's cost
// grows with the caller's memory (2 ms from a 40 MiB process, 20–70 ms from 250–450 MiB on a busy
// machine): from the host that serves every thread, each command stalled all of them. This process stays
// small, so its forks stay cheap, and the host only exchanges messages with it.
//
// It exits when the host goes away (the IPC channel closes; an Electron utility process is ended with the
// app). Commands it started keep running: they lead process groups of their own, which the host signals
// directly by id.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type * as NodePty from 'node-pty';
import { fromSpawnHost, toSpawnHost } from './messages';
import type { FromSpawnHost, ToSpawnHost } from './messages';

/** Output chunks handed to the channel and not yet written: beyond this, the child's output waits. */
const MAX_UNSENT_CHUNKS = 32;

const children = new Map<number, ChildProcess>();
const terminals = new Map<number, NodePty.IPty>();
let unsent = 0;
const paused = new Set<ChildProcess>();

/** The desktop app's channel: an Electron utility process talks to its parent through `parentPort`. */
interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
}
const parentPort = (process as NodeJS.Process & { parentPort?: ParentPort }).parentPort;

/** Hands `message` to the channel; `written` runs once it left this process (at once on a parentPort). */
function post(message: FromSpawnHost, written?: () => void): void {
  if (parentPort !== undefined) {
    parentPort.postMessage(message);
    written?.();
  } else if (process.connected) process.send?.(message, undefined, {}, written);
}

function send(message: FromSpawnHost): void {
  // A message this process cannot describe is a bug here, not input to tolerate.
  fromSpawnHost.parse(message);
  post(message);
}

function sendOutput(child: ChildProcess, id: number, fd: 1 | 2, data: Buffer): void {
  unsent += 1;
  post({ kind: 'output', id, fd, data }, () => {
    unsent -= 1;
    if (unsent > MAX_UNSENT_CHUNKS / 2) return;
    for (const waiting of paused) {
      waiting.stdout?.resume();
      waiting.stderr?.resume();
    }
    paused.clear();
  });
  if (unsent >= MAX_UNSENT_CHUNKS && !paused.has(child)) {
    paused.add(child);
    child.stdout?.pause();
    child.stderr?.pause();
  }
}

function start(message: Extract<ToSpawnHost, { kind: 'start' }>): void {
  const { id } = message;
  const child = spawn(message.file, message.args, {
    cwd: message.cwd,
    env: message.env,
    detached: message.detached,
    stdio: [message.stdin, 'pipe', 'pipe'],
  });
  children.set(id, child);
  let spawned = false;
  child.once('spawn', () => {
    spawned = true;
    if (child.pid !== undefined) send({ kind: 'spawned', id, pid: child.pid });
  });
  child.on('error', (error: NodeJS.ErrnoException) => {
    if (spawned) return; // A failed signal or stdin write after the start: the exit says the rest.
    children.delete(id);
    send({ kind: 'failed', id, message: error.message, ...(error.code === undefined ? {} : { code: error.code }) });
  });
  child.stdout?.on('data', (data: Buffer) => sendOutput(child, id, 1, data));
  child.stderr?.on('data', (data: Buffer) => sendOutput(child, id, 2, data));
  child.stdin?.on('error', () => {
    // The command closed its stdin; what was not written is dropped, as with a direct pipe.
  });
  child.once('exit', (code, signal) => {
    if (spawned) send({ kind: 'exit', id, code, signal });
  });
  child.once('close', (code, signal) => {
    children.delete(id);
    paused.delete(child);
    if (spawned) send({ kind: 'close', id, code, signal });
  });
}

async function startPty(message: Extract<ToSpawnHost, { kind: 'startPty' }>): Promise<void> {
  const { id } = message;
  let pty: typeof NodePty;
  try {
    pty = await import('node-pty');
  } catch (error) {
    send({ kind: 'failed', id, message: error instanceof Error ? error.message : String(error), code: 'NO_PTY' });
    return;
  }
  let term: NodePty.IPty;
  try {
    term = pty.spawn(message.file, message.args, {
      name: message.name,
      cols: message.cols,
      rows: message.rows,
      cwd: message.cwd,
      env: message.env,
      encoding: null,
    });
  } catch (error) {
    send({ kind: 'failed', id, message: error instanceof Error ? error.message : String(error) });
    return;
  }
  terminals.set(id, term);
  send({ kind: 'spawned', id, pid: term.pid });
  term.onData((chunk: string | Buffer) => {
    post({ kind: 'output', id, fd: 1, data: typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk });
  });
  // node-pty reports the exit once the terminal's output has been read to the end.
  term.onExit(({ exitCode, signal }) => {
    terminals.delete(id);
    send({ kind: 'ptyExit', id, exitCode, signal: signal !== undefined && signal > 0 ? signal : null });
  });
}

function handle(message: ToSpawnHost): void {
  if (message.kind === 'start') {
    start(message);
    return;
  }
  if (message.kind === 'startPty') {
    void startPty(message);
    return;
  }
  const term = terminals.get(message.id);
  if (term !== undefined) {
    if (message.kind === 'stdin')
      term.write(Buffer.from(message.data.buffer, message.data.byteOffset, message.data.byteLength));
    else if (message.kind === 'ptyResize') term.resize(message.cols, message.rows);
    return;
  }
  const child = children.get(message.id);
  if (child === undefined) return;
  if (message.kind === 'stdin') child.stdin?.write(message.data);
  else if (message.kind === 'stdinEnd') child.stdin?.end();
  else if (message.kind === 'destroy') {
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
}

function receive(raw: unknown): void {
  const parsed = toSpawnHost.safeParse(raw);
  if (parsed.success) handle(parsed.data);
}

if (parentPort !== undefined) parentPort.on('message', (event) => receive(event.data));
else {
  process.on('message', receive);
  process.on('disconnect', () => process.exit(0));
}
