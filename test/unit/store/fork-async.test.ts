// `forkAsync` and `readAsync` (what the app host calls: they give the event loop back as they go) make and
// read exactly what `fork` and `read` do: the same fork file line for line, the same index row, the same
// turns and model history (read by the fork's first turn), the same errors.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ThreadStore } from '../../../src-main/store';
import type { ForkedThread } from '../../../src-main/store/store-types';
import { acquireThreadLock } from '../../../src-main/store/lock';
import { uuidv7 } from '../../../src-main/util/ids';
import { ScriptedSession, meta, openStore, tempHome, type TempHome } from './helpers';

let tmp: TempHome;
let store: ThreadStore;

beforeEach(async () => {
  tmp = await tempHome();
  ({ store } = openStore(tmp.home));
  await store.whenIndexed();
});

afterEach(async () => {
  await store.close();
  await tmp.dispose();
});

/** A closed thread of `n` turns, each with a user message, an answer of `answerBytes` and its history. */
async function threadOf(n: number, answerBytes = 20): Promise<ScriptedSession> {
  const id = uuidv7();
  const { recorder } = store.createThread(meta(id));
  const s = new ScriptedSession(id, recorder);
  for (let i = 0; i < n; i++) await answeredTurn(s, i, answerBytes);
  await recorder.close();
  return s;
}

async function answeredTurn(s: ScriptedSession, i: number, answerBytes: number): Promise<void> {
  const text = `answer ${i} `.padEnd(answerBytes, 'x');
  await s.turn([{ type: 'text', text: `question ${i}` }], 'completed', (t) => {
    t.history([{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }]);
    t.item({ type: 'agentMessage', id: `${t.turnId}-a`, text, phase: 'final_answer' });
  });
}

/** A fork's file with what differs between two forks of the same source (id, time made) made alike. */
function normalized(fork: ForkedThread): string[] {
  const lines = readFileSync(fork.path, 'utf8').split('\n');
  const first = JSON.parse(lines[0] ?? '{}') as { timestamp: string };
  return lines.map((line) => line.replaceAll(fork.threadId, 'FORK').replaceAll(first.timestamp, 'MADE'));
}

/** Both forks of `threadId` (after `afterTurnId`), the synchronous one first; both recorders closed. */
async function bothForks(threadId: string, afterTurnId: string | null = null): Promise<[ForkedThread, ForkedThread]> {
  const sync = store.fork(threadId, { afterTurnId });
  const later = await store.forkAsync(threadId, { afterTurnId });
  await sync.recorder.close();
  await later.recorder.close();
  return [sync, later];
}

/** The index row of a fork (as `read` without turns gives it), with its id, file and times made alike. */
function indexed(fork: ForkedThread): unknown {
  const { thread } = store.read(fork.threadId);
  return { ...thread, id: 'FORK', sessionId: 'FORK', path: 'PATH', createdAt: 0, updatedAt: 0 };
}

