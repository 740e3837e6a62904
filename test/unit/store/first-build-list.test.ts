// A list while a new index is first built (its file deleted, or a first start over existing rollouts): a
// small home is listed whole however long its build takes (a busy machine), a big one answers with what
// is indexed so far and says so (test/integration/thread-list-indexing.test.ts has the big one).
// The clock is a fake one, so the list's own time limits pass at once while the build goes on for real.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { ThreadStore } from '../../../src-main/store';
import { uuidv7 } from '../../../src-main/util/ids';
import { ScriptedSession, meta, tempHome, type TempHome } from './helpers';

let tmp: TempHome;
const ids: string[] = [];

beforeEach(async () => {
  tmp = await tempHome();
  const store = ThreadStore.open(tmp.home, { onWarning: () => undefined });
  ids.length = 0;
  for (let i = 0; i < 12; i++) {
    const id = uuidv7();
    const { recorder } = store.createThread(meta(id));
    await new ScriptedSession(id, recorder).turn([{ type: 'text', text: `question ${i}` }], 'completed');
    await recorder.close();
    ids.push(id);
  }
  await store.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(tmp.home, `weft.sqlite${suffix}`), { force: true });
});

afterEach(async () => {
  vi.useRealTimers();
  await tmp.dispose();
});

it('lists a small home whole while its new index is built, however long the build takes', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const store = ThreadStore.open(tmp.home, { onWarning: () => undefined });
  try {
    expect(store.indexing).toBe(true);
    const listed = store.listComplete({ limit: 50 });
    // Seconds pass on the list's clock before the build (which runs on the real one) has read a rollout.
    await vi.advanceTimersByTimeAsync(5_000);
    const page = await listed;
    expect({ ids: page.data.map((t) => t.id).sort(), indexing: page.indexing }).toEqual({
      ids: [...ids].sort(),
      indexing: false,
    });
  } finally {
    await store.close();
  }
});
