// The rollout writer batches: lines recorded in one event-loop turn go out in one asynchronous write, never
// a synchronous write per recorder call. Turn end, close and the store's shutdown write and fsync what is
// queued, so nothing recorded is lost by the batching there.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as fs from 'node:fs';
type Fs = typeof fs;
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RolloutWriter } from '../../../src-main/store/rollout-writer';
import type { ThreadStore } from '../../../src-main/store';
import { uuidv7 } from '../../../src-main/util/ids';
import { meta, openStore, tempHome, type TempHome } from './helpers';

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<Fs>();
  return { ...real, write: vi.fn(real.write), writeSync: vi.fn(real.writeSync) };
});

let tmp: TempHome;

beforeEach(async () => {
  tmp = await tempHome();
  vi.mocked(fs.write).mockClear();
  vi.mocked(fs.writeSync).mockClear();
});

afterEach(async () => {
  await tmp.dispose();
});

function writerFor(path: string): RolloutWriter {
  writeFileSync(path, '');
  const writer = new RolloutWriter({
    threadId: 'batch',
    path,
    create: null,
    lock: () => ({ threadId: 'batch', release: () => undefined }),
    onError: (e) => {
      throw e;
    },
  });
  writer.openExisting();
  return writer;
}

const line = (n: number): string => JSON.stringify({ n, text: `line ${n}` });

/** The pieces of `{"big":"<piece × count>"}`, each taking `ms` of CPU to make (as escaping a long string does). */
function* slowPieces(count: number, ms: number, piece: string, made: () => void): Generator<string> {
  yield '{"big":"';
  for (let n = 0; n < count; n++) {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      // The cost of escaping a long string.
    }
    made();
    yield piece;
  }
  yield '"}';
}
const linesOf = (path: string): string[] => readFileSync(path, 'utf8').split('\n').slice(0, -1);

