import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { StoreError, ThreadLockedError, type ThreadStore } from '../../../src-main/store';
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

/** A closed thread of `n` turns, each with a user message, an answer and history. */
async function threadOf(
  n: number,
  body?: (i: number) => Parameters<ScriptedSession['turn']>[2],
): Promise<ScriptedSession> {
  const id = uuidv7();
  const { recorder } = store.createThread(meta(id));
  const s = new ScriptedSession(id, recorder);
  for (let i = 0; i < n; i++) {
    await s.turn(
      [{ type: 'text', text: `question ${i}` }],
      'completed',
      body?.(i) ??
        ((t) => {
          t.history([{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer ${i}` }] }]);
          t.item({ type: 'agentMessage', id: `${t.turnId}-a`, text: `answer ${i}`, phase: 'final_answer' });
        }),
    );
  }
  await recorder.close();
  return s;
}

/** History items up to the end of turn `k` (1-based): each turn adds two in `threadOf`. */
const historyUpTo = (s: ScriptedSession, k: number) => s.transcript.history.slice(0, 2 * k);

describe('fork', () => {
  it('copies the thread up to the end of a chosen turn, keeps lineage, and continues on its own', async () => {
    const source = await threadOf(4);
    const turn2 = source.transcript.turns[1]?.id ?? '';
    const fork = store.fork(source.threadId, { afterTurnId: turn2 });
    expect(fork.state.turns).toEqual(source.transcript.turns.slice(0, 2));
    expect(fork.state.history).toEqual(historyUpTo(source, 2));
    expect(fork.state.thread).toMatchObject({
      id: fork.threadId,
      forkedFromId: source.threadId,
      preview: 'question 0',
      path: fork.path,
    });
    expect(fork.state.forkedAtTurnId).toBe(turn2);
    expect(store.forksOf(source.threadId).map((f) => [f.thread.id, f.forkedAtTurnId])).toEqual([
      [fork.threadId, turn2],
    ]);
    expect(store.list().data.map((t) => t.id)).toEqual([fork.threadId, source.threadId]);

    const cont = new ScriptedSession(fork.threadId, fork.recorder);
    await cont.turn([{ type: 'text', text: 'a different direction' }], 'completed');
    await fork.recorder.close();
    const after = store.load(fork.threadId);
    expect(after.turns.map((t) => t.id)).toEqual([
      ...source.transcript.turns.slice(0, 2).map((t) => t.id),
      cont.transcript.turns[0]?.id,
    ]);
    expect(after.history).toEqual([...historyUpTo(source, 2), ...cont.transcript.history]);
    expect(store.load(source.threadId).turns).toEqual(source.transcript.turns);
  });

  it('forks the whole thread, closing a turn that never ended as interrupted', async () => {
    const id = uuidv7();
    const { recorder } = store.createThread(meta(id));
    const s = new ScriptedSession(id, recorder);
    await s.turn([{ type: 'text', text: 'done turn' }], 'completed');
    const turnId = 'turn-cut-short';
    recorder.notification({
      method: 'turn/started',
      params: {
        threadId: id,
        turn: {
          id: turnId,
          items: [],
          status: 'inProgress',
          error: null,
          startedAt: 5,
          completedAt: null,
          durationMs: null,
        },
      },
    });
    recorder.notification({
      method: 'item/completed',
      params: {
        threadId: id,
        turnId,
        item: { type: 'userMessage', id: 'u', content: [{ type: 'text', text: 'never answered' }] },
        completedAtMs: 6_000,
      },
    });
    await recorder.close();

    expect(store.load(id).turns[1]).toMatchObject({ id: turnId, status: 'interrupted', completedAt: null });
    const fork = store.fork(id);
    await fork.recorder.close();
    expect(fork.state.turns).toEqual(store.load(id).turns);
    const lines = readFileSync(fork.path, 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines[lines.length - 1] ?? '{}')).toMatchObject({
      type: 'event_msg',
      payload: { type: 'turn_aborted', turn_id: turnId, reason: 'interrupted' },
    });
  });

  it('refuses a turn the thread does not have', async () => {
    const source = await threadOf(1);
    expect(() => store.fork(source.threadId, { afterTurnId: 'no-such-turn' })).toThrow(/has no turn no-such-turn/);
  });
});

describe('rollback', () => {
  it('drops the last turns from the UI and the model history, keeping every line on disk', async () => {
    const source = await threadOf(4);
    const path = store.read(source.threadId).thread.path ?? '';
    const sizeBefore = readFileSync(path).length;
    const state = await store.rollback(source.threadId, 2);
    expect(state.turns).toEqual(source.transcript.turns.slice(0, 2));
    expect(state.history).toEqual(historyUpTo(source, 2));
    const text = readFileSync(path, 'utf8');
    expect(text.length).toBeGreaterThan(sizeBefore);
    expect(text.trimEnd().split('\n').pop()).toContain('"thread_rolled_back","num_turns":2');
    await expect(store.rollback(source.threadId, 3)).rejects.toThrow(/has 2 turn\(s\); it cannot roll back 3/);
    await expect(store.rollback(source.threadId, 0)).rejects.toThrow(StoreError);

    const fork = store.fork(source.threadId);
    await fork.recorder.close();
    expect(fork.state.turns).toEqual(state.turns);
    expect(fork.state.history).toEqual(state.history);
  });

  it('rolls back through the open recorder and goes on from there', async () => {
    const source = await threadOf(3);
    const { recorder } = store.openForAppend(source.threadId);
    const state = await store.rollback(source.threadId, 1);
    expect(state.turns).toHaveLength(2);
    const cont = new ScriptedSession(source.threadId, recorder);
    await cont.turn([{ type: 'text', text: 'after rollback' }], 'completed');
    await recorder.close();
    const after = store.load(source.threadId);
    expect(after.turns.map((t) => t.id)).toEqual([
      source.transcript.turns[0]?.id,
      source.transcript.turns[1]?.id,
      cont.transcript.turns[0]?.id,
    ]);
    expect(after.history).toEqual([...historyUpTo(source, 2), ...cont.transcript.history]);
  });

  it('restores the history from before a compaction that is rolled back', async () => {
    const id = uuidv7();
    const { recorder } = store.createThread(meta(id));
    const s = new ScriptedSession(id, recorder);
    await s.turn([{ type: 'text', text: 'one' }], 'completed');
    const beforeCompaction = [...s.transcript.history];
    await s.turn([{ type: 'text', text: 'two' }], 'completed', (t) => {
      t.compact('summary', [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'summary' }] }]);
    });
    await s.turn([{ type: 'text', text: 'three' }], 'completed');
    await recorder.close();
    expect(store.load(id).history).toEqual(s.transcript.history);
    const rolled = await store.rollback(id, 2);
    expect(rolled.history).toEqual(beforeCompaction);
    const rolledOne = await store.rollback(id, 1);
    expect(rolledOne.turns).toEqual([]);
    expect(rolledOne.history).toEqual([]);
  });
});

describe('archive, unarchive, rename', () => {
  it('moves the rollout to archived_sessions and back, never deleting it', async () => {
    const s = await threadOf(2);
    const path = store.read(s.threadId).thread.path ?? '';
    const bytes = readFileSync(path);
    store.archive(s.threadId);
    const archivedPath = join(tmp.home, 'archived_sessions', basename(path));
    expect(existsSync(path)).toBe(false);
    expect(readFileSync(archivedPath)).toEqual(bytes);
    expect(store.list().data).toEqual([]);
    expect(store.list({ archived: true }).data.map((t) => t.path)).toEqual([archivedPath]);
    expect(store.load(s.threadId).turns).toEqual(s.transcript.turns);
    const thread = store.unarchive(s.threadId);
    expect(thread.path).toBe(path);
    expect(dirname(path)).toMatch(/sessions\/\d{4}\/\d{2}\/\d{2}$/);
    expect(readFileSync(path)).toEqual(bytes);
    expect(store.list().data.map((t) => t.id)).toEqual([s.threadId]);
  });

  it('renames through the rollout so the name survives a reindex', async () => {
    const s = await threadOf(1);
    await store.setName(s.threadId, 'My name');
    expect(store.list().data[0]?.name).toBe('My name');
    await store.reindex();
    expect(store.list().data[0]?.name).toBe('My name');
    expect(store.load(s.threadId).thread.name).toBe('My name');
    await store.setName(s.threadId, '');
    expect(store.load(s.threadId).thread.name).toBeNull();
  });

  it('refuses to archive a thread this window has open', async () => {
    const s = await threadOf(1);
    const { recorder } = store.openForAppend(s.threadId);
    expect(() => store.archive(s.threadId)).toThrow(/open in this window/);
    await recorder.close();
    store.archive(s.threadId);
  });
});

describe('the write lock', () => {
  it('lets one writer at a time open a thread in this process', async () => {
    const s = await threadOf(1);
    const first = store.openForAppend(s.threadId);
    expect(() => store.openForAppend(s.threadId)).toThrow(new ThreadLockedError(s.threadId));
    expect(() => store.openForAppend(s.threadId)).toThrow(`thread ${s.threadId} is open in another window`);
    await first.recorder.close();
    const second = store.openForAppend(s.threadId);
    await second.recorder.close();
  });

  it('opens a thread the same way without holding the event loop, one opener at a time', async () => {
    const s = await threadOf(3);
    const reading = store.openForAppendAsync(s.threadId, { turnsLimit: 2 });
    // While the first opener reads the file, the thread is taken.
    expect(() => store.openForAppend(s.threadId)).toThrow(new ThreadLockedError(s.threadId));
    const opened = await reading;
    const sync = store.load(s.threadId, { turnsLimit: 2 });
    expect(opened.state.thread).toEqual(sync.thread);
    // The history is left for the first turn: only its lines were located.
    expect(opened.state.history).toEqual([]);
    expect(sync.history.length).toBeGreaterThan(0);
    expect(await opened.state.loadHistory?.()).toEqual({ items: sync.history, warnings: [] });
    expect(opened.state.totalTurns).toBe(3);
    await opened.recorder.close();
    const again = store.openForAppend(s.threadId);
    await again.recorder.close();
  });

  it("numbers the lines it appends after the file's last, read without holding the event loop", async () => {
    const ordinals = (path: string): number[] =>
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => (JSON.parse(l) as { ordinal?: number }).ordinal ?? -1);
    const s = await threadOf(2);
    const path = store.load(s.threadId).thread.path ?? '';
    const before = ordinals(path);
    const opened = await store.openForAppendAsync(s.threadId);
    await store.setName(s.threadId, 'renamed');
    await opened.recorder.close();
    expect(ordinals(path)).toEqual([...before, (before.at(-1) ?? 0) + 1]);

    // A file whose lines carry no ordinal (older writers): the next one is the number of lines.
    const bare = readFileSync(path, 'utf8').replace(/"ordinal":\d+,/g, '');
    writeFileSync(path, bare);
    const lines = bare.split('\n').length - 1;
    const again = await store.openForAppendAsync(s.threadId);
    await store.setName(s.threadId, 'renamed again');
    await again.recorder.close();
    expect(ordinals(path).at(-1)).toBe(lines);
  });

  it('refuses a thread another process is writing, and frees it when that process dies', async () => {
    const s = await threadOf(1);
    const lockFile = join(tmp.home, 'locks', `${s.threadId}.lock`);
    const child = spawn(process.execPath, [
      '-e',
      `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))});
       const db = new D(${JSON.stringify(lockFile)}, { timeout: 0 });
       db.exec('BEGIN EXCLUSIVE'); process.stdout.write('locked\\n'); setInterval(() => {}, 1000);`,
    ]);
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => (d.toString().includes('locked') ? resolve() : undefined));
      child.on('exit', (code) => reject(new Error(`lock holder exited with ${code}`)));
    });
    expect(() => store.openForAppend(s.threadId)).toThrow(`thread ${s.threadId} is open in another window`);
    await expect(store.setName(s.threadId, 'x')).rejects.toThrow(ThreadLockedError);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const opened = store.openForAppend(s.threadId);
    await opened.recorder.close();
  });
});

describe('a resumed thread’s history, read later', () => {
  it('is only located when the thread is opened, and read (with what it had to skip) when asked', async () => {
    const s = await threadOf(3);
    const path = store.load(s.threadId).thread.path ?? '';
    // Tear one history line (the second turn's answer): valid lines around it stay readable.
    const lines = readFileSync(path, 'utf8').split('\n');
    const torn = lines.findIndex((l) => l.includes('"response_item"') && l.includes('answer 1'));
    expect(torn).toBeGreaterThan(0);
    const offset = Buffer.byteLength(lines.slice(0, torn).join('\n')) + 1;
    lines[torn] = (lines[torn] ?? '').slice(0, -20);
    writeFileSync(path, lines.join('\n'));

    const opened = await store.openForAppendAsync(s.threadId);
    expect(opened.state.history).toEqual([]);
    expect(opened.state.warnings).toEqual([]);
    const later = await opened.state.loadHistory?.();
    const texts = later?.items.map((i) => ('content' in i ? JSON.stringify(i.content) : i.type)).join(' ');
    expect(texts).toContain('answer 0');
    expect(texts).not.toContain('answer 1');
    expect(texts).toContain('answer 2');
    expect(later?.warnings).toEqual([expect.stringContaining(`history line at byte ${offset} skipped`)]);

    // Lines appended since the thread was opened do not move the ones located.
    await store.setName(s.threadId, 'renamed while open');
    expect((await opened.state.loadHistory?.())?.items).toEqual(later?.items);
    await opened.recorder.close();
  });
});
