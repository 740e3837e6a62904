// The Chromium processes of one profile, found in /proc (Linux): what closing the browser must leave none of.
import { readdir, readFile } from 'node:fs/promises';

/** Ids of the live processes started with `--user-data-dir=<profile>`; empty where /proc does not exist. */
export async function profileProcesses(profile: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return [];
  }
  const flag = `--user-data-dir=${profile}`;
  const found: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Chromium's child processes rewrite their command line as one space-separated string.
      const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8');
      if (cmdline.split(/[\0 ]/).includes(flag)) found.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Kills what is left of a browser whose profile was `profile` (a browser that did not end when closed). */
export async function killProfileProcesses(profile: string): Promise<void> {
  for (const pid of await profileProcesses(profile)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