describe('forkAsync', () => {
  it('writes, indexes and loads what fork does, and its first turn reads the same history', async () => {
    const source = await threadOf(4);
    const turn2 = source.transcript.turns[1]?.id ?? '';
    const [sync, later] = await bothForks(source.threadId, turn2);
    expect(normalized(later)).toEqual(normalized(sync));
    expect(indexed(later)).toEqual(indexed(sync));
    expect(later.state.turns).toEqual(sync.state.turns);
    expect(later.state.forkedAtTurnId).toBe(turn2);
    expect(later.state.thread).toEqual({
      ...sync.state.thread,
      id: later.threadId,
      path: later.path,
      sessionId: later.threadId,
      createdAt: later.state.thread.createdAt,
      updatedAt: later.state.thread.updatedAt,
    });
    // The history is located, not read: the fork's first turn reads it.
    expect(later.state.history).toEqual([]);
    expect(await later.state.loadHistory?.()).toEqual({ items: sync.state.history, warnings: [] });
    expect(store.forksOf(source.threadId).map((f) => [f.thread.id, f.forkedAtTurnId])).toEqual([
      [sync.threadId, turn2],
      [later.threadId, turn2],
    ]);

    // It goes on from there, as any thread.
    const { recorder } = store.openForAppend(later.threadId);
    const cont = new ScriptedSession(later.threadId, recorder);
    await cont.turn([{ type: 'text', text: 'a different direction' }], 'completed');
    await recorder.close();
    const after = store.load(later.threadId);
    expect(after.turns.map((t) => t.id)).toEqual([...sync.state.turns.map((t) => t.id), cont.transcript.turns[0]?.id]);
    expect(after.history).toEqual([...sync.state.history, ...cont.transcript.history]);
  });

  it('closes a turn that never ended as interrupted, as fork does', async () => {
    const id = uuidv7();
    const { recorder } = store.createThread(meta(id));
    const s = new ScriptedSession(id, recorder);
    await answeredTurn(s, 0, 20);
    recorder.notification({
      method: 'turn/started',
      params: {
        threadId: id,
        turn: {
          id: 'cut',
          items: [],
          status: 'inProgress',
          error: null,
          startedAt: 5,
          completedAt: null,
          durationMs: null,
        },
      },
    });
    await recorder.close();
    const [sync, later] = await bothForks(id);
    expect(normalized(later)).toEqual(normalized(sync));
    expect(normalized(later).at(-2)).toContain('"type":"turn_aborted","turn_id":"cut"');
    expect(later.state.turns).toEqual(sync.state.turns);
  });

  it('copies a big thread cut from its saved outline, continued past it, as fork does', async () => {
    // Over a megabyte: its outline is kept by a read, and then the thread grows.
    const source = await threadOf(30, 40_000);
    store.read(source.threadId, { includeTurns: true, turnsLimit: 1 });
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(readdirSync(join(tmp.home, 'outlines'))).toEqual([`${source.threadId}.outline`]);
    const { recorder } = store.openForAppend(source.threadId);
    const more = new ScriptedSession(source.threadId, recorder);
    await answeredTurn(more, 30, 40_000);
    await recorder.close();

    const cut = source.transcript.turns[20]?.id ?? '';
    const [sync, later] = await bothForks(source.threadId, cut);
    expect(normalized(later)).toEqual(normalized(sync));
    const [wholeSync, wholeLater] = await bothForks(source.threadId);
    expect(normalized(wholeLater)).toEqual(normalized(wholeSync));
    expect(wholeLater.state.turns.map((t) => t.id)).toEqual([
      ...source.transcript.turns.map((t) => t.id),
      more.transcript.turns[0]?.id,
    ]);
  });

  it('refuses a turn the thread does not have, leaving no file or lock behind', async () => {
    const source = await threadOf(1);
    const folder = dirname(store.read(source.threadId).thread.path ?? '');
    const before = readdirSync(folder);
    await expect(store.forkAsync(source.threadId, { afterTurnId: 'no-such-turn' })).rejects.toThrow(
      /has no turn no-such-turn/,
    );
    expect(readdirSync(folder)).toEqual(before);
    // Every lock taken (the fork's too) can be taken again: none is held.
    const locks = readdirSync(join(tmp.home, 'locks')).map((f) => f.replace(/\.lock$/, ''));
    expect(locks).toHaveLength(2);
    for (const id of locks) acquireThreadLock(tmp.home, id).release();
  });
});

describe('readAsync', () => {
  it('reads what read does: all turns, a page and the next, or the index row', async () => {
    const source = await threadOf(7);
    for (const options of [{ includeTurns: true }, { includeTurns: true, turnsLimit: 3 }, {}]) {
      expect(await store.readAsync(source.threadId, options)).toEqual(store.read(source.threadId, options));
    }
    const page = store.read(source.threadId, { includeTurns: true, turnsLimit: 3 });
    const next = { includeTurns: true, turnsLimit: 3, turnsCursor: page.olderTurnsCursor };
    expect(await store.readAsync(source.threadId, next)).toEqual(store.read(source.threadId, next));
    await expect(store.readAsync(uuidv7(), { includeTurns: true })).rejects.toThrow(/not found|no thread/i);
  });
});
