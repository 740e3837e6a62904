// The items one model request makes, across its attempts: a retry carries on the items a failed attempt
// began (same ids), sends clients only what they do not hold yet, and records only what the attempt that
// ends the request said.
import { describe, expect, it } from 'vitest';
import type { ThreadItem } from '../../../src-preload/protocol';
import { SampleCollector, type CollectorHost } from '../../../src-main/core/sample-collector';
import { Slicer } from '../../../src-main/util/slicer';
import type { ModelEvent } from '../../../src-main/model/types';
import type { CoreNotification } from '../../../src-main/tools/types';

interface Seen {
  sent: CoreNotification[];
  recorded: CoreNotification[];
  withdrawn: ThreadItem[];
}

function fakeHost(): { host: CollectorHost; seen: Seen } {
  const seen: Seen = { sent: [], recorded: [], withdrawn: [] };
  return {
    seen,
    host: {
      announce: (n) => {
        seen.sent.push(n);
        return () => seen.recorded.push(n);
      },
      withdraw: (_turnId, item) => seen.withdrawn.push(item),
    },
  };
}

const delta = (text: string): ModelEvent => ({ type: 'outputTextDelta', itemId: 'msg_1', outputIndex: 0, delta: text });
const done = (text: string): ModelEvent => ({
  type: 'outputItemDone',
  outputIndex: 0,
  item: {
    type: 'message',
    id: 'msg_1',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [] }],
  },
});
const completed: ModelEvent = {
  type: 'completed',
  responseId: 'resp',
  usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1, reasoningOutputTokens: 0, totalTokens: 2 },
};

function attempt(collector: SampleCollector, events: ModelEvent[]): void {
  for (const e of events) collector.handle(e);
}

/** What clients were sent, compactly: started/completed items and deltas. */
function wire(seen: Seen): unknown[] {
  return seen.sent.map((n) => {
    if (n.method === 'item/started' || n.method === 'item/completed') return [n.method, n.params.item];
    if (n.method === 'item/agentMessage/delta') return [n.method, n.params.itemId, n.params.delta];
    return [n.method];
  });
}