describe('batched rollout writes', () => {
  it('writes every line of one event-loop turn in one asynchronous write, none synchronously', async () => {
    const path = join(tmp.home, 'rollout.jsonl');
    const writer = writerFor(path);
    for (let i = 0; i < 1000; i++) writer.append([line(i)]);
    expect(statSync(path).size).toBe(0);
    await writer.written();
    expect(linesOf(path)).toEqual(Array.from({ length: 1000 }, (_, i) => line(i)));
    expect(vi.mocked(fs.write)).toHaveBeenCalledTimes(1);
    expect(vi.mocked(fs.writeSync)).not.toHaveBeenCalled();
    await writer.close();
  });

  it('queues lines behind a write in flight and writes them all in the next one, in order', async () => {
    const path = join(tmp.home, 'rollout.jsonl');
    const writer = writerFor(path);
    writer.append([line(0)]);
    await new Promise((resolve) => setImmediate(resolve));
    // The first batch is in flight now (or done); these two turns' lines queue behind it.
    writer.append([line(1)]);
    await new Promise((resolve) => setImmediate(resolve));
    writer.append([line(2), line(3)]);
    await writer.written();
    expect(linesOf(path)).toEqual([0, 1, 2, 3].map(line));
    expect(vi.mocked(fs.write).mock.calls.length).toBeLessThanOrEqual(3);
    await writer.close();
  });

  it('serializes a huge batch given as functions a slice per event-loop turn, in order', async () => {
    const path = join(tmp.home, 'rollout.jsonl');
    const writer = writerFor(path);
    const total = 20_000;
    const body = 'x'.repeat(2000);
    let made = 0;
    writer.append(
      Array.from({ length: total }, (_, n) => () => {
        made++;
        return JSON.stringify({ n, body });
      }),
    );
    expect(made).toBe(0);
    // Other work gets event-loop turns while the batch is serialized.
    const seen: number[] = [];
    let done = false;
    const tick = (): void => {
      seen.push(made);
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    await writer.written();
    done = true;
    expect(seen.some((m) => m > 0 && m < total)).toBe(true);
    const lines = linesOf(path);
    expect(lines).toHaveLength(total);
    expect(lines.every((l, n) => (JSON.parse(l) as { n: number }).n === n)).toBe(true);
    await writer.close();
  });

  it('serializes one huge line made in pieces over several event-loop turns, and writes it whole, in order', async () => {
    const path = join(tmp.home, 'rollout.jsonl');
    const writer = writerFor(path);
    // A line of 64 pieces that each take a few milliseconds, between two plain lines.
    let pulled = 0;
    writer.append([line(0), () => slowPieces(64, 2, 'y'.repeat(1000), () => pulled++), line(2)]);
    const seen: number[] = [];
    let done = false;
    const tick = (): void => {
      seen.push(pulled);
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    await writer.written();
    done = true;
    // Other work ran while the line was half made; the file never held part of it.
    expect(seen.some((p) => p > 0 && p < 64)).toBe(true);
    expect(linesOf(path)).toEqual([line(0), JSON.stringify({ big: 'y'.repeat(64_000) }), line(2)]);
    await writer.close();
  });

  it('shares one slice per event-loop turn among all writers: eight threads ending at once do not hold the loop eight slices', async () => {
    // Eight threads' writers each get a line of 24 pieces that take a millisecond each (the cost of
    // escaping a long string), all queued in the same turn, as when eight turns end together.
    let pulled = 0;
    const writers = Array.from({ length: 8 }, (_, i) => writerFor(join(tmp.home, `rollout-${i}.jsonl`)));
    for (const writer of writers) writer.append([() => slowPieces(24, 1, 'z'.repeat(100), () => pulled++)]);
    const perTurn: number[] = [];
    let last = 0;
    let done = false;
    const tick = (): void => {
      perTurn.push(pulled - last);
      last = pulled;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    await Promise.all(writers.map((writer) => writer.written()));
    done = true;
    expect(pulled).toBe(8 * 24);
    // One slice (8 ms) of pieces between two turns of the loop, whichever writers made them; a slice per
    // writer would be up to 64.
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(12);
    for (const [i, writer] of writers.entries()) {
      expect(linesOf(join(tmp.home, `rollout-${i}.jsonl`))).toEqual([JSON.stringify({ big: 'z'.repeat(2400) })]);
      await writer.close();
    }
  });

  it('close writes and fsyncs what is queued in the same turn', async () => {
    const path = join(tmp.home, 'rollout.jsonl');
    const writer = writerFor(path);
    writer.append([line(1), line(2)]);
    await writer.close();
    expect(linesOf(path)).toEqual([line(1), line(2)]);
  });
});

describe('the recorder flushes', () => {
  let store: ThreadStore;

  beforeEach(async () => {
    ({ store } = openStore(tmp.home));
    await store.whenIndexed();
  });

  afterEach(async () => {
    await store.close();
  });

  const turn = (id: string, status: 'inProgress' | 'completed') => ({
    id,
    items: [],
    status,
    error: null,
    startedAt: 1,
    completedAt: status === 'completed' ? 2 : null,
    durationMs: status === 'completed' ? 1000 : null,
  });

  function recordTurn(recorder: ReturnType<ThreadStore['createThread']>['recorder'], threadId: string): void {
    recorder.notification({ method: 'turn/started', params: { threadId, turn: turn('t1', 'inProgress') } });
    for (let i = 0; i < 50; i++) {
      recorder.responseItems([{ type: 'function_call_output', call_id: `c${i}`, output: `out ${i}` }]);
      recorder.notification({
        method: 'item/completed',
        params: {
          threadId,
          turnId: 't1',
          item: { type: 'agentMessage', id: `m${i}`, text: `message ${i}`, phase: null },
          completedAtMs: 1,
        },
      });
    }
    recorder.notification({ method: 'turn/completed', params: { threadId, turn: turn('t1', 'completed') } });
  }

  it('at turn end: every line recorded in the turn is in the file when turnEnded resolves', async () => {
    const id = uuidv7();
    const { recorder, path } = store.createThread(meta(id));
    recordTurn(recorder, id);
    await recorder.turnEnded();
    const text = readFileSync(path, 'utf8');
    for (let i = 0; i < 50; i++) {
      expect(text).toContain(`"call_id":"c${i}"`);
      expect(text).toContain(`"id":"m${i}"`);
    }
    expect(text).toContain('"type":"task_complete"');
    await recorder.close();
  });

  it('at shutdown: closing the store writes what its open recorders recorded in the same turn', async () => {
    const id = uuidv7();
    const { recorder, path } = store.createThread(meta(id));
    recordTurn(recorder, id);
    await store.close();
    const loaded = openStore(tmp.home).store;
    try {
      const state = loaded.load(id);
      expect(state.turns.map((t) => t.status)).toEqual(['completed']);
      expect(state.turns[0]?.items.map((i) => i.id)).toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`));
      expect(state.history).toHaveLength(50);
      expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
    } finally {
      await loaded.close();
    }
  });
});
