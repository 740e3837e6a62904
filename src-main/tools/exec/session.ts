// One command started by exec_command: its process, the output it printed since the last tool call,
// and waiting for it (until it exits, a deadline passes, or the call is aborted).
import { MAX_RETAINED_OUTPUT_BYTES } from './constants';
import type { ExecProcess } from './exec-process';
import type { RetainedParts } from './format';
import { RetainedOutput } from './output-buffer';

export type WaitOutcome = 'exited' | 'deadline' | 'aborted';

/** Output of one session: retained for the next tool call, and forwarded live to the current one. */
export class OutputChannel {
  private readonly buffer = new RetainedOutput(MAX_RETAINED_OUTPUT_BYTES);
  /** The live listener of the tool call in progress, if any. */
  sink: ((text: string) => void) | null = null;

  push(text: string): void {
    this.buffer.push(text);
    this.sink?.(text);
  }

  peek(): RetainedParts {
    return this.buffer.peek();
  }

  drain(): RetainedParts {
    return this.buffer.drain();
  }
}

export class ExecSession {
  /** Set once the leader exited and its output was delivered. */
  exitCode: number | null = null;
  /** Last time a tool call started on this session (the manager's clock); the least recent is closed first. */
  lastUsed: number;
  /** Tool calls currently waiting on this session. */
  activeCalls = 0;
  /** Why the manager closed this session, reported to the call that was waiting on it, if any. */
  closeNote: string | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private terminating: Promise<void> | null = null;

  constructor(
    readonly id: number,
    readonly command: string,
    readonly process: ExecProcess,
    readonly output: OutputChannel,
    now: number,
    /** The turn that started it (null: not said). */
    readonly turnId: string | null = null,
  ) {
    this.lastUsed = now;
    void process.exited.then((code) => {
      this.exitCode = code;
    });
  }

  /** Runs `fn` after every earlier call on this session has finished (one tool call at a time). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Waits until the process exits, `timeoutMs` passes, or `signal` aborts — whichever comes first. */
  wait(timeoutMs: number, signal: AbortSignal): Promise<WaitOutcome> {
    if (this.exitCode !== null) return Promise.resolve('exited');
    if (signal.aborted) return Promise.resolve('aborted');
    return new Promise((resolve) => {
      let settled = false;
      const done = (outcome: WaitOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const onAbort = (): void => done('aborted');
      const timer = setTimeout(() => done('deadline'), timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      void this.process.exited.then(() => done('exited'));
    });
  }

  /**
   * Kills the process group (once) and waits, boundedly, for it and the leader's exit to be seen;
   * immediate when the process already exited.
   */
  terminate(): Promise<void> {
    if (this.exitCode !== null) return Promise.resolve();
    this.terminating ??= this.process.kill();
    return this.terminating;
  }
}
