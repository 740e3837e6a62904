// How the host reaches its spawn host: a Node fork with an IPC channel (the CLI's faces), or whatever the
// desktop app provides (an Electron utility process: the packaged app cannot fork itself as Node, its
// RunAsNode fuse is off). Both carry the same messages, structured-cloned (output travels as bytes).
import { fork } from 'node:child_process';
import type { ToSpawnHost } from './messages';

export interface SpawnHostChannel {
  readonly pid: number | undefined;
  /** False once the spawn host has gone or was told to go. */
  readonly usable: boolean;
  send(message: ToSpawnHost): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Called once, when the spawn host has gone (exited, crashed, or could not be reached any more). */
  onGone(listener: () => void): void;
  /** Whether a live command should keep the program running (a CLI face exits when nothing is left). */
  keepAlive(alive: boolean): void;
  /** Asks the spawn host to go, and resolves once it has. */
  close(): Promise<void>;
}

/** Starts the spawn host program `script`; null when it cannot be started here. */
export type SpawnHostLauncher = (script: string) => Promise<SpawnHostChannel | null>;

/** The spawn host as a Node fork with an IPC channel (Node's "advanced" serialization). */
export const forkSpawnHost: SpawnHostLauncher = async (script) => {
  const child = fork(script, [], {
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: [],
  });
  const started = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('error', () => resolve(false));
  });
  if (!started) return null;
  let gone = false;
  const goneListeners: (() => void)[] = [];
  const markGone = (): void => {
    if (gone) return;
    gone = true;
    for (const listener of goneListeners) listener();
  };
  child.once('exit', markGone);
  child.once('error', markGone);
  child.once('disconnect', markGone);
  return {
    get pid() {
      return child.pid;
    },
    get usable() {
      return !gone && child.connected;
    },
    send: (message) => {
      if (!gone && child.connected) child.send(message);
    },
    onMessage: (listener) => child.on('message', listener),
    onGone: (listener) => {
      if (gone) listener();
      else goneListeners.push(listener);
    },
    keepAlive: (alive) => {
      if (alive) {
        child.ref();
        child.channel?.ref();
      } else {
        child.unref();
        child.channel?.unref();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        // Waited for: an idle spawn host is unreferenced, and the process would end before hearing it exit.
        child.ref();
        if (child.connected) child.disconnect();
        else child.kill('SIGTERM');
      }),
  };
};
