// Terminal processes that outlive a dropped link. A relay starts its client's `command/exec` processes with
// a keep key (`weftKeepKey`); when the connection closes without `weft/terminal/release` (the pipe to this
// server dropped: ssh gone, laptop asleep), its processes with that key are kept here rather than ended,
// for a grace period (`WEFT_TERMINAL_GRACE_MS`, default 5 minutes), their output meanwhile kept in a ring
// of the last 256 KiB. The relay's reconnect takes each over (`weft/terminal/adopt`): what was kept is sent
// first, then the output as it comes, and the adopt is answered when the process exits. A process nobody
// adopts in time is ended; one that exits meanwhile is kept (its exit code and output) until then.
import type { CommandExecResult, CommandExecTerminalSize, ServerNotification } from '../../src-preload/protocol';
import type { Disposable } from '../util/disposable';

/** How long a dropped connection's processes wait to be adopted (WEFT_TERMINAL_GRACE_MS). */
export const DEFAULT_TERMINAL_GRACE_MS = 5 * 60_000;
/** The grace period of `env` (WEFT_TERMINAL_GRACE_MS: whole milliseconds, more than 0), else the default. */
export function terminalGraceMs(env: NodeJS.ProcessEnv): number {
  const value = env['WEFT_TERMINAL_GRACE_MS'];
  const n = Number(value);
  return value !== undefined && value !== '' && Number.isInteger(n) && n > 0 ? n : DEFAULT_TERMINAL_GRACE_MS;
}

/** Output kept per process while nobody is connected to it: the last bytes, per stream. */
export const KEPT_OUTPUT_BYTES = 256 * 1024;

/** A process started by `command/exec` (`command-exec.ts`), as its connection drives it. */
export interface Running {
  tty: boolean;
  stdinOpen: boolean;
  write(data: Buffer): void;
  closeStdin(): void;
  resize(size: CommandExecTerminalSize): void;
  terminate(): Promise<void>;
}

type Notify = (n: ServerNotification) => void;
type Delta = Extract<ServerNotification, { method: 'command/exec/outputDelta' }>;

/** Where a process's output goes: its connection, or, while it has none, a bounded ring of what it missed. */
export class OutputRoute {
  private missed: Delta[] = [];
  private missedBytes = 0;

  constructor(private target: Notify | null) {}

  send(n: Delta): void {
    if (this.target !== null) {
      this.target(n);
      return;
    }
    const bytes = Buffer.byteLength(n.params.deltaBase64, 'base64');
    this.missed.push(n);
    this.missedBytes += bytes;
    // The oldest chunks go first; the newest is kept whole (a chunk is at most what one read gave).
    while (this.missedBytes > KEPT_OUTPUT_BYTES && this.missed.length > 1) {
      const dropped = this.missed.shift();
      if (dropped !== undefined) this.missedBytes -= Buffer.byteLength(dropped.params.deltaBase64, 'base64');
    }
  }

  /** Nobody receives the output for now: it is kept. */
  detach(): void {
    this.target = null;
  }

  /** `target` receives what was kept, then the output as it comes. */
  attach(target: Notify): void {
    const missed = this.missed;
    this.missed = [];
    this.missedBytes = 0;
    for (const n of missed) target(n);
    this.target = target;
  }
}

/** A process kept for adoption: the handle to it, its output's route, and its end. */
export interface KeptProcess {
  running: Running;
  route: OutputRoute;
  result: Promise<CommandExecResult>;
  keepKey: string;
}

/** The kept processes of a server, by keep key and process id. */
export class KeptTerminals implements Disposable {
  private readonly kept = new Map<string, { process: KeptProcess; timer: NodeJS.Timeout }>();
  private disposed = false;

  constructor(
    private readonly graceMs: number,
    private readonly log: (line: string) => void,
  ) {}

  /** Keeps `process` for `graceMs`; ended then unless adopted. */
  keep(key: string, processId: string, process: Omit<KeptProcess, 'keepKey'>): void {
    const entry = { ...process, keepKey: key };
    if (this.disposed) {
      void process.running.terminate().catch(() => undefined);
      return;
    }
    const name = `${key} ${processId}`;
    const timer = setTimeout(() => {
      if (this.kept.get(name)?.process !== entry) return;
      this.kept.delete(name);
      this.log(
        `weft app-server: terminal process ${processId} was not taken over within ${this.graceMs} ms; ending it`,
      );
      void process.running.terminate().catch(() => undefined);
    }, this.graceMs);
    timer.unref();
    this.kept.set(name, { process: entry, timer });
  }

  /** Hands over the process kept under `key` and `processId`; null when none is (any more). */
  take(key: string, processId: string): KeptProcess | null {
    const name = `${key} ${processId}`;
    const found = this.kept.get(name);
    if (found === undefined) return null;
    this.kept.delete(name);
    clearTimeout(found.timer);
    return found.process;
  }

  /** How many processes wait to be adopted. */
  get size(): number {
    return this.kept.size;
  }

  /** The server closes: every kept process ends. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const all = [...this.kept.values()];
    this.kept.clear();
    await Promise.all(
      all.map(({ process, timer }) => {
        clearTimeout(timer);
        return process.running.terminate().catch(() => undefined);
      }),
    );
  }
}
