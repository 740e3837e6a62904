// The thread list while the server builds a new index: the real controller and RPC client, the test
// speaking as the server. A list answered with `weftIndexing` marks the lists partial ("Indexing
// threads…"); `weft/threads/indexed` makes the controller list again, and the whole list replaces it —
// but for a thread that started while that list was on its way, which stays.
import { afterEach, expect, it } from 'vitest';
import { createRpcClient, type WeftClient } from '../../../src-renderer/client';
import { createController } from '../../../src-renderer/store/controller';
import { createAppStore } from '../../../src-renderer/store/store';
import { FakeServer as Server } from './fake-server';
import { CWD, makeThread } from './fixtures';

let client: WeftClient | undefined;
afterEach(() => {
  client?.dispose();
  client = undefined;
});

it('marks the lists partial while the index is built, and lists again once it is whole', async () => {
  const server = new Server();
  client = createRpcClient({ connector: server.connector, clientInfo: { name: 'weft-ui', version: '0.1.0' } });
  const store = createAppStore(CWD);
  const controller = createController(client, store, {
    scheduler: { schedule: (callback) => (queueMicrotask(callback), () => undefined) },
    href: () => `http://127.0.0.1/?cwd=${encodeURIComponent(CWD)}`,
    replaceHref: () => undefined,
    storage: null,
  });
  controller.start();
  await server.answer('initialize', 0, {
    userAgent: 'weft/0.1',
    codexHome: '/h',
    platformFamily: 'unix',
    platformOs: 'linux',
  });
  await server.answer('weft/forks/list', 0, { data: [] });
  const first = makeThread({ id: 'thr_1', preview: 'first' });
  const second = makeThread({ id: 'thr_2', preview: 'second' });
  await server.answer('thread/list', 0, { data: [first], nextCursor: null, weftIndexing: true });
  await server.answer('thread/list', 1, { data: [], nextCursor: null, weftIndexing: true });
  await new Promise<void>((resolve) => {
    const stop = store.subscribe((state) => {
      if (!state.ui.listsLoaded) return;
      stop();
      resolve();
    });
  });
  expect(store.getState().ui.indexing).toBe(true);
  expect(store.getState().data.live.map((t) => t.id)).toEqual(['thr_1']);

  server.deliver({ method: 'weft/threads/indexed', params: {} });
  await server.answer('weft/forks/list', 1, { data: [] });
  await server.answer('thread/list', 2, { data: [second, first], nextCursor: null });
  await server.answer('thread/list', 3, { data: [], nextCursor: null });
  await new Promise<void>((resolve) => {
    const check = (): boolean => !store.getState().ui.indexing;
    if (check()) return resolve();
    const stop = store.subscribe(() => {
      if (!check()) return;
      stop();
      resolve();
    });
  });
  expect(store.getState().data.live.map((t) => t.id)).toEqual(['thr_2', 'thr_1']);
  controller.dispose();
});

it('keeps a thread that started while the lists were being read again', async () => {
  const server = new Server();
  client = createRpcClient({ connector: server.connector, clientInfo: { name: 'weft-ui', version: '0.1.0' } });
  const store = createAppStore(CWD);
  const controller = createController(client, store, {
    scheduler: { schedule: (callback) => (queueMicrotask(callback), () => undefined) },
    href: () => `http://127.0.0.1/?cwd=${encodeURIComponent(CWD)}`,
    replaceHref: () => undefined,
    storage: null,
  });
  controller.start();
  await server.answer('initialize', 0, {
    userAgent: 'weft/0.1',
    codexHome: '/h',
    platformFamily: 'unix',
    platformOs: 'linux',
  });
  const first = makeThread({ id: 'thr_1', preview: 'first', updatedAt: 100 });
  await server.answer('weft/forks/list', 0, { data: [] });
  await server.answer('thread/list', 0, { data: [first], nextCursor: null, weftIndexing: true });
  await server.answer('thread/list', 1, { data: [], nextCursor: null, weftIndexing: true });
  await new Promise<void>((resolve) => {
    const stop = store.subscribe((state) => {
      if (!state.ui.listsLoaded) return;
      stop();
      resolve();
    });
  });

  server.deliver({ method: 'weft/threads/indexed', params: {} });
  await server.answer('weft/forks/list', 1, { data: [] });
  // The lists are on their way; a thread starts and is listed at once.
  const started = makeThread({ id: 'thr_3', preview: 'started meanwhile', updatedAt: 300 });
  server.deliver({ method: 'thread/started', params: { thread: started } });
  await new Promise<void>((resolve) => {
    const check = (): boolean => store.getState().data.live.some((t) => t.id === 'thr_3');
    if (check()) return resolve();
    const stop = store.subscribe(() => {
      if (!check()) return;
      stop();
      resolve();
    });
  });
  await server.answer('thread/list', 2, { data: [first], nextCursor: null });
  await server.answer('thread/list', 3, { data: [], nextCursor: null });
  await new Promise<void>((resolve) => {
    const check = (): boolean => !store.getState().ui.indexing;
    if (check()) return resolve();
    const stop = store.subscribe(() => {
      if (!check()) return;
      stop();
      resolve();
    });
  });
  expect(store.getState().data.live.map((t) => t.id)).toEqual(['thr_3', 'thr_1']);
  controller.dispose();
});
