import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkedSignal } from '../../../src-main/util/abort';

describe('linkedSignal', () => {
  it('aborts with the reason of the first source that aborts, and stops following the others', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkedSignal([a.signal, b.signal]);
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(1);
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(1);
    const reason = new Error('turn interrupted');
    b.abort(reason);
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe(reason);
    expect(getEventListeners(a.signal, 'abort')).toEqual([]);
  });

  it('is aborted at once when a source already is', () => {
    const a = new AbortController();
    a.abort('gone');
    const linked = linkedSignal([new AbortController().signal, a.signal]);
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe('gone');
  });

  it('leaves nothing on a source once disposed, and its own abort leaves the sources alone', () => {
    const source = new AbortController();
    const linked = linkedSignal([source.signal]);
    linked.dispose();
    expect(getEventListeners(source.signal, 'abort')).toEqual([]);
    source.abort();
    expect(linked.signal.aborted).toBe(false);

    const other = new AbortController();
    const own = linkedSignal([other.signal]);
    own.abort();
    expect(own.signal.aborted).toBe(true);
    expect(other.signal.aborted).toBe(false);
    expect(getEventListeners(other.signal, 'abort')).toEqual([]);
  });
});
