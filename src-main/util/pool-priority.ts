// The host's main thread answers every client; the thread pool (libuv's workers) does its background
// work: compressing checkpoint blobs, reading the files a turn changed. With busy agents on a machine of
// few cores, that work took a core from the main thread about as often as the agents' commands did (the
// many-agents bench: the main thread runnable but waiting for 1.1–1.5 s of a 4.5 s run, the pool's threads
// 0.7 s of CPU), and requests waited behind it. The pool now runs BACKGROUND_NICE steps below the main thread,
// so the scheduler gives a contended core to the main thread first; on an idle core the pool runs at full
// speed. A pool thread that reads a file for a request is as quick as before unless the cores are busy,
// and its reads are short.
//
// Linux only: it names its threads (`libuv-worker`) and lets a process lower one thread's priority by
// its id. Elsewhere nothing is done (macOS sets no priority by thread id).
import { readdirSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { getPriority, setPriority } from 'node:os';

/**
 * How many nice steps the host's background threads run below its main thread: the pool here, Weft's
 * worker threads (`startInBackground`, through util/worker-thread.ts).
 */
export const BACKGROUND_NICE = 10;

const POOL_THREAD = 'libuv-worker';
const TASKS = '/proc/self/task';

/**
 * Lowers each of the thread pool's threads to BACKGROUND_NICE below the main thread (never raises one).
 * Resolves with how many pool threads are at that level; 0 where threads cannot be told apart. Never
 * throws: a thread that went meanwhile, or a system that refuses, leaves things as they were.
 */
export async function lowerPoolPriority(): Promise<number> {
  if (process.platform !== 'linux') return 0;
  try {
    // Reading the folder puts work on the pool, so its threads are there by the time it answers.
    const ids = await readdir(TASKS);
    const target = Math.min(19, getPriority(process.pid) + BACKGROUND_NICE);
    let lowered = 0;
    for (const id of ids) {
      const tid = Number(id);
      if (tid === process.pid || !Number.isInteger(tid)) continue;
      const name = await readFile(`${TASKS}/${id}/comm`, 'utf8').catch(() => '');
      if (name.trim() !== POOL_THREAD) continue;
      try {
        if (getPriority(tid) < target) setPriority(tid, target);
        lowered += 1;
      } catch {
        // Gone since the folder was read, or not ours to change.
      }
    }
    return lowered;
  } catch {
    return 0;
  }
}

/** This process's thread ids, listed at once: a procfs folder of a few dozen entries. */
function threadIdsNow(): Set<number> {
  // eslint-disable-next-line weft/no-sync-fs -- procfs: this process's few dozen threads, listed on both sides of a thread's start so that nothing else runs between its start and its lowering
  return new Set(readdirSync(TASKS).map(Number));
}

/**
 * Runs `start`, which starts a thread (a worker), and lowers each thread it started BACKGROUND_NICE steps
 * below the main thread before returning, so that the thread's whole life runs below: a worker spends its
 * first tens of milliseconds of CPU making its Node environment and loading its program (80-250 ms for the
 * start-up index check's on a slow machine of two cores), while the host answers its first requests. The
 * threads are told apart by their ids before and after: nothing else of this process starts a thread
 * while `start` runs on the main thread. Linux only, as `lowerPoolPriority`; never throws for the lowering.
 */
export function startInBackground<T>(start: () => T): T {
  if (process.platform !== 'linux') return start();
  let before: Set<number>;
  try {
    before = threadIdsNow();
  } catch {
    return start();
  }
  const started = start();
  try {
    const target = Math.min(19, getPriority(process.pid) + BACKGROUND_NICE);
    for (const tid of threadIdsNow()) {
      if (before.has(tid) || tid === process.pid) continue;
      try {
        if (getPriority(tid) < target) setPriority(tid, target);
      } catch {
        // Gone already, or not ours to change.
      }
    }
  } catch {
    // No procfs to list: the thread runs at the process's priority.
  }
  return started;
}
