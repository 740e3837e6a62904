// The desktop app's spawn host (src-main/util/spawn-host): an Electron utility process. The packaged app
// cannot fork its own binary as Node (its RunAsNode fuse is off), and Electron's utility processes are the
// way it offers to run Node code in a process of its own; messages are structured-cloned both ways.
import { utilityProcess } from 'electron';
import type { SpawnHostChannel, SpawnHostLauncher } from '../util/spawn-host/channel';

/** Starts the spawn host with `utilityProcess.fork` (only after the app's `ready`). */
export const utilitySpawnHost: SpawnHostLauncher = async (script) => {
  const child = utilityProcess.fork(script, [], { serviceName: 'Weft command starter', stdio: 'ignore' });
  const started = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('exit', () => resolve(false));
  });
  if (!started) return null;
  let gone = false;
  const goneListeners: (() => void)[] = [];
  child.once('exit', () => {
    gone = true;
    for (const listener of goneListeners) listener();
  });
  const channel: SpawnHostChannel = {
    get pid() {
      return child.pid;
    },
    get usable() {
      return !gone;
    },
    send: (message) => {
      if (!gone) child.postMessage(message);
    },
    onMessage: (listener) => child.on('message', (message: unknown) => listener(message)),
    onGone: (listener) => {
      if (gone) listener();
      else goneListeners.push(listener);
    },
    // The app runs until it quits; a utility process never holds it open.
    keepAlive: () => undefined,
    close: () =>
      new Promise<void>((resolve) => {
        if (gone) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
  return channel;
};
