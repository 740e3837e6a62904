import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { RolloutWriteError, ThreadStore } from '../../../src-main/store';
import { RolloutWriter } from '../../../src-main/store/rollout-writer';
import { uuidv7 } from '../../../src-main/util/ids';
import { ScriptedSession, meta, openStore, scriptEveryKind, tempHome, type TempHome } from './helpers';

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

async function recorded(): Promise<{ id: string; path: string; session: ScriptedSession }> {
  const id = uuidv7();
  const { recorder, path } = store.createThread(meta(id));
  const session = new ScriptedSession(id, recorder);
  await scriptEveryKind(session);
  await recorder.close();
  return { id, path, session };
}

const lines = (path: string): string[] => readFileSync(path, 'utf8').split('\n').slice(0, -1);

describe('damaged rollouts still load', () => {
  it('skips corrupt lines in the middle with a warning and keeps everything else', async () => {
    const { id, path, session } = await recorded();
    const all = lines(path);
    const webSearch = all.findIndex((l) => l.includes('"item_completed"') && l.includes('"ws-1"'));
    const lastAnswer = all.findIndex((l) => l.includes('"response_item"') && l.includes('"The parser"'));
    expect(webSearch).toBeGreaterThan(0);
    expect(lastAnswer).toBeGreaterThan(0);
    all[webSearch] = (all[webSearch] ?? '').slice(0, 40) + '\u0000garbage';
    all[lastAnswer] = 'not json at all';
    all.splice(3, 0, '', '[1,2,3]', '{"timestamp":"2025-01-01T00:00:00.000Z","type":"response_item","payload":{"type":"message"}}');
    writeFileSync(path, all.join('\n') + '\n');

    const state = store.load(id);
    const expectedTurns = session.transcript.turns.map((t) => ({ ...t, items: t.items.filter((i) => i.id !== 'ws-1') }));
    expect(state.turns).toEqual(expectedTurns);
    expect(state.history).toEqual(session.transcript.history.filter((h) => !JSON.stringify(h).includes('"The parser"')));
    expect(state.warnings.length).toBeGreaterThanOrEqual(3);
    expect(state.warnings.join('\n')).toContain(basename(path));
  });

  it('loads a file cut at any byte exactly like one cut at the previous line end', async () => {
    const { id, path } = await recorded();
    const full = readFileSync(path);
    const step = Math.max(1, Math.floor(full.length / 40));
    for (let cut = 1; cut < full.length; cut += step) {
      writeFileSync(path, full.subarray(0, cut));
      const torn = store.load(id);
      const lineEnd = full.lastIndexOf(0x0a, cut - 1) + 1;
      writeFileSync(path, full.subarray(0, lineEnd));
      const clean = store.load({ path });
      expect({ turns: torn.turns, history: torn.history }).toEqual({ turns: clean.turns, history: clean.history });
      if (lineEnd < cut) expect(torn.warnings.join('\n')).toMatch(/not a complete line/);
    }
  });

  it('resumes after a torn last line without gluing new lines to it', async () => {
    const { id, path, session } = await recorded();
    const full = readFileSync(path);
    const lastLineStart = full.lastIndexOf(0x0a, full.length - 2) + 1;
    truncateSync(path, lastLineStart + 20);
    const { recorder, state } = store.openForAppend(id);
    expect(state.turns.map((t) => t.id)).toEqual(session.transcript.turns.map((t) => t.id));
    const more = new ScriptedSession(id, recorder);
    await more.turn([{ type: 'text', text: 'after the crash' }], 'completed');
    await recorder.close();
    const after = store.load(id);
    expect(after.turns.slice(-1)).toEqual(more.transcript.turns);
    expect(after.turns).toHaveLength(session.transcript.turns.length + 1);
    expect(after.warnings).toHaveLength(1);
    expect(after.warnings[0]).toMatch(/skipped: not JSON/);
  });

  it('recovers a whole line that another writer glued onto a torn one', async () => {
    const { id, path } = await recorded();
    const full = readFileSync(path);
    const lastLineStart = full.lastIndexOf(0x0a, full.length - 2) + 1;
    truncateSync(path, lastLineStart + 30);
    const rename = { timestamp: '2031-01-01T00:00:00.000Z', type: 'event_msg', payload: { type: 'thread_name_updated', thread_id: id, thread_name: 'Recovered' } };
    appendFileSync(path, JSON.stringify(rename) + '\n');
    const state = store.load(id);
    expect(state.thread.name).toBe('Recovered');
    expect(state.warnings.join('\n')).toMatch(/began with a torn line/);
  });

  it('loads a file whose session_meta is gone, naming the thread from the file name', async () => {
    const { id, path, session } = await recorded();
    writeFileSync(path, lines(path).slice(1).join('\n') + '\n');
    const state = store.load({ path });
    expect(state.thread.id).toBe(id);
    expect(state.turns).toEqual(session.transcript.turns);
    expect(state.warnings.join('\n')).toMatch(/no readable session_meta/);
  });
});

describe('write failures lose nothing', () => {
  it('keeps lines in memory while the folder cannot be created, and writes them all once it can', async () => {
    const id = uuidv7();
    const errors: RolloutWriteError[] = [];
    const { recorder, path } = store.createThread(meta(id), { onError: (e) => errors.push(e) });
    const dayDir = path.slice(0, path.lastIndexOf('/'));
    const blocker = dayDir.slice(0, dayDir.lastIndexOf('/'));
    mkdirSync(dirname(blocker), { recursive: true });
    writeFileSync(blocker, 'a file where a folder should be');
    const session = new ScriptedSession(id, recorder);
    await session.turn([{ type: 'text', text: 'written later' }], 'completed');
    expect(errors.length).toBe(1);
    expect(errors[0]?.message).toMatch(new RegExp(`could not save thread ${id} to .*line\\(s\\) are kept in memory`));
    rmSync(blocker);
    await session.turn([{ type: 'text', text: 'second' }], 'completed');
    await recorder.close();
    expect(store.load(id).turns).toEqual(session.transcript.turns);
    expect(store.list().data.map((t) => t.preview)).toEqual(['written later']);
  });

  it('reports a full disk once and keeps the unwritten lines', async () => {
    const errors: RolloutWriteError[] = [];
    const writer = new RolloutWriter({
      threadId: 'disk-full',
      path: '/dev/full',
      create: null,
      lock: () => ({ threadId: 'disk-full', release: () => undefined }),
      onError: (e) => errors.push(e),
    });
    writer.openExisting();
    writer.append(['{"a":1}']);
    writer.append(['{"b":2}', '{"c":3}']);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(/no space left on device/i);
    expect(writer.pendingLines).toBe(3);
    writer.abandon();
  });
});
