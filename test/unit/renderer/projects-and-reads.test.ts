// Several projects in one window, and reading the thread shown: the real controller and RPC client, the
// test speaking as the server. Showing another project keeps what goes on elsewhere (statuses, requests
// waiting, the threads held); closing one lets its threads go; the thread shown is marked read whenever
// it has something unread, with the revision the window holds.
import { afterEach, expect, it } from 'vitest';

import { boardState, needsYouCount, threadsNeedingYou } from '../../../src-renderer/store/board';
import { startController, type RunningController } from './fake-server';
import { CWD, makeThread, resumedThread } from './fixtures';

const OTHER = '/home/ada/other';
let running: RunningController | undefined;
afterEach(() => {
  running?.dispose();
  running = undefined;
});

it('marks the thread shown read, once per read state, with the revision it holds', async () => {
  running = await startController();
  const { server, controller, store } = running;
  const a = makeThread({ id: 'thr_a' });
  const shown = controller.selectThread(a.id);
  await server.answer('thread/resume', 0, resumedThread(a));
  await shown;
  const unread = (revision: string) => ({ firstUnread: { type: 'turn', turnId: `t${revision}` }, revision });
  server.deliver({ method: 'thread/readState/changed', params: { threadId: 'thr_a', readState: unread('1') } });
  server.deliver({ method: 'thread/readState/changed', params: { threadId: 'thr_b', readState: unread('4') } });
  await server.request('thread/readState/update', 0);
  expect(server.params('thread/readState/update')).toEqual([
    { threadId: 'thr_a', expectedRevision: '1', operation: { type: 'read' } },
  ]);
  // Refused (a turn ended meanwhile): the newer state's news brings the revision to mark.
  const first = await server.request('thread/readState/update', 0);
  server.deliver({ id: first['id'], error: { code: -32010, message: 'changed' } });
  server.deliver({ method: 'thread/readState/changed', params: { threadId: 'thr_a', readState: unread('2') } });
  await server.answer('thread/readState/update', 1, { readState: { firstUnread: null, revision: '3' } });
  await expect.poll(() => store.getState().data.readStates['thr_a']).toBeUndefined();
  expect(server.params('thread/readState/update')).toEqual([
    { threadId: 'thr_a', expectedRevision: '1', operation: { type: 'read' } },
    { threadId: 'thr_a', expectedRevision: '2', operation: { type: 'read' } },
  ]);
  // A thread not shown stays unread.
  expect(boardState(store.getState().data, 'thr_b')).toEqual({ kind: 'done', ended: null });
});

it('shows another project without losing what goes on in the first, and closes it again', async () => {
  running = await startController();
  const { server, controller, store } = running;
  await server.answer('weft/forks/list', 0, { data: [] });
  await server.answer('thread/list', 0, {
    data: [makeThread({ id: 'thr_a', status: { type: 'active', activeFlags: ['waitingOnApproval'] } })],
    nextCursor: null,
  });
  await server.answer('thread/list', 1, { data: [], nextCursor: null });
  await expect.poll(() => store.getState().data.live.map((t) => t.id)).toEqual(['thr_a']);
  // A thread of the first project, shown, asks for an approval.
  const shown = controller.selectThread('thr_a');
  await server.answer('thread/resume', 0, resumedThread(makeThread({ id: 'thr_a' })));
  await shown;
  server.deliver({
    id: 7,
    method: 'item/commandExecution/requestApproval',
    params: { threadId: 'thr_a', turnId: 't', itemId: 'c', startedAtMs: 1, command: 'make', cwd: CWD },
  });
  await expect.poll(() => store.getState().data.approvals.length).toBe(1);

  controller.openProject(OTHER);
  expect(server.params('weft/forks/list')).toEqual([{ cwd: CWD }, { cwd: OTHER }]);
  await server.answer('weft/forks/list', 1, { data: [] });
  await server.request('thread/list', 5);
  const lists = server.params('thread/list').slice(2);
  expect(lists).toEqual(
    expect.arrayContaining([
      { cwd: OTHER, archived: false, sortKey: 'updated_at', limit: 100 },
      { cwd: OTHER, archived: true, sortKey: 'updated_at', limit: 100 },
    ]),
  );
  const { data, ui } = store.getState();
  expect({ cwd: data.cwd, shown: ui.activeThreadId, open: ui.openProjects }).toEqual({
    cwd: OTHER,
    shown: null,
    open: [CWD, OTHER],
  });
  // The first project's threads are still counted, its request still waits here, its thread still held.
  expect(data.elsewhere[CWD]?.map((t) => t.id)).toEqual(['thr_a']);
  expect(boardState(data, 'thr_a')).toEqual({ kind: 'needsYou', why: 'approval', step: null });
  expect(server.params('thread/unsubscribe')).toEqual([]);

  // Closing the first project lets its thread go, busy or not, and its request leaves this window.
  controller.closeProject(CWD);
  await server.request('thread/unsubscribe', 0);
  expect(server.params('thread/unsubscribe')).toEqual([{ threadId: 'thr_a' }]);
  expect({
    open: store.getState().ui.openProjects,
    elsewhere: store.getState().data.elsewhere,
    approvals: store.getState().data.approvals,
  }).toEqual({ open: [OTHER], elsewhere: {}, approvals: [] });
});

it("counts every thread of another open project that needs the person, not only its newest page's", async () => {
  running = await startController();
  const { server, controller, store } = running;
  await server.answer('weft/forks/list', 0, { data: [] });
  await server.answer('thread/list', 0, { data: [makeThread({ id: 'thr_new' })], nextCursor: null });
  await server.answer('thread/list', 1, { data: [], nextCursor: null });
  controller.openProject(OTHER);
  await server.answer('weft/forks/list', 1, { data: [] });
  await server.request('thread/list', 5);
  const asked = server.params('thread/list');
  const index = (wanted: object): number => {
    const at = asked.findLastIndex((p) => JSON.stringify(p) === JSON.stringify(wanted));
    if (at < 0) throw new Error(`no thread/list ${JSON.stringify(wanted)} among ${JSON.stringify(asked)}`);
    return at;
  };
  // The project left behind: its newest page, and (from the index) those of its threads that need the person.
  await server.answer('thread/list', index({ cwd: CWD, archived: false, sortKey: 'updated_at', limit: 100 }), {
    data: [makeThread({ id: 'thr_new', updatedAt: 1_700_000_500 })],
    nextCursor: 'more',
  });
  const old = makeThread({
    id: 'thr_old',
    updatedAt: 1_600_000_000,
    status: { type: 'systemError' },
    weftReadState: { firstUnread: { type: 'turn', turnId: 'turn_failed' }, revision: '1' },
  });
  await server.answer(
    'thread/list',
    index({ cwd: CWD, archived: false, sortKey: 'updated_at', weftNeedsYou: true, limit: 100 }),
    { data: [old], nextCursor: null },
  );
  await expect.poll(() => needsYouCount(store.getState().data, CWD)).toBe(1);
  expect(threadsNeedingYou(store.getState().data, [OTHER, CWD]).map((t) => t.id)).toEqual(['thr_old']);
  expect(store.getState().data.elsewhere[CWD]?.map((t) => t.id)).toEqual(['thr_new', 'thr_old']);
});
