// `command/exec`: a process outside any thread, for the integrated terminal and for scripts. Each
// connection has its own processes, named by the ids it chose; closing the connection kills them all,
// except those a relay started with a keep key (`weftKeepKey`), which are handed to `KeptTerminals` for a
// new connection to adopt (a link that dropped). PTY mode uses node-pty (loaded on first use); otherwise
// stdout and stderr are pipes. Both start in the spawn host (util/spawn-host), so that starting one never
// forks the host.
import { isAbsolute, resolve } from 'node:path';
import type {
  CommandExecParams,
  CommandExecResult,
  CommandExecTerminalSize,
  SandboxPolicy,
  ServerNotification,
} from '../../src-preload/protocol';
import { commandEnv } from '../safety/command-env';
import { createSandboxLauncher } from '../safety/sandbox/launcher';
import { exitCodeFromSignal } from '../tools/exec/exec-process';
import { killProcessGroup, signalGroup, trackGroup } from '../tools/exec/process-group';
import type { Disposable } from '../util/disposable';
import { spawnHosted } from '../util/spawn-host/hosted-child';
import { PtyStartError, spawnHostedPty } from '../util/spawn-host/hosted-pty';
import type { HostedPty } from '../util/spawn-host/hosted-pty';
import { OutputRoute, type KeptProcess, type KeptTerminals, type Running } from './kept-terminals';

/** Buffered commands stop after this long unless told otherwise (Codex's default for shell calls). */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Buffered output kept per stream unless told otherwise. */
export const DEFAULT_OUTPUT_CAP = 1024 * 1024;
const DEFAULT_SIZE: CommandExecTerminalSize = { cols: 80, rows: 24 };

/** A request the caller made wrong: becomes an invalid-params error. */
export class CommandExecError extends Error {
  constructor(
    message: string,
    readonly kind: 'params' | 'request' = 'params',
  ) {
    super(message);
    this.name = 'CommandExecError';
  }
}

export interface CommandExecHost {
  /** The folder a command without `cwd` or `weftCwd` starts in. */
  defaultCwd: string;
  env: NodeJS.ProcessEnv;
  /** The sandbox of the user's config, for a command that names none. */
  defaultSandbox: (cwd: string) => Promise<SandboxPolicy>;
  /** Where processes with a keep key go when the connection closes without releasing it; none: they end. */
  kept?: KeptTerminals;
}

/** A process of the connection that has an id. */
interface Named {
  running: Promise<Running>;
  route: OutputRoute;
  result: Promise<CommandExecResult>;
  keepKey: string | null;
}

/** The processes of one connection. */
export class CommandExecSessions implements Disposable {
  private readonly running = new Map<string, Named>();
  /** Keep keys whose processes end with the connection after all (`weft/terminal/release`). */
  private readonly released = new Set<string>();
  private closed = false;

  constructor(
    private readonly host: CommandExecHost,
    private readonly notify: (n: ServerNotification) => void,
  ) {}

  async exec(params: CommandExecParams): Promise<CommandExecResult> {
    if (this.closed) throw new CommandExecError('the connection is closing', 'request');
    const [file] = params.command;
    if (file === undefined || file === '')
      throw new CommandExecError('command: give at least the program to run (an empty argv was sent)');
    const tty = params.tty === true;
    const streamOut = tty || params.streamStdoutStderr === true;
    const streamIn = tty || params.streamStdin === true;
    const processId = params.processId ?? null;
    if (processId === null && (tty || streamOut || streamIn))
      throw new CommandExecError('processId: required with tty, streamStdin or streamStdoutStderr');
    if (params.size && !tty) throw new CommandExecError('size: only valid with tty: true');
    if (params.disableTimeout && params.timeoutMs != null)
      throw new CommandExecError('timeoutMs: cannot be combined with disableTimeout');
    if (params.disableOutputCap && params.outputBytesCap != null)
      throw new CommandExecError('outputBytesCap: cannot be combined with disableOutputCap');
    if (processId !== null && this.running.has(processId))
      throw new CommandExecError(`processId: ${processId} is already running on this connection`, 'request');
    const route = new OutputRoute(this.notify);
    const launch = this.launch(params, { tty, streamOut, streamIn, processId }, route);
    if (processId === null) return (await launch).result;
    // Registered before anything is awaited, so a write sent right after the request finds it.
    const running = launch.then((l) => l.running);
    running.catch(() => undefined);
    const result = launch.then((l) => l.result);
    result.catch(() => undefined);
    const named: Named = { running, route, result, keepKey: params.weftKeepKey ?? null };
    this.running.set(processId, named);
    try {
      return await result;
    } finally {
      if (this.running.get(processId) === named) this.running.delete(processId);
    }
  }

