import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ThreadStore, type RolloutWriteError } from '../../../src-main/store';
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
    all.splice(
      3,
      0,
      '',
      '[1,2,3]',
      '{"timestamp":"2025-01-01T00:00:00.000Z","type":"response_item","payload":{"type":"message"}}',
    );
    writeFileSync(path, all.join('\n') + '\n');

    const state = store.load(id);
    const expectedTurns = session.transcript.turns.map((t) => ({
      ...t,
      items: t.items.filter((i) => i.id !== 'ws-1'),
    }));
    expect(state.turns).toEqual(expectedTurns);
    expect(state.history).toEqual(
      session.transcript.history.filter((h) => !JSON.stringify(h).includes('"The parser"')),
    );
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
    const rename = {
      timestamp: '2031-01-01T00:00:00.000Z',
      type: 'event_msg',
      payload: { type: 'thread_name_updated', thread_id: id, thread_name: 'Recovered' },
    };
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
    // The turn is not on disk: its end says so instead of passing for saved.
    await expect(session.turn([{ type: 'text', text: 'written later' }], 'completed')).rejects.toThrow(
      new RegExp(`could not save thread ${id} to .*ENOTDIR.* line\\(s\\) are kept in memory`),
    );
    expect(errors.length).toBe(1);
    expect(errors[0]?.message).toMatch(new RegExp(`could not save thread ${id} to .*line\\(s\\) are kept in memory`));
    expect(store.list().data).toEqual([]);
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
    await writer.written();
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(/no space left on device/i);
    expect(writer.pendingLines).toBe(3);
    writer.append(['{"d":4}']);
    await writer.written();
    expect(errors).toHaveLength(1);
    expect(writer.pendingLines).toBe(4);
    writer.abandon();
  });

  it('writes kept lines on its own once the disk takes them again, and says so', async () => {
    await store.close();
    const notices: { threadId: string; message: string }[] = [];
    let wake: (() => void) | null = null;
    store = ThreadStore.open(tmp.home, {
      onWarning: () => undefined,
      onThreadWarning: (threadId, message) => {
        notices.push({ threadId, message });
        wake?.();
      },
      writer: { retryIntervalMs: 10 },
    });
    const id = uuidv7();
    const { recorder, path } = store.createThread(meta(id));
    const blocker = dirname(dirname(path));
    mkdirSync(dirname(blocker), { recursive: true });
    writeFileSync(blocker, 'a file where a folder should be');
    const session = new ScriptedSession(id, recorder);
    await expect(session.turn([{ type: 'text', text: 'kept in memory' }], 'completed')).rejects.toThrow(
      /is not a directory|ENOTDIR/,
    );
    expect(notices).toEqual([
      { threadId: id, message: expect.stringContaining('line(s) are kept in memory') as unknown },
    ]);
    const recovered = new Promise<void>((resolve) => (wake = () => notices.length > 1 && resolve()));
    rmSync(blocker);
    await recovered;
    expect(notices[1]).toEqual({
      threadId: id,
      message: `thread ${id} is being saved again: every line it recorded is now in ${path}`,
    });
    expect(store.load(id).turns).toEqual(session.transcript.turns);
    await recorder.close();
  });

  it('moves refused lines to a rescue file past the memory bound and at close, never dropping them', async () => {
    const rescueDir = join(tmp.home, 'rescue');
    mkdirSync(rescueDir);
    const errors: RolloutWriteError[] = [];
    const writer = new RolloutWriter({
      threadId: 'disk-full',
      path: '/dev/full',
      create: null,
      lock: () => ({ threadId: 'disk-full', release: () => undefined }),
      onError: (e) => errors.push(e),
      maxPendingBytes: 100,
      rescueDir,
      retryIntervalMs: 60_000,
    });
    writer.openExisting();
    const line = (n: number): string => JSON.stringify({ n, text: 'x'.repeat(20) });
    writer.append([line(1)]);
    await writer.written();
    writer.append([line(2)]);
    await writer.written();
    expect(writer.pendingLines).toBe(2);
    writer.append([line(3)]);
    const rescue = join(rescueDir, 'weft-unsaved-disk-full.jsonl');
    expect(writer.pendingLines).toBe(0);
    expect(readFileSync(rescue, 'utf8')).toBe([line(1), line(2), line(3)].join('\n') + '\n');
    expect(statSync(rescue).mode & 0o777).toBe(0o600);
    expect(errors.map((e) => e.fate)).toEqual([{ type: 'kept' }, { type: 'rescued', file: rescue, whole: false }]);
    expect(errors[1]?.message).toContain(
      `3 line(s) that could not be written were saved to ${rescue} instead; append them to /dev/full`,
    );
    await expect(writer.durable()).rejects.toThrow(/no space left on device/i);
    writer.append([line(4)]);
    await writer.close();
    expect(readFileSync(rescue, 'utf8')).toBe([1, 2, 3, 4].map(line).join('\n') + '\n');
    expect(errors.map((e) => e.fate.type)).toEqual(['kept', 'rescued', 'rescued']);
  });
});
