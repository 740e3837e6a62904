// The host's thread pool (libuv's workers: compression, file reads) runs below the main thread, so that
// requests are answered before background work when the cores are short. Linux names its threads and
// lets a process lower one thread's priority; elsewhere nothing is done and nothing is claimed.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { BACKGROUND_NICE, lowerPoolPriority, startInBackground } from '../../../src-main/util/pool-priority';
import { openIndex } from '../../../src-main/store/index-db';
import { uuidv7 } from '../../../src-main/util/ids';
import { startWorker } from '../../../src-main/util/worker-thread';

interface TaskInfo {
  tid: number;
  comm: string;
  nice: number;
}

/** Each thread of this process: its id, name and nice value (field 19 of its stat line). */
async function tasks(): Promise<TaskInfo[]> {
  const out: TaskInfo[] = [];
  for (const tid of await readdir('/proc/self/task')) {
    const comm = (await readFile(`/proc/self/task/${tid}/comm`, 'utf8')).trim();
    const stat = await readFile(`/proc/self/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.push({ tid: Number(tid), comm, nice: Number(fields[16]) });
  }
  return out;
}

/** libuv names its pool's threads from 1.50 on; before, they cannot be told from others and are left alone. */
const [uvMajor = 0, uvMinor = 0] = process.versions.uv.split('.').map(Number);
const named = uvMajor > 1 || (uvMajor === 1 && uvMinor >= 50);

describe.runIf(process.platform === 'linux' && named)('lowerPoolPriority', () => {
  it('lowers every libuv worker BACKGROUND_NICE steps below the main thread and leaves the main thread as it was', async () => {
    await stat('.'); // the pool exists once it has had work
    const before = await tasks();
    const main = before.find((t) => t.tid === process.pid);
    expect(main).toBeDefined();
    expect(before.filter((t) => t.comm === 'libuv-worker').length).toBeGreaterThan(0);

    const lowered = await lowerPoolPriority();

    const after = await tasks();
    const workers = after.filter((t) => t.comm === 'libuv-worker');
    expect(lowered).toBe(workers.length);
    for (const worker of workers) expect(worker.nice).toBe(Math.min(19, (main?.nice ?? 0) + BACKGROUND_NICE));
    expect(after.find((t) => t.tid === process.pid)?.nice).toBe(main?.nice);
    for (const other of after.filter((t) => t.comm !== 'libuv-worker'))
      expect(other.nice, other.comm).toBe(before.find((t) => t.tid === other.tid)?.nice ?? other.nice);
  });

  it('is idempotent, and the pool still serves work', async () => {
    await lowerPoolPriority();
    const again = await lowerPoolPriority();
    expect(again).toBeGreaterThan(0);
    expect((await readFile('/proc/self/comm', 'utf8')).length).toBeGreaterThan(0);
  });
});

/** A worker that stays until it is told to go (its thread is there to be read meanwhile). */
const WAITING = "require('node:worker_threads').parentPort.once('message', () => process.exit(0));";

async function ended(worker: Worker): Promise<void> {
  const exit = new Promise((resolve) => worker.once('exit', resolve));
  worker.postMessage('go');
  await exit;
}

// A worker thread spends its first tens of milliseconds of CPU making its Node environment and loading its
// program (80-250 ms on a slow two-core machine for the start-up index check's), while the host answers its
// first requests: a thread lowered by its own program once loaded has done all that at the host's priority.
describe.runIf(process.platform === 'linux')('startInBackground', () => {
  it('lowers the threads that `start` started before it returns, and leaves the others as they were', async () => {
    const before = await tasks();
    const main = before.find((t) => t.tid === process.pid);
    const worker = startInBackground(() => new Worker(WAITING, { eval: true }));
    // Read before the worker's program could run a line: the lowering is done by the time the call returns.
    const after = await tasks();
    try {
      const started = after.filter((t) => !before.some((b) => b.tid === t.tid));
      expect(started.length).toBeGreaterThan(0);
      for (const thread of started) expect(thread.nice).toBe(Math.min(19, (main?.nice ?? 0) + BACKGROUND_NICE));
      for (const other of after.filter((t) => before.some((b) => b.tid === t.tid)))
        expect(other.nice, other.comm).toBe(before.find((t) => t.tid === other.tid)?.nice);
    } finally {
      await ended(worker);
    }
  });

  it('gives back what `start` returned, and lets its error through', () => {
    expect(startInBackground(() => 42)).toBe(42);
    expect(() =>
      startInBackground(() => {
        throw new Error('no thread');
      }),
    ).toThrow('no thread');
  });

  it("startWorker starts Weft's worker programs lowered", async () => {
    // The index check's program, held inside a rollout that is a FIFO (its open waits for a writer) until
    // its threads have been read: a check with nothing to do may end before that.
    const home = await mkdtemp(join(tmpdir(), 'weft-pool-'));
    const indexPath = join(home, 'weft.sqlite');
    openIndex(indexPath).db.close();
    const dayDir = join(home, 'sessions', '2030', '01', '01');
    await mkdir(dayDir, { recursive: true });
    const fifo = join(dayDir, `rollout-2030-01-01T00-00-00-${uuidv7()}.jsonl`);
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    try {
      const before = await tasks();
      const main = before.find((t) => t.tid === process.pid);
      const sources = [{ dir: join(home, 'sessions'), archived: false, origin: 'weft' }];
      const worker = await startWorker('index-check-worker', { workerData: { home, indexPath, sources } });
      expect(worker).not.toBeNull();
      const exit = new Promise((resolve) => worker?.once('exit', resolve));
      const after = await tasks();
      const started = after.filter((t) => !before.some((b) => b.tid === t.tid) && t.comm !== 'libuv-worker');
      expect(started.length).toBeGreaterThan(0);
      for (const thread of started) expect(thread.nice).toBe(Math.min(19, (main?.nice ?? 0) + BACKGROUND_NICE));
      await (await open(fifo, 'w')).close();
      await exit;
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe.runIf(process.platform !== 'linux')('lowerPoolPriority elsewhere', () => {
  it('does nothing and says so', async () => {
    expect(await lowerPoolPriority()).toBe(0);
    expect(startInBackground(() => 'started')).toBe('started');
  });
});