  /** Takes over a process kept from a connection that dropped: it is this connection's from now on. */
  async adopt(processId: string, kept: KeptProcess): Promise<CommandExecResult> {
    if (this.closed) throw new CommandExecError('the connection is closing', 'request');
    if (this.running.has(processId))
      throw new CommandExecError(`processId: ${processId} is already running on this connection`, 'request');
    const named: Named = { ...kept, running: Promise.resolve(kept.running) };
    this.running.set(processId, named);
    kept.route.attach(this.notify);
    try {
      return await kept.result;
    } finally {
      if (this.running.get(processId) === named) this.running.delete(processId);
    }
  }

  /** The processes started with `key` end with the connection after all. */
  release(key: string): void {
    this.released.add(key);
  }

  private async launch(
    params: CommandExecParams,
    mode: { tty: boolean; streamOut: boolean; streamIn: boolean; processId: string | null },
    route: OutputRoute,
  ): Promise<{ running: Running; result: Promise<CommandExecResult> }> {
    const { tty, streamOut, streamIn, processId } = mode;
    const base = params.weftCwd ? resolve(this.host.defaultCwd, params.weftCwd) : this.host.defaultCwd;
    const cwd = params.cwd ? (isAbsolute(params.cwd) ? params.cwd : resolve(base, params.cwd)) : base;
    const policy = params.sandboxPolicy ?? (await this.host.defaultSandbox(cwd));
    const env = this.environment(params.env ?? {}, tty);
    const sandbox = await createSandboxLauncher(policy, cwd, env);
    if (!sandbox.available)
      throw new CommandExecError(`the sandbox cannot run here: ${sandbox.reason} ${sandbox.fix}`, 'request');
    const launched = await sandbox.launcher([...params.command], { cwd, env });
    const timeoutMs = params.disableTimeout ? null : (params.timeoutMs ?? (streamOut ? null : DEFAULT_TIMEOUT_MS));
    const cap = params.disableOutputCap ? null : (params.outputBytesCap ?? (streamOut ? null : DEFAULT_OUTPUT_CAP));
    const outputs = { stdout: new Output(cap), stderr: new Output(cap) };
    const onData = (stream: 'stdout' | 'stderr', chunk: Buffer): void => {
      const out = outputs[stream];
      const kept = out.take(chunk);
      if (!streamOut || processId === null) return;
      if (kept.length > 0 || out.justCut) {
        route.send({
          method: 'command/exec/outputDelta',
          params: { processId, stream, deltaBase64: kept.toString('base64'), capReached: out.justCut },
        });
        out.justCut = false;
      }
    };
    const release = launched.release ?? (() => Promise.resolve());
    let spawned: { running: Running; exited: Promise<number> };
    try {
      spawned = tty
        ? await startPty(launched.argv, cwd, launched.env ?? env, params.size ?? DEFAULT_SIZE, (c) =>
            onData('stdout', c),
          )
        : startPipes(launched.argv, cwd, launched.env ?? env, streamIn, onData);
    } catch (error) {
      void release();
      throw error;
    }
    // The exit (or a start that fails later: spawn's `error` rejects it) is reported once what the launch
    // held (sandbox placeholders) has been given up.
    const started = { running: spawned.running, exited: spawned.exited.finally(release) };
    const timer = timeoutMs === null ? null : setTimeout(() => void started.running.terminate(), timeoutMs);
    const result = started.exited
      .then((exitCode) => ({
        exitCode,
        stdout: streamOut ? '' : outputs.stdout.text(),
        stderr: streamOut ? '' : outputs.stderr.text(),
      }))
      .finally(() => {
        if (timer) clearTimeout(timer);
      });
    return { running: started.running, result };
  }

  async write(processId: string, data: Buffer | null, closeStdin: boolean): Promise<void> {
    const p = await this.find(processId);
    if (!p.stdinOpen)
      throw new CommandExecError(
        `processId: ${processId} has no open stdin (start it with streamStdin or tty)`,
        'request',
      );
    if (data && data.length > 0) p.write(data);
    if (closeStdin) p.closeStdin();
  }

  async resize(processId: string, size: CommandExecTerminalSize): Promise<void> {
    const p = await this.find(processId);
    if (!p.tty)
      throw new CommandExecError(`processId: ${processId} is not a terminal (start it with tty: true)`, 'request');
    p.resize(size);
  }

  async terminate(processId: string): Promise<void> {
    await (await this.find(processId)).terminate();
  }

  /** `dispose`. */
  closeAll(): Promise<void> {
    return this.dispose();
  }

  /**
   * The connection closed: every process of it is killed, but those started with a keep key it did not
   * release, which are kept for a new connection to adopt; new ones are refused.
   */
  async dispose(): Promise<void> {
    this.closed = true;
    const ending: Promise<void>[] = [];
    for (const [processId, named] of this.running) {
      const { keepKey, route, result } = named;
      if (keepKey !== null && !this.released.has(keepKey) && this.host.kept !== undefined) {
        route.detach();
        ending.push(
          named.running.then(
            (running) => this.host.kept?.keep(keepKey, processId, { running, route, result }),
            () => undefined,
          ),
        );
      } else ending.push(named.running.then((r) => r.terminate()).catch(() => undefined));
    }
    this.running.clear();
    await Promise.all(ending);
  }

