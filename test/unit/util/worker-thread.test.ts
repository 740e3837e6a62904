// A worker thread is a Node environment of its own: the compile cache the process enabled at start
// (bin/weft.js, `module.enableCompileCache`) is not its own unless it is told where the cache is, and without
// it the start-up index check's worker compiled its program (zod, the index, the repair: about 390 KB) on
// every start of the host.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startWorker } from '../../../src-main/util/worker-thread';

/** Every file under `dir`, however deep. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

const cacheDir = mkdtempSync(join(tmpdir(), 'weft-compile-cache-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

describe('startWorker', () => {
  it("gives the worker the process's compile cache", async () => {
    // This test's process has no cache of its own before (vitest does not enable one).
    expect(module.getCompileCacheDir()).toBeUndefined();
    const enabled = module.enableCompileCache(cacheDir);
    expect(enabled.directory).toBeDefined();
    const worker = await startWorker('index-check-worker', { workerData: {} });
    expect(worker).not.toBeNull();
    await new Promise((resolve) => worker?.once('exit', resolve));
    // The process's own entries are written when it flushes (at its exit): what is there now, the worker wrote.
    expect(filesUnder(cacheDir).length).toBeGreaterThan(0);
  });
});
