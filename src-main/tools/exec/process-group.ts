// Signalling and reaping whole process groups. Every command runs as the leader of its own process group
// (pipes: `detached`; PTY: a new session), so its pid is also its process-group id, and killing the group
// reaches everything it started that did not deliberately leave (setsid).
import { readdir, readFile, readlink } from 'node:fs/promises';
import { KILL_GRACE_MS } from './constants';

/** How often a kill checks whether the group is gone. */
const GROUP_POLL_MS = 10;
/** /proc entries read at once. */
const PROC_BATCH = 64;
/** After SIGKILL, how long to wait for the group to disappear before giving up. */
const AFTER_KILL_WAIT_MS = 2_000;

/** Sends `signal` to every process in the group; false if the group no longer exists. */
/** `signal` 0 only checks that the group exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if (isErrnoException(err) && err.code === 'ESRCH') return false;
    throw err;
  }
}

export interface ProcStat {
  pid: number;
  /** One-letter state from /proc/<pid>/stat: R, S, D, T, Z, … */
  state: string;
  ppid: number;
  pgrp: number;
  /** When it started (clock ticks after boot): with the pid, names one process even if the pid is reused. */
  start: string;
}

/** The kernel's view of one process (Linux), or null if it does not exist. */
export async function readProcStat(pid: number): Promise<ProcStat | null> {
  let raw: string;
  try {
    raw = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) state ppid pgrp …" — comm may itself contain spaces and parentheses.
  const close = raw.lastIndexOf(')');
  const fields = raw.slice(close + 2).split(' ');
  const [state, ppid, pgrp] = fields;
  const start = fields[19];
  if (state === undefined || ppid === undefined || pgrp === undefined || start === undefined) return null;
  return { pid, state, ppid: Number(ppid), pgrp: Number(pgrp), start };
}

/** Every process of the machine (zombies too), read a batch of /proc entries at a time; null without /proc. */
async function allProcesses(): Promise<ProcStat[] | null> {
  let entries: string[];
  try {
    entries = (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry));
  } catch {
    return null;
  }
  const all: ProcStat[] = [];
  for (let at = 0; at < entries.length; at += PROC_BATCH) {
    const stats = await Promise.all(entries.slice(at, at + PROC_BATCH).map((entry) => readProcStat(Number(entry))));
    for (const stat of stats) if (stat !== null) all.push(stat);
  }
  return all;
}

/** The processes below `pid` (its children, theirs, …), as they are now; [] without /proc. */
async function descendantsOf(pid: number): Promise<ProcStat[]> {
  const all = (await allProcesses()) ?? [];
  const children = new Map<number, ProcStat[]>();
  for (const stat of all) {
    const siblings = children.get(stat.ppid);
    if (siblings === undefined) children.set(stat.ppid, [stat]);
    else siblings.push(stat);
  }
  const found: ProcStat[] = [];
  for (let queue = [pid], next = queue.shift(); next !== undefined; next = queue.shift())
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  return found;
}

/** Whether `stat`'s process still runs (the same process: its pid not reused since). */
async function stillRunning(stat: ProcStat): Promise<boolean> {
  const now = await readProcStat(stat.pid);
  return now !== null && now.start === stat.start && now.state !== 'Z' && now.state !== 'X';
}

/** Whether `pid` is in another PID namespace than this process (inside a sandbox it started); false when unknown. */
async function inOtherPidNamespace(pid: number): Promise<boolean> {
  try {
    return (await readlink(`/proc/${pid}/ns/pid`)) !== (await readlink('/proc/self/ns/pid'));
  } catch {
    return false;
  }
}

/**
 * Processes in group `pgid` that have not exited (zombies left). Linux only: null elsewhere. The process
 * table is read asynchronously, a batch of /proc entries at a time (a busy machine has thousands).
 */
