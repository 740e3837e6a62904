import { describe, expect, it } from 'vitest';
import { RecentProjects } from '../../../src-main/electron/recent-projects';
import { memoryStore } from '../../../src-main/electron/state-file';

function clock(): () => number {
  let now = 1000;
  return () => ++now;
}

describe('RecentProjects', () => {
  it('keeps the most recent first, without duplicates, and persists', async () => {
    const store = memoryStore();
    const recent = await RecentProjects.load(store, { now: clock() });
    await recent.add('/src/a');
    await recent.add('/src/b');
    await recent.add('/src/a');
    expect(recent.list()).toEqual([
      { path: '/src/a', openedAt: 1003 },
      { path: '/src/b', openedAt: 1002 },
    ]);
    const reloaded = await RecentProjects.load(store);
    expect(reloaded.list()).toEqual(recent.list());
  });

  it('caps the list, dropping the oldest', async () => {
    const recent = await RecentProjects.load(memoryStore(), { max: 3, now: clock() });
    for (const path of ['/1', '/2', '/3', '/4']) await recent.add(path);
    expect(recent.list().map((p) => p.path)).toEqual(['/4', '/3', '/2']);
  });

  it('removes, prunes folders that are gone, and clears', async () => {
    const store = memoryStore();
    const recent = await RecentProjects.load(store, { now: clock() });
    for (const path of ['/gone', '/kept', '/also-gone', '/removed']) await recent.add(path);
    await recent.remove('/removed');
    await recent.remove('/never-there');
    expect(await recent.prune(async (path) => !path.includes('gone'))).toEqual(['/also-gone', '/gone']);
    expect(recent.list().map((p) => p.path)).toEqual(['/kept']);
    expect((await RecentProjects.load(store)).list().map((p) => p.path)).toEqual(['/kept']);
    await recent.clear();
    expect((await RecentProjects.load(store)).list()).toEqual([]);
  });

  it('prune writes nothing when every folder exists', async () => {
    const store = memoryStore({ version: 1, projects: [{ path: '/a', openedAt: 1 }] });
    const recent = await RecentProjects.load(store);
    let writes = 0;
    const counting = {
      read: store.read,
      write: async (value: unknown) => {
        writes++;
        await store.write(value);
      },
    };
    const again = await RecentProjects.load(counting);
    expect(await again.prune(async () => true)).toEqual([]);
    expect(writes).toBe(0);
    expect(recent.list()).toEqual([{ path: '/a', openedAt: 1 }]);
  });

  it('drops duplicates found in the file and reports a malformed file', async () => {
    const duplicated = await RecentProjects.load(
      memoryStore({
        version: 1,
        projects: [
          { path: '/a', openedAt: 3 },
          { path: '/b', openedAt: 2 },
          { path: '/a', openedAt: 1 },
        ],
      }),
    );
    expect(duplicated.list().map((p) => p.path)).toEqual(['/a', '/b']);
    const problems: string[] = [];
    const broken = await RecentProjects.load(memoryStore({ version: 2, projects: 'x' }), {
      onInvalidFile: (m) => problems.push(m),
    });
    expect(broken.list()).toEqual([]);
    expect(problems).toEqual([
      expect.stringMatching(/^Recent projects were not restored: the saved file has an unexpected shape/),
    ]);
  });
});
