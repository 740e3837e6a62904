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
import { readdir, readFile } from 'node:fs/promises';
import { getPriority, setPriority } from 'node:os';

/**
 * How many nice steps the host's background threads run below its main thread: the pool here, the
 * start-up index check's worker (store/index-check-worker.ts).
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
