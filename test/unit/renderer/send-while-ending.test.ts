// A message sent as the running turn ends: the turn has given its last answer but not yet told it has
// ended, so the window steers it, and the server answers that the turn is finishing. The message is not
// lost (nor reported as an error): it starts the next turn. The real controller and RPC client; the test
// speaks as the server.
import { afterEach, expect, it } from 'vitest';

import { startController, type RunningController } from './fake-server';
import { makeThread, makeTurn, resumedThread } from './fixtures';

let running: RunningController | undefined;
afterEach(() => {
  running?.dispose();
  running = undefined;
});

async function showRunning(r: RunningController): Promise<void> {
  const { server, store, controller } = r;
  const thread = makeThread({ id: 'thr_a', preview: 'a' });
  const shown = controller.selectThread(thread.id);
  await server.answer('thread/resume', 0, resumedThread(thread));
  await shown;
  server.deliver({ method: 'turn/started', params: { threadId: 'thr_a', turn: makeTurn({ id: 'turn_a' }) } });
  await new Promise<void>((resolve) => {
    const check = (): boolean => Object.keys(store.getState().data.conversations['thr_a']?.turns ?? {}).length > 0;
    if (check()) return resolve();
    const stop = store.subscribe(() => {
      if (!check()) return;
      stop();
      resolve();
    });
  });
}

it('starts the next turn with a message the ending turn no longer takes', async () => {
  running = await startController();
  const { server, store, controller } = running;
  await showRunning(running);
  const input = [{ type: 'text' as const, text: 'and one more thing' }];
  const sent = controller.send(input);
  const steer = await server.request('turn/steer', 0);
  expect(steer['params']).toMatchObject({ threadId: 'thr_a', expectedTurnId: 'turn_a', input });
  server.deliver({
    id: steer['id'],
    error: { code: -32600, message: 'turn turn_a is already finishing; start a new turn instead' },
  });
  const start = await server.request('turn/start', 0);
  expect(start['params']).toMatchObject({ threadId: 'thr_a', input });
  server.deliver({ id: start['id'], result: { turn: makeTurn({ id: 'turn_b' }) } });
  expect(await sent).toBe(true);
  // Nothing is told as a failure, and the message is no longer shown as waiting to be taken in.
  expect(store.getState().ui.toasts).toEqual([]);
  expect(store.getState().ui.steering).toEqual([]);
});

it('steers a turn that takes the message, and starts none', async () => {
  running = await startController();
  const { server, controller } = running;
  await showRunning(running);
  const sent = controller.send([{ type: 'text', text: 'also this' }]);
  await server.answer('turn/steer', 0, { turnId: 'turn_a' });
  expect(await sent).toBe(true);
  expect(server.params('turn/start')).toEqual([]);
});