describe('SampleCollector across attempts', () => {
  it('sends what clients lack when the retry says the same and more, and records the retry only', async () => {
    const { host, seen } = fakeHost();
    const first = new SampleCollector('t', 'turn', host);
    attempt(first, [delta('abc'), delta('def')]);
    const second = new SampleCollector('t', 'turn', host, first.suspend());
    attempt(second, [delta('ab'), delta('cd'), delta('efgh'), done('abcdefgh'), completed]);
    const outcome = await second.outcome();
    const id = seen.sent[0]?.method === 'item/started' ? seen.sent[0].params.item.id : '';
    expect(wire(seen)).toEqual([
      ['item/started', { type: 'agentMessage', id, text: '', phase: null }],
      ['item/agentMessage/delta', id, 'abc'],
      ['item/agentMessage/delta', id, 'def'],
      ['item/agentMessage/delta', id, 'gh'],
      ['item/completed', { type: 'agentMessage', id, text: 'abcdefgh', phase: null }],
    ]);
    expect(seen.recorded).toEqual([seen.sent[4]]);
    expect(seen.withdrawn).toEqual([]);
    expect(outcome.items).toHaveLength(1);
  });

  it('sends nothing more once the retry departs from what clients hold; the completion says it all', async () => {
    const { host, seen } = fakeHost();
    const first = new SampleCollector('t', 'turn', host);
    attempt(first, [delta('Hello wor')]);
    const second = new SampleCollector('t', 'turn', host, first.suspend());
    attempt(second, [delta('Hi'), delta(' there, and more'), done('Hi there, and more'), completed]);
    await second.outcome();
    const id = seen.sent[0]?.method === 'item/started' ? seen.sent[0].params.item.id : '';
    expect(wire(seen)).toEqual([
      ['item/started', { type: 'agentMessage', id, text: '', phase: null }],
      ['item/agentMessage/delta', id, 'Hello wor'],
      ['item/completed', { type: 'agentMessage', id, text: 'Hi there, and more', phase: null }],
    ]);
    expect(seen.recorded).toEqual([seen.sent[2]]);
  });

  it('withdraws what a failed attempt began and the retry never said again', async () => {
    const { host, seen } = fakeHost();
    const first = new SampleCollector('t', 'turn', host);
    attempt(first, [delta('Let me')]);
    const second = new SampleCollector('t', 'turn', host, first.suspend());
    attempt(second, [
      {
        type: 'outputItemDone',
        outputIndex: 0,
        item: { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{}' },
      },
      completed,
    ]);
    const outcome = await second.outcome();
    const id = seen.sent[0]?.method === 'item/started' ? seen.sent[0].params.item.id : '';
    expect(seen.withdrawn).toEqual([{ type: 'agentMessage', id, text: '', phase: null }]);
    expect(seen.recorded).toEqual([]);
    expect(outcome.toolCalls).toEqual([{ kind: 'function', callId: 'c1', name: 'exec_command', arguments: '{}' }]);
  });

  it('completes and records a failed attempt as clients saw it when no attempt follows', async () => {
    const { host, seen } = fakeHost();
    const first = new SampleCollector('t', 'turn', host);
    attempt(first, [delta('partial answer')]);
    await SampleCollector.close('t', 'turn', host, first.suspend());
    const id = seen.sent[0]?.method === 'item/started' ? seen.sent[0].params.item.id : '';
    const last = { type: 'agentMessage', id, text: 'partial answer', phase: null };
    expect(wire(seen).at(-1)).toEqual(['item/completed', last]);
    expect(seen.recorded).toEqual([seen.sent.at(-1)]);
  });

  it('keeps the last attempt of a request that fails for good as it was streamed', async () => {
    const { host, seen } = fakeHost();
    const first = new SampleCollector('t', 'turn', host);
    attempt(first, [delta('one two')]);
    const last = new SampleCollector('t', 'turn', host, first.suspend());
    attempt(last, [delta('one')]);
    await last.abandon();
    const id = seen.sent[0]?.method === 'item/started' ? seen.sent[0].params.item.id : '';
    expect(wire(seen)).toEqual([
      ['item/started', { type: 'agentMessage', id, text: '', phase: null }],
      ['item/agentMessage/delta', id, 'one two'],
      ['item/completed', { type: 'agentMessage', id, text: 'one', phase: null }],
    ]);
    expect(seen.recorded).toEqual([seen.sent[2]]);
  });

  it('records a long attempt in slices: the event loop runs between its records', async () => {
    // 10,000 items recorded in one stretch once the attempt succeeded held the event loop 100 ms.
    const { host, seen } = fakeHost();
    const collector = new SampleCollector('t', 'turn', host);
    const items = 50;
    for (let i = 0; i < items; i++) {
      const item = {
        type: 'message' as const,
        id: `msg_${i}`,
        role: 'assistant' as const,
        content: [{ type: 'output_text' as const, text: `part ${i}`, annotations: [] }],
      };
      collector.handle({ type: 'outputItemAdded', item, outputIndex: i });
      collector.handle({ type: 'outputItemDone', item, outputIndex: i });
    }
    collector.handle(completed);
    expect(seen.recorded).toEqual([]);
    let recordedWhenTheLoopRan = -1;
    setImmediate(() => (recordedWhenTheLoopRan = seen.recorded.length));
    // A slice of 0 ms is always used up: the collector pauses after every record.
    const outcome = await collector.outcome(new Slicer(0));
    expect(outcome.items).toHaveLength(items);
    expect(seen.recorded.map((n) => (n.method === 'item/completed' ? n.params.item.type : n.method))).toEqual(
      Array.from({ length: items }, () => 'agentMessage'),
    );
    expect(recordedWhenTheLoopRan).toBeGreaterThan(0);
    expect(recordedWhenTheLoopRan).toBeLessThan(items);
  });

  it('records a failed attempt that no retry follows in slices too', async () => {
    const { host, seen } = fakeHost();
    const first = new SampleCollector('t', 'turn', host);
    for (let i = 0; i < 20; i++)
      first.handle({ type: 'outputTextDelta', itemId: `msg_${i}`, outputIndex: i, delta: `text ${i}` });
    const left = first.suspend();
    let recordedWhenTheLoopRan = -1;
    setImmediate(() => (recordedWhenTheLoopRan = seen.recorded.length));
    await SampleCollector.close('t', 'turn', host, left, new Slicer(0));
    expect(seen.recorded).toHaveLength(20);
    expect(recordedWhenTheLoopRan).toBeGreaterThan(0);
    expect(recordedWhenTheLoopRan).toBeLessThan(20);
  });
});
