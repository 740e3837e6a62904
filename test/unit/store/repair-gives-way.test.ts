// The start-up repair of the index runs in the background and gives way to requests in flight; a request
// that waits for the index itself is never left waiting on a repair that waits for it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFileSync } from 'node:fs';
import type { ThreadStore } from '../../../src-main/store';
import { ThreadStore as Store } from '../../../src-main/store';
import { uuidv7 } from '../../../src-main/util/ids';
import { ScriptedSession, meta, openStore, tempHome, type TempHome } from './helpers';

let tmp: TempHome;

beforeEach(async () => {
  tmp = await tempHome();
});

afterEach(async () => {
  await tmp.dispose();
});

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Threads saved by a store that is closed again; returns their rollout paths. */
async function threads(n: number): Promise<{ id: string; path: string }[]> {
  const { store } = openStore(tmp.home);
  const out: { id: string; path: string }[] = [];
  for (let i = 0; i < n; i++) {
    const id = uuidv7();
    const { recorder, path } = store.createThread(meta(id));
    await new ScriptedSession(id, recorder).turn([{ type: 'text', text: `question ${i}` }], 'completed');
    await recorder.close();
    out.push({ id, path });
  }
  await store.close();
  return out;
}

/** A rename written to the file behind the index's back (as another program would). */
function renameOnDisk(path: string, id: string, name: string): void {
  const line = {
    timestamp: new Date().toISOString(),
    type: 'event_msg',
    payload: { type: 'thread_name_updated', thread_id: id, thread_name: name },
  };
  appendFileSync(path, `${JSON.stringify(line)}\n`);
}

describe('the start-up repair', () => {
  let store: ThreadStore;
  afterEach(async () => {
    await store.close();
  });

  it('pauses while a request is in flight and goes on when it is done', async () => {
    const made = await threads(3);
    for (const [i, t] of made.entries()) renameOnDisk(t.path, t.id, `renamed ${i}`);
    store = Store.open(tmp.home, { repair: false, repairSliceMs: 0, onWarning: () => undefined });
    const names = (): (string | null)[] => made.map((t) => store.read(t.id).thread.name);
    let release: () => void = () => undefined;
    const request = store.inForeground(async () => {
      store.repairInBackground();
      await new Promise<void>((resolve) => (release = resolve));
    });
    for (let i = 0; i < 20; i++) await tick();
    expect(names()).toEqual([null, null, null]);
    release();
    await request;
    await store.whenIndexed();
    expect(names()).toEqual(['renamed 0', 'renamed 1', 'renamed 2']);
  });

  it('goes on after a moment beside a request that takes long', async () => {
    const made = await threads(1);
    renameOnDisk(made[0]?.path ?? '', made[0]?.id ?? '', 'renamed');
    store = Store.open(tmp.home, { repair: false, repairSliceMs: 0, onWarning: () => undefined });
    let release: () => void = () => undefined;
    const started = performance.now();
    const request = store.inForeground(async () => {
      store.repairInBackground();
      await new Promise<void>((resolve) => (release = resolve));
    });
    // The request is still running when the repair is done.
    await expect.poll(() => store.read(made[0]?.id ?? '').thread.name, { timeout: 5_000 }).toBe('renamed');
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_900);
    release();
    await request;
  });

  it('pauses between rollouts while it checks them, also when none of them changed', async () => {
    const made = await threads(40);
    store = Store.open(tmp.home, { repair: false, repairSliceMs: 0, onWarning: () => undefined });
    let turns = 0;
    let done = false;
    const count = (): void => {
      if (done) return;
      turns++;
      setImmediate(count);
    };
    setImmediate(count);
    store.repairInBackground();
    await store.whenIndexed();
    done = true;
    // A slice of 0 ms ends at every check: the event loop gets a turn at least once per rollout looked at.
    expect(turns).toBeGreaterThanOrEqual(made.length);
  });

  it('does not wait for a request that waits for the index', async () => {
    const made = await threads(2);
    renameOnDisk(made[0]?.path ?? '', made[0]?.id ?? '', 'renamed');
    store = Store.open(tmp.home, { repair: false, repairSliceMs: 0, onWarning: () => undefined });
    await store.inForeground(async () => {
      store.repairInBackground();
      await tick();
      await store.whenIndexed();
    });
    expect(store.read(made[0]?.id ?? '').thread.name).toBe('renamed');
  });
});
