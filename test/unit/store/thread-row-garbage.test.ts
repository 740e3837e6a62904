// A thread made of an index row (every page of `thread/list`) leaves nothing behind that outlives a scavenge.
// zod's failed `safeParse` did: its result holds the error behind a getter and a setter, V8 keeps an accessor's
// pair in the old generation, and so the closures and what they hold (the issues, the parsed value) were
// promoted at each scavenge and kept until a full collection. A thread without turns (no last turn status)
// failed it for every row of every list. The collections are run by hand (V8's `gc`, exposed for this test)
// around a loop that runs nothing else, so what the old generation holds after it is what the loop left.
import { runInNewContext } from 'node:vm';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { ThreadStore } from '../../../src-main/store';
import { threadFromRow, type IndexRow, type ThreadIndex } from '../../../src-main/store/thread-index';
import { uuidv7 } from '../../../src-main/util/ids';
import { StoreFixture, meta } from './helpers';

const fixture = StoreFixture.forEachTest();

type Collect = (options?: { type: 'major' | 'minor' }) => void;

/** V8's `gc`, exposed for this process from now on. */
function collector(): Collect {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as Collect;
}

const oldSpaceUsed = (): number =>
  getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')?.space_used_size ?? 0;

describe('a thread made of an index row', () => {
  it('leaves nothing that outlives a scavenge, for a thread without turns too', async () => {
    const store: ThreadStore = fixture.store;
    const id = uuidv7();
    const { recorder } = store.createThread(meta(id));
    await store.setName(id, 'Never sent');
    await recorder.close();
    const index = (store as unknown as { catalog: { index: ThreadIndex } }).catalog.index;
    const row = index.get(id) as IndexRow;
    expect(row.last_turn_status).toBeNull();
    expect(threadFromRow(row)).toMatchObject({ id, name: 'Never sent' });
    expect(threadFromRow(row)).not.toHaveProperty('weftLastTurnStatus');

    const gc = collector();
    gc();
    gc();
    const before = oldSpaceUsed();
    // 50,000 threads: as many as 2,000 lists of 25 make.
    let made = 0;
    for (let i = 0; i < 50_000; i++) made += threadFromRow(row).turns.length + 1;
    // Two scavenges promote what is still alive in the young generation, and what is reachable from the old.
    gc({ type: 'minor' });
    gc({ type: 'minor' });
    const grown = oldSpaceUsed() - before;
    expect(made).toBe(50_000);
    // Before: 20 MB and more (each failed parse's closures and issues, promoted); now what the loop's own
    // scavenges happened to find in flight.
    expect(grown, `the old generation grew by ${grown} bytes`).toBeLessThan(2 * 1024 * 1024);
  });
});
