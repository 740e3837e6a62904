// The start-up index check's worker is asked to stop, never terminated while it may be inside a native
// call: a worker thread terminated while it loads SQLite's addon (or opens or closes the index) aborts the
// whole process ("FATAL ERROR: Error::New napi_get_last_error_info"). An app server on a new home stops
// the worker it has just started (nothing to check), which in CI ended app servers with SIGABRT.
// Each case reads how the worker ended: 0 when it ended by itself, 1 when it was terminated (a worker
// terminated before it runs a line also says 0, so each case stops one that is at work).
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { IndexCheck } from '../../../src-main/store/index-check';
import { openIndex } from '../../../src-main/store/index-db';
import { indexFile, sessionsDir } from '../../../src-main/store/paths';
import { saveThreads } from '../../support/saved-threads';
import { makeWeftHome, type WeftHome } from '../../support/workspace';

let home: WeftHome | null = null;
afterEach(async () => {
  await home?.cleanup();
  home = null;
});

/** A check of a home whose index lacks `threads` saved threads: it reads each one, ~100 per batch it sends. */
async function newCheck(threads = 0): Promise<IndexCheck> {
  home = await makeWeftHome();
  if (threads > 0) {
    await saveThreads(
      home.dir,
      home.dir,
      Array.from({ length: threads }, (_, i) => `prompt ${i}`),
    );
    rmSync(indexFile(home.dir));
  }
  openIndex(indexFile(home.dir)).db.close();
  return new IndexCheck({
    home: home.dir,
    indexPath: indexFile(home.dir),
    sources: [{ dir: sessionsDir(home.dir), archived: false, origin: 'weft' }],
  });
}

describe('the index check worker', () => {
  it('stopped while it is reading rollouts, ends by itself', async () => {
    const check = await newCheck(300);
    const writes: number[] = [];
    const running = check.run({
      write: (change) => writes.push(change.upserts.length),
      giveWay: () => Promise.resolve(),
    });
    await check.warmedUp;
    await check.stop();
    expect(await running).toMatchObject({ cancelled: true });
    expect(writes.reduce((a, b) => a + b, 0)).toBeLessThan(300);
    expect(await check.exited).toBe(0);
  });

  it('run to its end, ends by itself after its report', async () => {
    const check = await newCheck();
    const report = await check.run({ write: () => undefined, giveWay: () => Promise.resolve() });
    expect(report).toMatchObject({ cancelled: false, files: 0 });
    expect(await check.exited).toBe(0);
  });
});
