// The table of thread events (thread-events.ts): every kind Weft writes means something to the readers, and
// an index made when the thread attributes were other is read again from the rollouts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { WrittenEventPayloads } from '../../../src-preload/protocol';
import type { ThreadStore } from '../../../src-main/store';
import { indexFile } from '../../../src-main/store/paths';
import {
  DEFAULT_ATTRIBUTES,
  THREAD_EVENT_KINDS,
  eventMeaning,
  movedCwd,
  type ThreadAttributes,
} from '../../../src-main/store/thread-events';
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

describe('the table of thread events', () => {
  it('gives every kind Weft writes a meaning', () => {
    const meaningless = Object.keys(WrittenEventPayloads).filter((kind) => eventMeaning(kind).kind === 'none');
    expect(meaningless).toEqual([]);
    expect(THREAD_EVENT_KINDS).toEqual(expect.arrayContaining(Object.keys(WrittenEventPayloads)));
  });

  it('has an index made with other attributes read again from the rollouts', async () => {
    const id = uuidv7();
    const { recorder } = store.createThread(meta(id));
    const s = new ScriptedSession(id, recorder);
    await s.turn([{ type: 'text', text: 'hello' }], 'completed', (t) => t.rename('From the file'));
    await recorder.close();
    expect(store.read(id).thread.name).toBe('From the file');
    await store.close();

    // A row that says otherwise, in an index whose attributes were other: its file is unchanged, yet read again.
    const db = new Database(indexFile(tmp.home));
    db.prepare('UPDATE threads SET name = ? WHERE id = ?').run('Left from before', id);
    db.prepare("UPDATE index_meta SET value = 'name,retired' WHERE key = 'attributes'").run();
    db.close();
    ({ store } = openStore(tmp.home));
    await store.whenIndexed();
    expect(store.read(id).thread.name).toBe('From the file');
  });

  it('keeps read marks out of updatedAt: reading a thread does not move it up the lists', async () => {
    const id = uuidv7();
    const { recorder } = store.createThread(meta(id));
    const s = new ScriptedSession(id, recorder);
    await s.turn([{ type: 'text', text: 'hello' }], 'completed');
    await recorder.close();
    const before = store.list().data.find((t) => t.id === id)?.updatedAt;
    expect(before).toBe(store.read(id).thread.updatedAt);

    // The store's clock moves a second per call: the marks come seconds after the turn's last line.
    await store.recordAttribute(id, { type: 'weft_thread_read_state', mark: 'turnEnded', ended_turn_id: 't1' });
    await store.recordAttribute(id, { type: 'weft_thread_read_state', mark: 'read' });
    const listed = store.list().data.find((t) => t.id === id);
    expect({ updatedAt: listed?.updatedAt, readState: listed?.weftReadState }).toEqual({
      updatedAt: before,
      readState: { firstUnread: null, revision: '2' },
    });
    expect(store.read(id).thread.updatedAt).toBe(before);
    // A pin is a change: it moves.
    await store.recordAttribute(id, { type: 'weft_thread_pinned', pinned: true });
    expect(store.list().data.find((t) => t.id === id)?.updatedAt).toBeGreaterThan(before ?? Infinity);
  });
});

describe('where a moved thread works', () => {
  const moved = (cwd: string, afterTurnId: string | null): ThreadAttributes => ({
    ...DEFAULT_ATTRIBUTES,
    moved: { cwd, afterTurnId },
  });

  it('is where the Handoff moved it until a later turn names another folder', () => {
    expect(movedCwd(DEFAULT_ATTRIBUTES, { turnId: 't1', cwd: '/wt' })).toBeNull();
    // No turn since the move (the last turn context is the one the move was made after): the moved folder.
    expect(movedCwd(moved('/local', 't1'), { turnId: 't1', cwd: '/wt' })).toBe('/local');
    expect(movedCwd(moved('/local', null), null)).toBe('/local');
    // A turn after the move recorded where it ran: that wins (a turn started with another cwd).
    expect(movedCwd(moved('/local', 't1'), { turnId: 't2', cwd: '/elsewhere' })).toBe('/elsewhere');
    // Without the turn context (a list row): the moved folder.
    expect(movedCwd(moved('/local', 't1'))).toBe('/local');
  });
});
