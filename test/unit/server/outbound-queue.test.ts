import { describe, expect, it, vi } from 'vitest';
import { OutboundQueue } from '../../../src-main/server/outbound-queue';
import { delta } from './helpers';

/** A sink that accepts writes while `room` > 0 and reports congestion once it runs out. */
class FakeSink {
  readonly written: unknown[] = [];
  room = Infinity;

  write(text: string): boolean {
    this.written.push(JSON.parse(text));
    this.room -= 1;
    return this.room > 0;
  }
}

function makeQueue(sink: FakeSink, maxQueuedBytes?: number, holdDeltasMs?: number) {
  const logs: string[] = [];
  let overflows = 0;
  const queue = new OutboundQueue(sink, {
    label: 'test-client',
    log: (line) => logs.push(line),
    onOverflow: () => (overflows += 1),
    ...(maxQueuedBytes === undefined ? {} : { maxQueuedBytes }),
    ...(holdDeltasMs === undefined ? {} : { holdDeltasMs }),
  });
  return { queue, logs, overflows: () => overflows };
}

describe('OutboundQueue', () => {
  it('holds a frame of deltas and sends each item’s as one message, anything else at once and in order', async () => {
    vi.useFakeTimers();
    try {
      const sink = new FakeSink();
      const { queue } = makeQueue(sink, undefined, 16);
      for (const text of ['seq 1\n', '2\n', '3\n']) queue.send(delta('cmd', text, 'item/commandExecution/outputDelta'));
      queue.send(delta('msg', 'Writing', 'item/agentMessage/delta'));
      // Held: nothing written yet, and what was sent is not taken yet.
      expect(sink.written).toEqual([]);
      let sent = false;
      void queue.whenSent().then(() => (sent = true));
      await vi.advanceTimersByTimeAsync(16);
      expect(sink.written).toEqual([
        delta('cmd', 'seq 1\n2\n3\n', 'item/commandExecution/outputDelta'),
        delta('msg', 'Writing', 'item/agentMessage/delta'),
      ]);
      expect(sent).toBe(true);
      // An answer while deltas are held goes out at once, after them.
      queue.send(delta('cmd', '4\n', 'item/commandExecution/outputDelta'));
      queue.send({ id: 'list-1', result: { data: [] } });
      expect(sink.written.slice(2)).toEqual([
        delta('cmd', '4\n', 'item/commandExecution/outputDelta'),
        { id: 'list-1', result: { data: [] } },
      ]);
      // Without a hold, the first message is not delayed either.
      queue.send({ method: 'turn/completed', params: {} });
      expect(sink.written).toHaveLength(5);
      await vi.runAllTimersAsync();
      expect(sink.written).toHaveLength(5);
    } finally {
      vi.useRealTimers();
    }
  });

  it('joins each item’s deltas in a hold however the items interleave, each item where it first came', async () => {
    vi.useFakeTimers();
    try {
      const sink = new FakeSink();
      const { queue } = makeQueue(sink, undefined, 16);
      const out = 'item/commandExecution/outputDelta';
      // Eight agents' commands print at once: their deltas come interleaved.
      for (let line = 0; line < 3; line += 1)
        for (const item of ['a', 'b', 'c']) queue.send(delta(item, `${item}${line}\n`, out));
      queue.send(delta('a', 'said', 'item/agentMessage/delta'));
      await vi.advanceTimersByTimeAsync(16);
      expect(sink.written).toEqual([
        delta('a', 'a0\na1\na2\n', out),
        delta('b', 'b0\nb1\nb2\n', out),
        delta('c', 'c0\nc1\nc2\n', out),
        delta('a', 'said', 'item/agentMessage/delta'),
      ]);
      // A message that is not a delta ends the hold: a delta after it is not joined with one before it.
      queue.send(delta('a', 'x', out));
      queue.send({ method: 'item/completed', params: { itemId: 'b' } });
      queue.send(delta('a', 'y', out));
      await vi.advanceTimersByTimeAsync(16);
      expect(sink.written.slice(4)).toEqual([
        delta('a', 'x', out),
        { method: 'item/completed', params: { itemId: 'b' } },
        delta('a', 'y', out),
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('says when what was sent has been taken by the sink without congestion', async () => {
    const sink = new FakeSink();
    const { queue } = makeQueue(sink);
    await queue.whenSent();
    sink.room = 1;
    queue.send({ id: 1, result: 'big' });
    queue.send({ id: 2, result: 'waits' });
    let sent = false;
    void queue.whenSent().then(() => (sent = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toBe(false);
    sink.room = 1;
    queue.drained();
    await new Promise((resolve) => setImmediate(resolve));
    // The waiting message went out, but the sink is congested again: not sent yet.
    expect(sink.written).toHaveLength(2);
    expect(sent).toBe(false);
    sink.room = Infinity;
    queue.drained();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toBe(true);
    // A closed queue has nothing left to send.
    sink.room = 1;
    queue.send({ id: 3, result: 'big' });
    const closing = queue.whenSent();
    queue.close();
    await closing;
  });

  it('writes straight through while the sink keeps up, without merging', () => {
    const sink = new FakeSink();
    const { queue } = makeQueue(sink);
    queue.send(delta('a', 'x'));
    queue.send(delta('a', 'y'));
    expect(sink.written).toEqual([delta('a', 'x'), delta('a', 'y')]);
    expect(queue.queuedMessages).toBe(0);
  });

  it('merges consecutive deltas of the same item while congested, preserving order exactly', () => {
    const sink = new FakeSink();
    const { queue } = makeQueue(sink);
    sink.room = 1;
    queue.send({ id: 7, result: {} }); // fills the sink: everything after this waits
    const summary = (itemId: string, text: string, summaryIndex: number) => ({
      method: 'item/reasoning/summaryTextDelta',
      params: { threadId: 't1', turnId: 'u1', itemId, delta: text, summaryIndex },
    });
    queue.send(delta('a', 'He'));
    queue.send(delta('a', 'll'));
    queue.send(delta('b', '1'));
    queue.send(delta('a', 'o'));
    queue.send({ method: 'item/completed', params: { itemId: 'b' } });
    queue.send(delta('a', ', '));
    queue.send(delta('a', 'world'));
    queue.send(delta('a', '!', 'item/commandExecution/outputDelta'));
    queue.send(delta('a', '?', 'item/commandExecution/outputDelta'));
    queue.send(summary('r', 'p', 0));
    queue.send(summary('r', 'q', 0));
    queue.send(summary('r', 's', 1));
    queue.send({ id: 'req', method: 'item/agentMessage/delta', params: { itemId: 'a', delta: 'as a request' } });
    queue.send(delta('a', 'tail'));
    expect(sink.written).toEqual([{ id: 7, result: {} }]);
    expect(queue.queuedMessages).toBe(10);

    sink.room = Infinity;
    queue.drained();
    expect(sink.written).toEqual([
      { id: 7, result: {} },
      delta('a', 'Hell'),
      delta('b', '1'),
      delta('a', 'o'),
      { method: 'item/completed', params: { itemId: 'b' } },
      delta('a', ', world'),
      delta('a', '!?', 'item/commandExecution/outputDelta'),
      summary('r', 'pq', 0),
      summary('r', 's', 1),
      { id: 'req', method: 'item/agentMessage/delta', params: { itemId: 'a', delta: 'as a request' } },
      delta('a', 'tail'),
    ]);
    expect(queue.queuedMessages).toBe(0);
    expect(queue.queuedBytes).toBe(0);
  });

  it('never merges into a message already handed to the sink', () => {
    const sink = new FakeSink();
    const { queue } = makeQueue(sink);
    sink.room = 1;
    queue.send(delta('a', '1'));
    queue.send(delta('a', '2'));
    queue.send(delta('a', '3'));
    sink.room = 1; // takes the merged "23", then congests again
    queue.drained();
    queue.send(delta('a', '4'));
    queue.send(delta('a', '5'));
    sink.room = Infinity;
    queue.drained();
    expect(sink.written).toEqual([delta('a', '1'), delta('a', '23'), delta('a', '45')]);
  });

  it('keeps queueing behind waiting messages even after the sink has room', async () => {
    const sink = new FakeSink();
    const { queue } = makeQueue(sink);
    sink.room = 1;
    queue.send({ method: 'first', params: {} });
    queue.send({ method: 'second', params: {} });
    const idle = queue.whenIdle();
    sink.room = Infinity;
    queue.send({ method: 'third', params: {} });
    expect(sink.written).toEqual([{ method: 'first', params: {} }]);
    queue.drained();
    await idle;
    expect(sink.written).toEqual([
      { method: 'first', params: {} },
      { method: 'second', params: {} },
      { method: 'third', params: {} },
    ]);
  });

  it('drops the client with one clear log line when the queue passes its byte limit', async () => {
    const sink = new FakeSink();
    const { queue, logs, overflows } = makeQueue(sink, 10_000);
    sink.room = 1;
    queue.send({ method: 'first', params: {} });
    const idle = queue.whenIdle();
    for (let i = 0; i < 20; i += 1) queue.send({ method: 'warning', params: { message: 'z'.repeat(1000) } });
    expect(overflows()).toBe(1);
    expect(queue.closed).toBe(true);
    expect(logs).toEqual([
      expect.stringMatching(
        /^weft: client test-client is not reading fast enough: 1\d{4} bytes of outgoing messages queued \(limit 10000 bytes\); dropping the connection$/,
      ),
    ]);
    await idle;
    queue.drained();
    queue.send({ method: 'late', params: {} });
    expect(sink.written).toEqual([{ method: 'first', params: {} }]);
  });

  it('counts merged deltas against the limit', () => {
    const sink = new FakeSink();
    const { queue, overflows } = makeQueue(sink, 6_000);
    sink.room = 1;
    queue.send({ method: 'first', params: {} });
    for (let i = 0; i < 99; i += 1) queue.send(delta('a', 'd'.repeat(50)));
    expect(queue.queuedMessages).toBe(1);
    expect(queue.queuedBytes).toBeGreaterThan(4950);
    expect(overflows()).toBe(0);
    queue.send(delta('a', 'd'.repeat(1000)));
    expect(overflows()).toBe(1);
  });

  it('logs and drops a message that cannot be serialized, and keeps going', () => {
    const sink = new FakeSink();
    const { queue, logs } = makeQueue(sink);
    const cyclic: Record<string, unknown> = { method: 'warning' };
    cyclic['params'] = cyclic;
    queue.send(cyclic);
    queue.send({ method: 'item/completed', params: { big: 1n } });
    queue.send({ method: 'ok', params: {} });
    expect(sink.written).toEqual([{ method: 'ok', params: {} }]);
    expect(logs).toEqual([
      expect.stringMatching(
        /^weft: dropped an outgoing warning message to test-client: it cannot be sent as JSON \(.*circular/i,
      ),
      expect.stringMatching(
        /^weft: dropped an outgoing item\/completed message to test-client: it cannot be sent as JSON \(.*BigInt/,
      ),
    ]);
  });
  it("sends a waiting turn's snapshot (its diff, plan, usage) only as it is last, where the newest was sent", () => {
    const sink = new FakeSink();
    sink.room = 1;
    const { queue } = makeQueue(sink);
    const diff = (turnId: string, text: string) => ({
      method: 'turn/diff/updated',
      params: { threadId: 't1', turnId, diff: text },
    });
    queue.send({ method: 'turn/started', params: { threadId: 't1' } });
    // The sink is congested now: everything below waits.
    queue.send(diff('a', 'x'.repeat(1000)));
    queue.send({ method: 'item/completed', params: { threadId: 't1', turnId: 'a', item: { id: 'i1' } } });
    queue.send(diff('b', 'other turn'));
    queue.send(diff('a', 'y'.repeat(2000)));
    queue.send({ method: 'turn/plan/updated', params: { threadId: 't1', turnId: 'a', plan: [{ step: 'one' }] } });
    queue.send({ method: 'turn/plan/updated', params: { threadId: 't1', turnId: 'a', plan: [{ step: 'two' }] } });
    // The first diff of turn a no longer counts against the limit.
    expect(queue.queuedBytes).toBeLessThan(2600);
    sink.room = Infinity;
    queue.drained();
    expect(sink.written).toEqual([
      { method: 'turn/started', params: { threadId: 't1' } },
      { method: 'item/completed', params: { threadId: 't1', turnId: 'a', item: { id: 'i1' } } },
      diff('b', 'other turn'),
      diff('a', 'y'.repeat(2000)),
      { method: 'turn/plan/updated', params: { threadId: 't1', turnId: 'a', plan: [{ step: 'two' }] } },
    ]);
    expect(queue.queuedBytes).toBe(0);
    // Once written, a snapshot is not taken back: the next one goes after it.
    queue.send(diff('a', 'z'));
    expect(sink.written.at(-1)).toEqual(diff('a', 'z'));
  });
});