  private async find(processId: string): Promise<Running> {
    const p = this.running.get(processId)?.running;
    const running = p ? await p.catch(() => null) : null;
    if (!running)
      throw new CommandExecError(`processId: no running process ${processId} on this connection`, 'request');
    return running;
  }

  private environment(overrides: Record<string, string | null>, tty: boolean): Record<string, string> {
    const env = new Map(Object.entries(commandEnv(this.host.env)));
    if (tty) {
      // A person reads this terminal: their pager, not the agent's `cat`.
      for (const name of ['PAGER', 'GIT_PAGER']) {
        const own = this.host.env[name];
        if (own === undefined) env.delete(name);
        else env.set(name, own);
      }
    }
    for (const [name, value] of Object.entries(overrides)) {
      if (value === null) env.delete(name);
      else env.set(name, value);
    }
    return Object.fromEntries(env);
  }
}

/** Captured bytes of one stream, up to a cap. */
class Output {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  cut = false;
  /** Set when the last `take` hit the cap (the streamed chunk then says so). */
  justCut = false;

  constructor(private readonly cap: number | null) {}

  take(chunk: Buffer): Buffer {
    if (this.cut) return Buffer.alloc(0);
    let kept = chunk;
    if (this.cap !== null && this.bytes + chunk.length > this.cap) {
      kept = chunk.subarray(0, Math.max(0, this.cap - this.bytes));
      this.cut = true;
      this.justCut = true;
    }
    this.bytes += kept.length;
    this.chunks.push(kept);
    return kept;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

function startPipes(
  argv: string[],
  cwd: string,
  env: Record<string, string>,
  stdin: boolean,
  onData: (stream: 'stdout' | 'stderr', chunk: Buffer) => void,
): { running: Running; exited: Promise<number> } {
  const [file, ...args] = argv;
  const child = spawnHosted(file ?? '', args, { cwd, env, detached: true, stdin: stdin ? 'pipe' : 'ignore' });
  let untrack = (): void => undefined;
  const started = new Promise<number | undefined>((resolveStart) => {
    child.once('spawn', () => {
      if (child.pid !== undefined) untrack = trackGroup(child.pid);
      resolveStart(child.pid);
    });
    child.once('error', () => resolveStart(undefined));
  });
  child.stdout.on('data', (c: Buffer) => onData('stdout', c));
  child.stderr.on('data', (c: Buffer) => onData('stderr', c));
  child.stdin?.on('error', () => undefined);
  let stdinOpen = stdin;
  const exited = new Promise<number>((resolveExit, reject) => {
    child.once('error', (err) =>
      reject(new CommandExecError(`could not start ${file ?? ''}: ${err.message}`, 'request')),
    );
    // `close`: the process exited and its output was read to the end.
    child.once('close', (code, signal) => {
      untrack();
      stdinOpen = false;
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGHUP');
      resolveExit(code ?? (signal === null ? -1 : exitCodeFromSignal(signal)));
    });
  });
  const running: Running = {
    tty: false,
    get stdinOpen() {
      return stdinOpen;
    },
    write: (data) => void child.stdin?.write(data),
    closeStdin: () => {
      stdinOpen = false;
      child.stdin?.end();
    },
    resize: () => undefined,
    terminate: async () => {
      const pid = await started;
      if (pid !== undefined) await killProcessGroup(pid, { leaderExited: exited.catch(() => -1) });
    },
  };
  return { running, exited };
}

async function startPty(
  argv: string[],
  cwd: string,
  env: Record<string, string>,
  size: CommandExecTerminalSize,
  onData: (chunk: Buffer) => void,
): Promise<{ running: Running; exited: Promise<number> }> {
  const [file, ...args] = argv;
  let term: HostedPty;
  try {
    term = await spawnHostedPty(file ?? '', args, {
      name: env.TERM ?? 'xterm-256color',
      cols: size.cols,
      rows: size.rows,
      cwd,
      env,
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new CommandExecError(
      err instanceof PtyStartError && err.code === 'NO_PTY'
        ? `tty: true needs the node-pty native addon, which failed to load (${message}); rebuild it with \`npm rebuild node-pty\``
        : `could not start ${file ?? ''} in a terminal: ${message}`,
      'request',
    );
  }
  const pid = term.pid;
  const untrack = trackGroup(pid);
  let open = true;
  term.onData(onData);
  const exited = term.exited.then(({ exitCode, signal }) => {
    open = false;
    signalGroup(pid, 'SIGHUP');
    untrack();
    return signal !== null ? exitCodeFromSignal(signal) : exitCode;
  });
  const running: Running = {
    tty: true,
    get stdinOpen() {
      return open;
    },
    write: (bytes) => {
      if (open) term.write(bytes);
    },
    closeStdin: () => {
      if (open) term.write('\x04');
    },
    resize: (s) => {
      if (open) term.resize(s.cols, s.rows);
    },
    terminate: () => killProcessGroup(pid, { leaderExited: exited }),
  };
  return { running, exited };
}
