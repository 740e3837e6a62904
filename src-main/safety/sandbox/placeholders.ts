// The folders the Linux sandbox mounts its empty read-only placeholders on (linux-bwrap.ts). A missing
// `.git`, `.agents` or `.weft` in a project root is protected by mounting an empty read-only tmpfs
// there, and a mount needs a folder on disk: in the user's project. Weft makes that folder itself just
// before the launch and removes it when the last command using it has ended, so nothing is left behind.
//
// Several commands may use one placeholder at once, from this process and from other Weft processes.
// Removing the folder under a running sandbox would detach its mount there (Linux lazily unmounts a
// mount point removed from another namespace) and let that command create the real `.git`. So every
// process using a placeholder keeps a lease file in it, hidden from the sandboxes by the tmpfs: `rmdir`
// fails while any lease (or anything else) is inside, so the kernel settles every race between
// processes, not Weft. Within a process, commands share one lease per folder (counted), and claims and
// releases of one folder run one after the other.
//
// Lease names: `.weft-sandbox-placeholder.<pid>.<n>` — Weft made the folder, the last holder removes
// it — and `.weft-sandbox-in-use.<pid>.<n>` — the folder was there, empty, before, and stays. A lease
// whose process is gone (killed mid-command) is removed by the next claim, which takes over its role.
// A folder with anything else in it is never claimed, and nothing but Weft's own leases is ever
// removed from one. Everything is asynchronous: `mkdir` and `rmdir` can take milliseconds on a
// journaled disk, and the main process serves every thread meanwhile.
import { lstat, mkdir, open, readdir, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** What a protected path gets: a placeholder claimed here, or (`existing`) a read-only bind of itself. */
export type PlaceholderClaim = 'claimed' | 'existing' | 'unclaimable';

const LEASE = /^\.weft-sandbox-(placeholder|in-use)\.(\d+)\.(\d+)$/;
const LEASE_PREFIX = '.weft-sandbox-';

interface Held {
  /** Commands of this process using the placeholder. */
  count: number;
  lease: string;
  /** Weft made the folder: the last holder removes it. */
  made: boolean;
}

const held = new Map<string, Held>();
/** The claim or release of each folder in progress; the next one waits for it. */
const queues = new Map<string, Promise<unknown>>();
let serial = 0;

/** Whether `name` is one of these lease files (checkpoints ignore them). */
export function isPlaceholderLease(name: string): boolean {
  return name.startsWith(LEASE_PREFIX) && LEASE.test(name);
}

/** The folder names the sandbox may hold a placeholder at (see writable-roots.ts). */
const PLACEHOLDER_NAMES = new Set(['.git', '.agents', '.weft']);

/**
 * Whether the folder `name` is a sandbox mount point that exists only while commands run (nothing but
 * leases in it): not the user's or the model's work, so checkpoints leave it out. `list` reads the
 * folder's entries; it is called only for the names a placeholder can have.
 */
export function isPlaceholderFolder(name: string, list: () => readonly string[]): boolean {
  if (!PLACEHOLDER_NAMES.has(name)) return false;
  const entries = list();
  return entries.length > 0 && entries.every(isPlaceholderLease);
}

/**
 * Claims `path` (absolute, symlink-free parent) as a placeholder for one command: made here when
 * missing, or taken over when it is a folder holding nothing or only leases. `existing`: it has content
 * (or is not a folder) and must be bound as it is. `unclaimable`: it could not be made (permissions);
 * bwrap makes the mount point itself then, and it stays. Each `claimed` needs one {@link releasePlaceholder}.
 */
export function claimPlaceholder(path: string): Promise<PlaceholderClaim> {
  return inTurn(path, () => claim(path));
}

/**
 * One command that claimed `path` has ended; the last one of this process drops the lease, then removes
 * the folder if Weft made it and nothing else is in it. Never rejects.
 */
export function releasePlaceholder(path: string): Promise<void> {
  return inTurn(path, () => release(path));
}

function inTurn<T>(path: string, step: () => Promise<T>): Promise<T> {
  const run = (queues.get(path) ?? Promise.resolve()).then(step, step);
  const settled = run.catch(() => undefined);
  queues.set(path, settled);
  void settled.then(() => {
    if (queues.get(path) === settled) queues.delete(path);
  });
  return run;
}

async function claim(path: string): Promise<PlaceholderClaim> {
  const mine = held.get(path);
  if (mine !== undefined && (await exists(mine.lease))) {
    mine.count++;
    return 'claimed';
  }
  // A few rounds: another process may remove the folder between our looking and our lease.
  for (let round = 0; round < 3; round++) {
    let made: boolean;
    try {
      await mkdir(path);
      made = true;
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') return 'unclaimable';
      const found = await inspect(path);
      if (found === 'gone') continue;
      if (found === 'content') return 'existing';
      made = found.made;
    }
    const lease = join(path, `${LEASE_PREFIX}${made ? 'placeholder' : 'in-use'}.${process.pid}.${++serial}`);
    try {
      await (await open(lease, 'wx', 0o600)).close();
    } catch (error) {
      if (codeOf(error) === 'ENOENT') continue;
      if (made) await removeIfEmpty(path);
      return 'unclaimable';
    }
    // The lease of an earlier claim of this process (its folder was removed meanwhile) is gone anyway.
    held.set(path, { count: (mine?.count ?? 0) + 1, lease, made: made || mine?.made === true });
    return 'claimed';
  }
  return 'unclaimable';
}

async function release(path: string): Promise<void> {
  const mine = held.get(path);
  if (mine === undefined) return;
  if (--mine.count > 0) return;
  held.delete(path);
  try {
    await unlink(mine.lease);
  } catch {
    // Already gone (someone removed the folder): nothing of ours is left in it.
  }
  if (mine.made) await removeIfEmpty(path);
}

/**
 * An existing folder: `content` when it holds anything but leases (or is no folder), else whether Weft
 * made it. Leases of processes that are gone are removed on the way.
 */
async function inspect(path: string): Promise<'gone' | 'content' | { made: boolean }> {
  let names: string[];
  try {
    if (!(await lstat(path)).isDirectory()) return 'content';
    names = await readdir(path);
  } catch (error) {
    return codeOf(error) === 'ENOENT' ? 'gone' : 'content';
  }
  let made = false;
  for (const name of names) {
    const lease = LEASE.exec(name);
    if (lease === null) return 'content';
    made ||= lease[1] === 'placeholder';
  }
  for (const name of names) {
    if (!isGone(Number(LEASE.exec(name)?.[2]), join(path, name))) continue;
    try {
      await unlink(join(path, name));
    } catch {
      // Another claim removed it first.
    }
  }
  return { made };
}

/** A lease's process has ended (this process's own leases are known; any other is asked by signal 0). */
function isGone(pid: number, lease: string): boolean {
  if (pid === process.pid) return ![...held.values()].some((h) => h.lease === lease);
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return codeOf(error) === 'ESRCH';
  }
}

async function removeIfEmpty(path: string): Promise<void> {
  try {
    await rmdir(path);
  } catch {
    // Not empty (another process's lease, or something the user put there), or already gone: it stays.
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

function codeOf(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}
