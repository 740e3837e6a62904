// The handler table an app host answers with before it is whole (server/late-handlers.ts): every method
// waits for the table made later; making it starts at the first call, or once no request came for a
// while, never after the host stopped waiting; and a table that could not be made fails each call with why.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Client, HandlerTable } from '../../../src-main/server/dispatcher';
import { lateHandlers } from '../../../src-main/server/late-handlers';

const client = {} as Client;

/** A table whose `thread/loaded/list` answers `ids`; `made` counts how often it was made. */
function maker(ids: string[]): { make: () => Promise<HandlerTable>; made: () => number } {
  let count = 0;
  return {
    make: async () => {
      count += 1;
      return { 'thread/loaded/list': async () => ({ data: ids, nextCursor: null }) } as unknown as HandlerTable;
    },
    made: () => count,
  };
}

describe('lateHandlers', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('makes the table at the first call of any method, once, and answers with it', async () => {
    const { make, made } = maker(['a']);
    const late = lateHandlers(make);
    expect(made()).toBe(0);
    const [first, second] = await Promise.all([
      late.handlers['thread/loaded/list']({}, client),
      late.handlers['thread/loaded/list']({}, client),
    ]);
    expect(first).toEqual({ data: ['a'], nextCursor: null });
    expect(second).toEqual(first);
    expect(made()).toBe(1);
    await late.ready;
  });

  it('has a handler for every method of the protocol', () => {
    const late = lateHandlers(maker([]).make);
    for (const method of ['initialize', 'thread/start', 'turn/start', 'config/read', 'fs/readFile'] as const)
      expect(typeof late.handlers[method]).toBe('function');
  });

  it('makes it once no request came for the quiet time, each request starting the wait again', async () => {
    const { make, made } = maker([]);
    const late = lateHandlers(make);
    late.startWhenQuiet(500, 5_000);
    await vi.advanceTimersByTimeAsync(400);
    late.touch();
    await vi.advanceTimersByTimeAsync(400);
    expect(made()).toBe(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(made()).toBe(1);
    await late.ready;
  });

  it('makes it at the latest after the longest wait, however busy the client', async () => {
    const { make, made } = maker([]);
    const late = lateHandlers(make);
    late.startWhenQuiet(500, 2_000);
    for (let t = 0; t < 1_900; t += 100) {
      await vi.advanceTimersByTimeAsync(100);
      late.touch();
    }
    expect(made()).toBe(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(made()).toBe(1);
  });

  it('makes nothing once the host stopped waiting (it is closing)', async () => {
    const { make, made } = maker([]);
    const late = lateHandlers(make);
    late.startWhenQuiet(500, 5_000);
    late.stopWaiting();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(made()).toBe(0);
    await late.settled();
  });

  it('fails every call with the reason the table could not be made', async () => {
    const late = lateHandlers(() => Promise.reject(new Error('the checkpoints folder cannot be read')));
    await expect(late.handlers['thread/loaded/list']({}, client)).rejects.toThrow('the checkpoints folder');
    await expect(late.ready).rejects.toThrow('the checkpoints folder');
    await late.settled();
  });
});
