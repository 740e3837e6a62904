/**
 * One pipe to a remote app server: the environment's program (ssh, kubectl exec -i, …) started with
 * its stdin and stdout carrying the protocol, one JSON object per line. Its stderr is kept (the tail) to
 * say why it ended.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { JsonlDecoder, isFrameError } from '../../server/framing';
import type { PipeExit } from './pipe-failure';

const STDERR_TAIL = 4096;
/** How long output may still come after the program exited. */
const EXIT_GRACE_MS = 1000;
/** How long a closed pipe's program has to leave (its stdin closed, SIGTERM) before it is killed. */
const STOP_GRACE_MS = 3000;

export class PipeLink {
  private readonly child: ChildProcessWithoutNullStreams;
  private stderr = '';
  private ended = false;
  readonly exited: Promise<PipeExit>;

  /** Who hears the remote's messages: the relay connection that holds the pipe (it may be handed over). */
  onMessage: (message: object) => void;

  constructor(
    argv: readonly string[],
    onMessage: (message: object) => void,
    log: (line: string) => void,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.onMessage = onMessage;
    const [program = '', ...args] = argv;
    this.child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
    const decoder = new JsonlDecoder((message) => {
      if (isFrameError(message)) {
        log(`weft: the remote sent a line that is not a protocol message (${message.message})`);
        return;
      }
      if (typeof message === 'object' && message !== null) this.onMessage(message);
    });
    this.child.stdout.on('data', (chunk: Buffer) => decoder.push(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    // A write after the program left fails with EPIPE: the exit says why, the write's error adds nothing.
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      let spawnError: string | null = null;
      this.child.once('error', (error) => {
        spawnError = error.message;
        this.ended = true;
        resolve({ code: null, signal: null, stderr: this.stderr, spawnError });
      });
      // A program that left while something it started still holds its stdout (a shell's child) ends the
      // pipe all the same: its output streams are let go shortly after its exit.
      this.child.once('exit', () => {
        setTimeout(() => {
          this.child.stdout.destroy();
          this.child.stderr.destroy();
        }, EXIT_GRACE_MS).unref();
      });
      this.child.once('close', (code, signal) => {
        this.ended = true;
        decoder.end();
        resolve({ code, signal, stderr: this.stderr, spawnError });
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  send(message: object): void {
    if (!this.ended) this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Ends the pipe: stdin closes (the remote bridge leaves), then the program is stopped. */
  close(): void {
    if (this.ended) return;
    this.child.stdin.end();
    this.child.kill('SIGTERM');
  }

  /**
   * `close`, resolving once the program has ended: a remote app server run through `sh -c` writes into its
   * own Weft home as it leaves, and a host that stops is not gone before it. One that has not left
   * STOP_GRACE_MS after the SIGTERM is killed.
   */
  async stop(): Promise<void> {
    this.close();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_GRACE_MS)));
    const how = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    if (how !== 'late') return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}
