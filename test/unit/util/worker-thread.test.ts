// A worker thread is a Node environment of its own: the compile cache the process enabled at start
// (bin/weft.js, `module.enableCompileCache`) is not its own unless it is told where the cache is, and without
// it the start-up index check's worker compiled its program (zod, the index, the repair: about 390 KB) on
// every start of the host.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as WorkerThreads from 'node:worker_threads';
import type { WorkerOptions } from 'node:worker_threads';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startWorker } from '../../../src-main/util/worker-thread';

/** The options of each worker started in this file (the real Worker still starts). */
const started = vi.hoisted(() => [] as WorkerOptions[]);
vi.mock('node:worker_threads', async (original) => {
  const real = await original<typeof WorkerThreads>();
  class Recorded extends real.Worker {
    constructor(filename: string | URL, options?: WorkerOptions) {
      started.push(options ?? {});
      super(filename, options);
    }
  }
  return { ...real, Worker: Recorded };
});

/** Every file under `dir`, however deep. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

const fresh = mkdtempSync(join(tmpdir(), 'weft-compile-cache-'));
afterAll(() => rmSync(fresh, { recursive: true, force: true }));

describe('startWorker', () => {
  it("gives the worker the process's compile cache", async () => {
    // `npm test` gives every process a cache (NODE_COMPILE_CACHE); run alone, this one has none yet.
    const ownCache = module.getCompileCacheDir() === undefined;
    if (ownCache) expect(module.enableCompileCache(fresh).directory).toBeDefined();
    const directory = module.getCompileCacheDir();
    expect(directory).toBeDefined();
    const worker = await startWorker('index-check-worker', { workerData: {} });
    expect(worker).not.toBeNull();
    await new Promise((resolve) => worker?.once('exit', resolve));
    expect(started).toHaveLength(1);
    const env = started[0]?.env as Record<string, string | undefined> | undefined;
    expect(env?.['NODE_COMPILE_CACHE']).toBe(directory);
    // The process's own environment is left as it was.
    if (ownCache) {
      expect(process.env['NODE_COMPILE_CACHE']).toBeUndefined();
      // The process's own entries are written when it flushes (at its exit): what is there now, the worker wrote.
      expect(filesUnder(fresh).length).toBeGreaterThan(0);
    }
  });
});
