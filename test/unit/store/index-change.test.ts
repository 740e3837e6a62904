// A repair reads a rollout, then writes its row later (in the next batch, or on the main thread after the
// start-up check's worker read it). A recording that wrote the row in between knows more: the repair's
// row must not overwrite it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ThreadStore } from '../../../src-main/store';
import { openIndex } from '../../../src-main/store/index-db';
import { summarizeRollout } from '../../../src-main/store/index-scan';
import { indexFile } from '../../../src-main/store/paths';
import { writeIndexChange } from '../../../src-main/store/repair';
import { ThreadIndex } from '../../../src-main/store/thread-index';
import { uuidv7 } from '../../../src-main/util/ids';
import { ScriptedSession, meta, openStore, tempHome, type TempHome } from './helpers';

let tmp: TempHome;
let store: ThreadStore;

beforeEach(async () => {
  tmp = await tempHome();
  ({ store } = openStore(tmp.home));
  await store.whenIndexed();
});

afterEach(async () => {
  await store.close();
  await tmp.dispose();
});

describe("a repair's rows", () => {
  it('are written only over the row the repair saw before it read the rollout', async () => {
    const id = uuidv7();
    const { recorder, path } = store.createThread(meta(id));
    const session = new ScriptedSession(id, recorder);
    await session.turn([{ type: 'text', text: 'first question' }], 'completed');
    const index = new ThreadIndex(openIndex(indexFile(tmp.home)).db);
    try {
      const seen = index.filePage(0, 10)?.rows.find((r) => r.id === id) ?? null;
      expect(seen).not.toBeNull();
      // The repair reads the rollout now…
      const read = summarizeRollout(path, { archived: false, origin: 'weft' });
      // …then a turn is recorded (its row updated from the live file) before the repair writes.
      await session.turn([{ type: 'text', text: 'second question' }], 'completed');
      await recorder.close();
      const recorded = index.get(id);
      writeIndexChange(index, { upserts: [{ summary: { ...read, preview: 'stale' }, seen }], removed: [] });
      expect(index.get(id)).toEqual(recorded);
      // Over the row it saw, the repair's row is written.
      const current = index.filePage(0, 10)?.rows.find((r) => r.id === id) ?? null;
      writeIndexChange(index, { upserts: [{ summary: { ...read, preview: 'repaired' }, seen: current }], removed: [] });
      expect(index.get(id)?.preview).toBe('repaired');
    } finally {
      index.db.close();
    }
  });
});
