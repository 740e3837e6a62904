// The host's end of the spawn host: starts it on first use, routes its reports to the children they name,
// and tells every live child when the spawn host is gone (each is reported as ended; its process group is
// the host's to signal, by id, as before).
import { access } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { forkSpawnHost } from './channel';
import type { SpawnHostChannel, SpawnHostLauncher } from './channel';
import { fromSpawnHost } from './messages';
import type { FromSpawnHost, ToSpawnHost } from './messages';

/** What a child listens for from the spawn host. */
export interface HostedListener {
  report(message: FromSpawnHost): void;
  /** The spawn host went away before the child's close. */
  lost(): void;
}

export class SpawnHostConnection {
  private readonly listeners = new Map<number, HostedListener>();
  private nextId = 0;
  private closed = false;

  constructor(private readonly channel: SpawnHostChannel) {
    channel.onMessage((raw) => {
      const parsed = fromSpawnHost.safeParse(raw);
      if (!parsed.success) return;
      const message = parsed.data;
      const listener = this.listeners.get(message.id);
      if (listener === undefined) return;
      if (message.kind === 'close' || message.kind === 'failed' || message.kind === 'ptyExit') this.forget(message.id);
      listener.report(message);
    });
    channel.onGone(() => this.lose());
    this.updateRef();
  }

  /** The spawn host's process id. */
  get pid(): number | undefined {
    return this.channel.pid;
  }

  get usable(): boolean {
    return !this.closed && this.channel.usable;
  }

  /** Registers a child and returns its id; its start message is the caller's to send. */
  register(listener: HostedListener): number {
    const id = this.nextId++;
    this.listeners.set(id, listener);
    this.updateRef();
    return id;
  }

  send(message: ToSpawnHost): void {
    if (this.usable) this.channel.send(message);
  }

  forget(id: number): void {
    this.listeners.delete(id);
    this.updateRef();
  }

  /** Asks the spawn host to go; it exits when its channel closes. */
  close(): Promise<void> {
    return this.channel.close();
  }

  private lose(): void {
    if (this.closed) return;
    this.closed = true;
    const listeners = [...this.listeners.values()];
    this.listeners.clear();
    for (const listener of listeners) listener.lost();
    if (current === this) {
      current = null;
      connection = undefined;
    }
  }

  /** The spawn host keeps the program alive only while a child it started is live, as a direct pipe would. */
  private updateRef(): void {
    this.channel.keepAlive(this.listeners.size > 0);
  }
}

let connection: Promise<SpawnHostConnection | null> | undefined;
let current: SpawnHostConnection | null = null;
/** Whether this process serves threads for long (see `preferSpawnHost`). */
let longLived = false;

/**
 * Marks this process as a host that serves threads for long (the app server, `weft serve`, the desktop
 * app): its commands start through the spawn host. A one-shot command (`weft exec`, `weft apply-patch`)
 * starts them directly: there the spawn host's own start (a Node process) costs more than the forks it
 * saves (`weft exec` with one model answer: 289 → 315 ms with it, medians of 6 alternating runs at load 2).
 */
export function preferSpawnHost(): void {
  longLived = true;
}

/**
 * Where the spawn host's program is: built next to the bundle that runs this code (dist/cli, dist/electron);
 * `WEFT_SPAWN_HOST=PATH` names another, `WEFT_SPAWN_HOST=0` turns it off (commands then start directly, as
 * they do run from source), `WEFT_SPAWN_HOST=1` uses it in every process. By default a long-lived host uses
 * it (`preferSpawnHost`): Node's spawn forks the calling process and waits, synchronously,
 * until the child has exec'd; on a busy machine that wait is for the child to be scheduled. On the
 * many-agents bench (8 worktree threads, load 12-20 on 2 cores) the host's main thread spent about 2 s of
 * a 25 s run inside 184 spawns (up to 200 ms each) without it, and the slowest list answer was lower with it
 * in 3 of 3 alternating runs.
 */
function hostScript(): string | null {
  const named = process.env.WEFT_SPAWN_HOST;
  if (named === '0') return null;
  if (named !== undefined && named !== '' && named !== '1') return named;
  if (named !== '1' && !longLived) return null;
  if (!import.meta.url.startsWith('file:')) return null;
  return fileURLToPath(new URL('./spawn-host.js', import.meta.url));
}

let launcher: SpawnHostLauncher = forkSpawnHost;

/** How the spawn host is started here (the desktop app starts it as an Electron utility process). */
export function setSpawnHostLauncher(next: SpawnHostLauncher): void {
  launcher = next;
}

async function connect(): Promise<SpawnHostConnection | null> {
  const script = hostScript();
  if (script === null) return null;
  try {
    await access(script);
  } catch {
    return null;
  }
  // Electron's own binary cannot run the script as Node in the packaged app (its RunAsNode fuse is off):
  // there the desktop app names its own launcher, and without one commands start directly.
  if (process.versions.electron !== undefined && launcher === forkSpawnHost) return null;
  const channel = await launcher(script).catch(() => null);
  if (channel === null) return null;
  current = new SpawnHostConnection(channel);
  return current;
}

/** The spawn host, started on first use; null where there is none (then commands start directly). */
export function spawnHostConnection(): Promise<SpawnHostConnection | null> {
  if (current !== null && !current.usable) {
    current = null;
    connection = undefined;
  }
  connection ??= connect();
  return connection;
}

/**
 * Stops the spawn host (it would also stop by itself when this process exits). Commands it started keep
 * running: stopping them is their owners' job, by process group.
 */
export async function stopSpawnHost(): Promise<void> {
  const running = await (connection ?? Promise.resolve(null));
  connection = undefined;
  current = null;
  if (running === null) return;
  await running.close();
}
