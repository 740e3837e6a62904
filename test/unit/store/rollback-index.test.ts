// The index reads a rollout as the outline and `thread/read` do: turns a rollback dropped are gone from
// its search text and its last turn's status, whether the index learned of the rollback as it was
// recorded, was rebuilt from the file afterwards, or the rollback was undone.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import type { ThreadStore } from '../../../src-main/store';
import { summarizeRollout } from '../../../src-main/store/index-scan';
import { outlineFileAsync } from '../../../src-main/store/outline';
import { indexFile } from '../../../src-main/store/paths';
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

/** A thread of three turns: "alpha" answered, "bravo" answered, "charlie" failed. */
async function threeTurns(): Promise<{ id: string; path: string }> {
  const id = uuidv7();
  const { recorder, path } = store.createThread(meta(id));
  const s = new ScriptedSession(id, recorder);
  for (const word of ['alpha', 'bravo']) {
    await s.turn([{ type: 'text', text: `${word} question` }], 'completed', (t) => {
      t.item({ type: 'agentMessage', id: `${t.turnId}-a`, text: `${word} answer`, phase: 'final_answer' });
    });
  }
  await s.turn([{ type: 'text', text: 'charlie question' }], 'failed', (t) => t.fail('context window exceeded'));
  await recorder.close();
  return { id, path };
}

/** What each reader says of the thread: the index (search, last turn status) and the outline. */
async function readers(id: string, path: string) {
  const found = (word: string): boolean => store.list({ searchTerm: word }).data.some((t) => t.id === id);
  const outline = await outlineFileAsync(path);
  return {
    index: {
      finds: { alpha: found('alpha'), bravo: found('bravo'), charlie: found('charlie') },
      lastTurnStatus: summarizeRollout(path, { archived: false, origin: 'weft' }).lastTurnStatus,
    },
    outline: { turns: outline.turns.length, lastTurnStatus: outline.turns.at(-1)?.status ?? null },
    read: store.read(id, { includeTurns: true }).thread.turns.length,
  };
}

describe('the index after a rollback', () => {
  it('agrees with the outline and a read: the dropped turns are not searched, the last turn is the live one', async () => {
    const { id, path } = await threeTurns();
    await store.rollback(id, 2);
    const afterRollback = {
      index: { finds: { alpha: true, bravo: false, charlie: false }, lastTurnStatus: 'completed' },
      outline: { turns: 1, lastTurnStatus: 'completed' },
      read: 1,
    };
    expect(await readers(id, path)).toEqual(afterRollback);

    // The same once the index is rebuilt from the rollout alone.
    await store.close();
    rmSync(indexFile(tmp.home));
    ({ store } = openStore(tmp.home));
    await store.whenIndexed();
    expect(await readers(id, path)).toEqual(afterRollback);

    // Undone, the turns are back for every reader.
    await store.undoRollback(id);
    expect(await readers(id, path)).toEqual({
      index: { finds: { alpha: true, bravo: true, charlie: true }, lastTurnStatus: 'failed' },
      outline: { turns: 3, lastTurnStatus: 'failed' },
      read: 3,
    });
  });
});
