// Which threads a window holds on the server: the real controller and RPC client, the test speaking as
// the server. A thread the window stops showing is let go (`thread/unsubscribe`), unless a turn runs in
// it, in which case it is let go once the turn has ended; a thread still held is shown again without a
// resume; conversations of threads neither shown nor held are dropped beyond the 8 shown last.
import { afterEach, expect, it } from 'vitest';
import type { Thread } from '../../../src-preload/protocol';
import type { Controller } from '../../../src-renderer/store/controller';
import type { FakeServer } from './fake-server';
import { startController, type RunningController } from './fake-server';
import { makeThread, makeTurn, resumedThread } from './fixtures';

let running: RunningController | undefined;
afterEach(() => {
  running?.dispose();
  running = undefined;
});

async function started(): Promise<RunningController> {
  running = await startController();
  return running;
}

/** Shows a thread the window does not hold: it is resumed, and the answer given. */
async function show(server: FakeServer, shown: Controller, thread: Thread): Promise<void> {
  const n = server.params('thread/resume').length;
  const done = shown.selectThread(thread.id);
  await server.answer('thread/resume', n, resumedThread(thread));
  await done;
}

it('lets go of a thread it stops showing, and shows a thread it still holds without a resume', async () => {
  const { server, controller: c } = await started();
  const a = makeThread({ id: 'thr_a', preview: 'a' });
  const b = makeThread({ id: 'thr_b', preview: 'b' });
  await show(server, c, a);
  expect(server.params('thread/unsubscribe')).toEqual([]);
  await show(server, c, b);
  await server.request('thread/unsubscribe', 0);
  expect(server.params('thread/unsubscribe')).toEqual([{ threadId: 'thr_a' }]);

  // Shown again while held: nothing to ask.
  await c.selectThread('thr_b');
  expect(server.params('thread/resume')).toEqual([{ threadId: 'thr_a' }, { threadId: 'thr_b' }]);
  // Let go: shown again with a resume.
  await show(server, c, a);
  expect(server.params('thread/resume')).toEqual([{ threadId: 'thr_a' }, { threadId: 'thr_b' }, { threadId: 'thr_a' }]);
  await server.request('thread/unsubscribe', 1);
  expect(server.params('thread/unsubscribe')).toEqual([{ threadId: 'thr_a' }, { threadId: 'thr_b' }]);
});

it('keeps a thread it left while a turn runs there, and lets go of it once the turn has ended', async () => {
  const { server, store, controller: c } = await started();
  const a = makeThread({ id: 'thr_a', preview: 'a' });
  const b = makeThread({ id: 'thr_b', preview: 'b' });
  const c2 = makeThread({ id: 'thr_c', preview: 'c' });
  await show(server, c, a);
  const turn = makeTurn({ id: 'turn_a' });
  server.deliver({ method: 'turn/started', params: { threadId: 'thr_a', turn } });
  server.deliver({
    method: 'thread/status/changed',
    params: { threadId: 'thr_a', status: { type: 'active', activeFlags: ['waitingOnApproval'] } },
  });
  await new Promise<void>((resolve) => {
    const stop = store.subscribe((state) => {
      if (state.data.statuses['thr_a']?.type !== 'active') return;
      stop();
      resolve();
    });
  });
  await show(server, c, b);
  await show(server, c, c2);
  // b was let go when c was shown; a, busy, was not.
  await server.request('thread/unsubscribe', 0);
  expect(server.params('thread/unsubscribe')).toEqual([{ threadId: 'thr_b' }]);
  expect(store.getState().data.conversations['thr_a']).toBeDefined();

  server.deliver({
    method: 'turn/completed',
    params: { threadId: 'thr_a', turn: { ...turn, status: 'completed', completedAt: 1_700_000_200, durationMs: 1 } },
  });
  server.deliver({ method: 'thread/status/changed', params: { threadId: 'thr_a', status: { type: 'idle' } } });
  await server.request('thread/unsubscribe', 1);
  expect(server.params('thread/unsubscribe')).toEqual([{ threadId: 'thr_b' }, { threadId: 'thr_a' }]);
  expect(store.getState().data.lastTurnStatus['thr_a']).toBe('completed');
});

it('drops the conversations of threads neither shown nor held beyond the 8 shown last, and reads one again', async () => {
  const { server, store, controller: c } = await started();
  const threads = Array.from({ length: 12 }, (_, i) => makeThread({ id: `thr_${i}`, preview: `t${i}` }));
  for (const thread of threads) await show(server, c, thread);
  expect(Object.keys(store.getState().data.conversations).sort()).toEqual(
    threads
      .slice(-8)
      .map((t) => t.id)
      .sort(),
  );
  const first = threads[0];
  if (first === undefined) throw new Error('no threads');
  await show(server, c, first);
  expect(store.getState().data.conversations['thr_0']?.threadId).toBe('thr_0');
  expect(server.params('thread/resume').filter((p) => JSON.stringify(p) === '{"threadId":"thr_0"}')).toHaveLength(2);
});

it('holds a fork it made and shows it, letting go of the thread it came from', async () => {
  const { server, store, controller: c } = await started();
  await server.answer('weft/forks/list', 0, { data: [] });
  const parent = makeThread({ id: 'thr_parent', preview: 'parent' });
  await show(server, c, parent);
  const forked = c.fork('thr_parent', undefined, { worktree: true });
  const fork = makeThread({ id: 'thr_fork', preview: 'parent', forkedFromId: 'thr_parent' });
  await server.answer('thread/fork', 0, resumedThread(fork));
  // News arrives while the forks are listed again: the fork, not shown yet, is not let go for it.
  server.deliver({ method: 'thread/started', params: { thread: fork } });
  await server.answer('weft/forks/list', 1, { data: [] });
  await forked;
  expect(store.getState().ui.activeThreadId).toBe('thr_fork');
  await server.request('thread/unsubscribe', 0);
  // Shown again without a resume: it is held.
  await c.selectThread('thr_fork');
  expect(server.params('thread/resume')).toEqual([{ threadId: 'thr_parent' }]);
  expect(server.params('thread/unsubscribe')).toEqual([{ threadId: 'thr_parent' }]);
});
