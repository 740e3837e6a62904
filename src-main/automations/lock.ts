// One run of an automation at a time, across processes: the app's scheduler and `weft automations due`
// started by a timer may both look at the same automation. The lock is a file made with O_EXCL holding
// its owner's pid and boot; a lock whose process is gone (killed, or the machine restarted) is stale and
// taken over. The same kind of lock makes one host of a WEFT_HOME the one whose scheduler runs.
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { uptime } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { automationsDir } from './store';

const LockOwner = z.object({ pid: z.number().int(), boot: z.string(), token: z.string() });
type LockOwner = z.infer<typeof LockOwner>;

let bootCache: Promise<string> | null = null;

/** This boot of the machine: Linux's boot id, else the boot time to the minute. */
export function currentBoot(): Promise<string> {
  bootCache ??= readFile('/proc/sys/kernel/random/boot_id', 'utf8').then(
    (id) => id.trim(),
    () => `up-${Math.round((Date.now() / 1000 - uptime()) / 60)}`,
  );
  return bootCache;
}

export function lockFile(weftHome: string, id: string): string {
  return join(automationsDir(weftHome), `${id}.lock`);
}

export interface RunLock {
  release(): Promise<void>;
}

/** Takes the automation's lock; null when a live process holds it. */
export function acquireRunLock(weftHome: string, id: string): Promise<RunLock | null> {
  return acquireLockFile(lockFile(weftHome, id));
}

/**
 * Takes the scheduler's lock of the WEFT_HOME (`automations/.scheduler.lock`, a name no automation can
 * have): the host holding it runs the schedule and the triggers; null when another live process does, or
 * while there is no automations folder (nothing to schedule; it is not made for this).
 */
export async function acquireSchedulerLock(weftHome: string): Promise<RunLock | null> {
  try {
    return await acquireLockFile(join(automationsDir(weftHome), '.scheduler.lock'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

async function acquireLockFile(file: string): Promise<RunLock | null> {
  const owner: LockOwner = { pid: process.pid, boot: await currentBoot(), token: randomBytes(8).toString('hex') };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, JSON.stringify(owner), { flag: 'wx' });
      return { release: () => releaseIfOurs(file, owner.token) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (!(await isStale(file))) return null;
    // Moved aside first, so of two processes finding it stale only one removes it.
    const aside = `${file}.stale-${owner.token}`;
    await rename(file, aside).then(
      () => rm(aside, { force: true }),
      () => undefined,
    );
  }
  return null;
}

async function isStale(file: string): Promise<boolean> {
  let holder: LockOwner;
  try {
    const parsed = LockOwner.safeParse(JSON.parse(await readFile(file, 'utf8')));
    // A lock file being written right now reads as empty: it is not stale.
    if (!parsed.success) return false;
    holder = parsed.data;
  } catch {
    return false;
  }
  if (holder.boot !== (await currentBoot())) return true;
  return !processAlive(holder.pid);
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function releaseIfOurs(file: string, token: string): Promise<void> {
  const text = await readFile(file, 'utf8').catch(() => '');
  if (text.includes(token)) await rm(file, { force: true });
}

/** Whether this process is the WEFT_HOME's scheduling host: asks for the scheduler's lock until it has it. */
export interface SchedulerOwnership {
  /** True once this process holds the lock (kept until `release`); false while another live process does. */
  owns(): Promise<boolean>;
  release(): Promise<void>;
}

export function schedulerOwnership(weftHome: string): SchedulerOwnership {
  let lock: RunLock | null = null;
  let released = false;
  return {
    owns: async () => {
      if (released) return false;
      lock ??= await acquireSchedulerLock(weftHome);
      return lock !== null;
    },
    release: async () => {
      released = true;
      await lock?.release();
      lock = null;
    },
  };
}
