import { describe, expect, it } from 'vitest';
import { collectUntil, waitFor } from '../../support/wait';
import type { Subscribe } from '../../support/wait';

type Ev = { type: 'delta'; text: string } | { type: 'done'; total: number };

/** A minimal event source that counts its listeners, so tests can check unsubscription. */
function source<T>() {
  const listeners = new Set<(event: T) => void>();
  const subscribe: Subscribe<T> = (listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  return { subscribe, emit: (event: T) => listeners.forEach((l) => l(event)), listenerCount: () => listeners.size };
}

describe('waitFor', () => {
  it('resolves with the first matching event, narrowed by a type guard, and unsubscribes', async () => {
    const events = source<Ev>();
    const done = waitFor(events.subscribe, (e): e is Extract<Ev, { type: 'done' }> => e.type === 'done');

    events.emit({ type: 'delta', text: 'a' });
    events.emit({ type: 'done', total: 1 });
    events.emit({ type: 'done', total: 2 });

    expect((await done).total).toBe(1);
    expect(events.listenerCount()).toBe(0);
  });

  it('handles a source that replays a matching event during subscribe', async () => {
    let unsubscribed = false;
    const replaying: Subscribe<number> = (listener) => {
      listener(7);
      return () => {
        unsubscribed = true;
      };
    };

    expect(await waitFor(replaying, (n) => n === 7)).toBe(7);
    expect(unsubscribed).toBe(true);
  });

  it('rejects after the safety timeout with the label and the last events seen', async () => {
    const events = source<Ev>();
    const pending = waitFor(events.subscribe, (e) => e.type === 'done', { timeoutMs: 20, label: 'turn done' });
    for (const text of ['1', '2', '3', '4', '5', '6']) events.emit({ type: 'delta', text });

    await expect(pending).rejects.toThrow(
      'waitFor(turn done): no matching event within 20 ms (a deadlock guard; nothing should take this long). ' +
        'Saw 6 events, the last 5:\n' +
        ['2', '3', '4', '5', '6'].map((t) => `  {"type":"delta","text":"${t}"}`).join('\n'),
    );
    expect(events.listenerCount()).toBe(0);
  });

  it('rejects with the predicate’s own error when it throws', async () => {
    const events = source<number>();
    const pending = waitFor(events.subscribe, () => {
      throw new Error('bad predicate');
    });
    events.emit(1);

    await expect(pending).rejects.toThrow('bad predicate');
  });
});

describe('collectUntil', () => {
  it('returns every event up to and including the match', async () => {
    const events = source<Ev>();
    const collected = collectUntil(events.subscribe, (e) => e.type === 'done');

    events.emit({ type: 'delta', text: 'a' });
    events.emit({ type: 'delta', text: 'b' });
    events.emit({ type: 'done', total: 2 });
    events.emit({ type: 'delta', text: 'late' });

    expect(await collected).toEqual([
      { type: 'delta', text: 'a' },
      { type: 'delta', text: 'b' },
      { type: 'done', total: 2 },
    ]);
  });
});