export async function groupMembers(pgid: number): Promise<number[] | null> {
  const all = await allProcesses();
  if (all === null) return null;
  return all.filter((stat) => stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X').map((stat) => stat.pid);
}

/**
 * Whether any process of the group is still running. Zombies do not count (an orphan whose reaper is
 * slow, e.g. a container init, is already dead), except where /proc is missing and only kill(0) can tell.
 */
export async function isGroupAlive(pgid: number): Promise<boolean> {
  const members = await groupMembers(pgid);
  if (members !== null) return members.length > 0;
  return signalGroup(pgid, 0);
}

export interface KillGroupOptions {
  /** SIGTERM first, then SIGKILL after this long if anything survives. */
  graceMs?: number;
  /** Resolves when the leader has been reaped; the kill waits for it as well (bounded). */
  leaderExited?: Promise<unknown>;
}

/**
 * Terminates the whole group: SIGTERM (and SIGCONT, so stopped members see it), SIGKILL after the grace
 * period, then waits until no member is left running. Never throws for a group that is already gone.
 * A sandboxed command's processes are in a session of their own, in the sandbox's PID namespace: they end
 * when the sandbox does, a moment after the group (on a busy machine, long enough for a process to act
 * after the command was said to be stopped). Those found below the leader when the kill starts are killed
 * and waited for too. A process below it that left the group in this namespace (setsid: a daemon it
 * started on purpose) is left alone.
 */
export async function killProcessGroup(pgid: number, opts: KillGroupOptions = {}): Promise<void> {
  const graceMs = opts.graceMs ?? KILL_GRACE_MS;
  const leaderExited = opts.leaderExited ?? Promise.resolve();
  const below = await descendantsOf(pgid);
  if (signalGroup(pgid, 'SIGTERM')) signalGroup(pgid, 'SIGCONT');
  const gone = async (): Promise<boolean> => !(await isGroupAlive(pgid));
  const goneInGrace = await waitUntil(gone, Promise.resolve(), graceMs);
  if (!goneInGrace) signalGroup(pgid, 'SIGKILL');
  await waitUntil(gone, leaderExited, goneInGrace ? graceMs : AFTER_KILL_WAIT_MS);
  const sandboxed: ProcStat[] = [];
  for (const stat of below)
    if (stat.pgrp !== pgid && (await stillRunning(stat)) && (await inOtherPidNamespace(stat.pid))) sandboxed.push(stat);
  if (sandboxed.length === 0) return;
  for (const stat of sandboxed) {
    try {
      process.kill(stat.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  const allGone = async (): Promise<boolean> => !(await Promise.all(sandboxed.map(stillRunning))).some(Boolean);
  await waitUntil(allGone, Promise.resolve(), AFTER_KILL_WAIT_MS);
}

/** Resolves true once `done()` holds and `also` has settled, false if `timeoutMs` passes first. */
function waitUntil(done: () => Promise<boolean>, also: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let alsoSettled = false;
    let finished = false;
    let checking = false;
    const finish = (ok: boolean): void => {
      if (finished) return;
      finished = true;
      clearInterval(poll);
      clearTimeout(timer);
      resolve(ok);
    };
    // One look at a time: a look at a big process table can take longer than the poll interval.
    const check = (): void => {
      if (!alsoSettled || checking || finished) return;
      checking = true;
      done().then(
        (ok) => {
          checking = false;
          if (ok) finish(true);
        },
        () => {
          checking = false;
        },
      );
    };
    const poll = setInterval(check, GROUP_POLL_MS);
    const timer = setTimeout(() => finish(false), timeoutMs);
    void also.then(
      () => {
        alsoSettled = true;
        check();
      },
      () => {
        alsoSettled = true;
        check();
      },
    );
  });
}

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Remembers a live group so that it is SIGKILLed if this Node process exits while it still runs (an
 * orphaned pipe-mode command would otherwise outlive the app). Returns the function that forgets it.
 */
export function trackGroup(pgid: number): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const group of liveGroups) {
        try {
          process.kill(-group, 'SIGKILL');
        } catch {
          // Already gone (or not ours to kill); nothing more can be done while exiting.
        }
      }
    });
  }
  liveGroups.add(pgid);
  return () => {
    liveGroups.delete(pgid);
  };
}

function isErrnoException(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && 'code' in err;
}
