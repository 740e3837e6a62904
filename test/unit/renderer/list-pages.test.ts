// The sidebar's lists a page at a time, across the project and its forks' folders: the real controller
// and RPC client, the test speaking as the server.
import { afterEach, expect, it } from 'vitest';
import type { WeftFork } from '../../../src-preload/protocol';
import type { AppStore } from '../../../src-renderer/store/store';
import { startController, type RunningController } from './fake-server';
import { CWD, makeThread } from './fixtures';

let running: RunningController | undefined;
afterEach(() => {
  running?.dispose();
  running = undefined;
});

const WORKTREE = '/home/ada/.weft/worktrees/0a1b2c3d';
const fork: WeftFork = {
  threadId: 'thr_fork',
  parentThreadId: 'thr_1',
  project: CWD,
  cwd: WORKTREE,
  folder: WORKTREE,
  kind: 'worktree',
  branch: 'weft/0a1b2c3d',
  createdAt: '2026-11-28T10:00:00.000Z',
  removed: false,
};

function until(store: AppStore, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const stop = store.subscribe(() => {
      if (!check()) return;
      stop();
      resolve();
    });
  });
}

it('lists a page, then the next one when asked, naming the project and its forks’ folders', async () => {
  running = await startController();
  const { server, store, controller } = running;
  await server.answer('weft/forks/list', 0, { data: [fork] });
  const newest = makeThread({ id: 'thr_3', preview: 'three', updatedAt: 1_700_000_300 });
  const middle = makeThread({ id: 'thr_2', preview: 'two', updatedAt: 1_700_000_200 });
  const oldest = makeThread({ id: 'thr_1', preview: 'one', updatedAt: 1_700_000_100 });
  await server.answer('thread/list', 0, { data: [newest, middle], nextCursor: 'after-two' });
  await server.answer('thread/list', 1, { data: [], nextCursor: null });
  await until(store, () => store.getState().ui.listsLoaded);
  expect(server.params('thread/list')).toEqual([
    { cwd: [CWD, WORKTREE], archived: false, sortKey: 'updated_at', limit: 100 },
    { cwd: [CWD, WORKTREE], archived: true, sortKey: 'updated_at', limit: 100 },
  ]);
  expect(store.getState().ui.listCursors).toEqual({ live: 'after-two', archived: null });

  const more = controller.loadMore('live');
  // Asked again while the page is on its way: one request.
  void controller.loadMore('live');
  // The list moved meanwhile: a thread of the first page comes again and is not listed twice.
  await server.answer('thread/list', 2, { data: [middle, oldest], nextCursor: null });
  await more;
  expect(server.params('thread/list')[2]).toEqual({
    cwd: [CWD, WORKTREE],
    archived: false,
    sortKey: 'updated_at',
    limit: 100,
    cursor: 'after-two',
  });
  expect(server.params('thread/list')).toHaveLength(3);
  expect(store.getState().data.live.map((t) => t.id)).toEqual(['thr_3', 'thr_2', 'thr_1']);
  expect(store.getState().ui.listCursors).toEqual({ live: null, archived: null });
  await controller.loadMore('live');
  expect(server.params('thread/list')).toHaveLength(3);
});

it('searches the project and its forks’ folders, live threads first, then archived ones, a page at a time', async () => {
  running = await startController();
  const { server, store, controller } = running;
  await server.answer('weft/forks/list', 0, { data: [fork] });
  await server.answer('thread/list', 0, { data: [], nextCursor: null });
  await server.answer('thread/list', 1, { data: [], nextCursor: null });
  await until(store, () => store.getState().ui.listsLoaded);

  const found = makeThread({ id: 'thr_fork', preview: 'kiwis', cwd: WORKTREE, forkedFromId: 'thr_1' });
  const archived = makeThread({ id: 'thr_old', preview: 'kiwis, archived' });
  const search = controller.search(' kiwis ');
  await server.answer('thread/list', 2, { data: [found], nextCursor: null });
  await server.answer('thread/list', 3, { data: [archived], nextCursor: 'more-archived' });
  await search;
  expect(server.params('thread/list').slice(2)).toEqual([
    { cwd: [CWD, WORKTREE], searchTerm: 'kiwis', archived: false, limit: 100 },
    { cwd: [CWD, WORKTREE], searchTerm: 'kiwis', archived: true, limit: 100 },
  ]);
  expect(store.getState().ui.searchResults?.map((t) => t.id)).toEqual(['thr_fork', 'thr_old']);
  expect(store.getState().ui.searchCursor).toEqual({ archived: true, cursor: 'more-archived' });

  const older = makeThread({ id: 'thr_older', preview: 'kiwis, long ago' });
  const more = controller.loadMore('results');
  await server.answer('thread/list', 4, { data: [older], nextCursor: null });
  await more;
  expect(server.params('thread/list')[4]).toEqual({
    cwd: [CWD, WORKTREE],
    searchTerm: 'kiwis',
    archived: true,
    limit: 100,
    cursor: 'more-archived',
  });
  expect(store.getState().ui.searchResults?.map((t) => t.id)).toEqual(['thr_fork', 'thr_old', 'thr_older']);
  expect(store.getState().ui.searchCursor).toBeNull();
});

it('asks for the next page again where the list now ends when the list was listed anew while its page came', async () => {
  running = await startController();
  const { server, store, controller } = running;
  await server.answer('weft/forks/list', 0, { data: [] });
  // The first lists were taken while a new index was built: the order of what was indexed so far.
  const newest = makeThread({ id: 'thr_3', preview: 'three', updatedAt: 1_700_000_300 });
  const middle = makeThread({ id: 'thr_2', preview: 'two', updatedAt: 1_700_000_200 });
  const oldest = makeThread({ id: 'thr_1', preview: 'one', updatedAt: 1_700_000_100 });
  await server.answer('thread/list', 0, { data: [newest], nextCursor: 'partial-after-three' });
  await server.answer('thread/list', 1, { data: [], nextCursor: null });
  await until(store, () => store.getState().ui.listsLoaded);

  // The end of the list came near: its next page is on its way when the index is whole and the lists are
  // listed again from their start, as far down as they were loaded.
  const more = controller.loadMore('live');
  await server.request('thread/list', 2);
  const again = controller.refreshLists();
  await server.answer('weft/forks/list', 1, { data: [] });
  await server.answer('thread/list', 3, { data: [newest], nextCursor: 'after-three' });
  await server.answer('thread/list', 4, { data: [], nextCursor: null });
  await again;
  // The page asked for before is of the old list: it is not appended, and the list's new end is asked for.
  await server.answer('thread/list', 2, { data: [oldest], nextCursor: null });
  await server.answer('thread/list', 5, { data: [middle, oldest], nextCursor: null });
  await more;
  expect(server.params('thread/list')[5]).toEqual({
    cwd: CWD,
    archived: false,
    sortKey: 'updated_at',
    limit: 100,
    cursor: 'after-three',
  });
  expect(store.getState().data.live.map((t) => t.id)).toEqual(['thr_3', 'thr_2', 'thr_1']);
  expect(store.getState().ui.listCursors).toEqual({ live: null, archived: null });
});
