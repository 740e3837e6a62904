// A saved outline continued over the lines appended since must equal an outline of the whole file, at any
// point the save was made; a saved outline that no longer describes the file must not be used.
import { describe, expect, it } from 'vitest';
import {
  appendFileSync,
  closeSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { continueOutline, type ContinuedOutline, type RolloutOutline } from '../../../src-main/store/outline';
import { decodeOutline, encodeOutline, markOf } from '../../../src-main/store/outline-snapshot';
import { uuidv7 } from '../../../src-main/util/ids';
import { ScriptedSession, StoreFixture, meta, openStore, scriptEveryKind } from './helpers';

const fixture = StoreFixture.forEachTest();

/** An outline as plain data (saved turns make their item lines on first use, through an accessor). */
function plain(o: RolloutOutline): unknown {
  return {
    ...o,
    historyRefs: o.historyRefs.map((r) => ({ offset: r.offset, length: r.length, compacted: r.compacted })),
    turns: o.turns.map((t) => ({
      id: t.id,
      explicit: t.explicit,
      startRef: t.startRef,
      endRef: t.endRef,
      startedAtMs: t.startedAtMs,
      endedAtMs: t.endedAtMs,
      ended: t.ended,
      status: t.status,
      error: t.error,
      itemRefs: t.itemRefs,
      historyMark: t.historyMark,
      endOffset: t.endOffset,
    })),
  };
}

function outlineOf(path: string, saved: Buffer | null = null): ContinuedOutline & { saved: Buffer | null } {
  const fd = openSync(path, 'r');
  try {
    const start = saved === null ? null : decodeOutline(saved, fd, path);
    const c = continueOutline(fd, path, {}, start);
    const mark = markOf(fd, c.outline.end);
    return { ...c, saved: mark === null ? null : encodeOutline(c, mark) };
  } finally {
    closeSync(fd);
  }
}

/** A Weft thread with every item kind (a failed, a compacted, an interrupted turn), renamed, rolled back, pinned. */
async function everyKindRollout(): Promise<string> {
  const id = uuidv7();
  const { recorder } = fixture.store.createThread(meta(id));
  const s = new ScriptedSession(id, recorder);
  await scriptEveryKind(s);
  await s.turn([{ type: 'text', text: 'one more' }], 'completed', (t) => t.rename('renamed'));
  await recorder.close();
  await fixture.store.rollback(id, 1);
  await fixture.store.recordAttribute(id, { type: 'weft_thread_pinned', pinned: true });
  const again = fixture.store.openForAppend(id);
  await new ScriptedSession(id, again.recorder).turn([{ type: 'text', text: 'after the rollback' }], 'completed');
  await again.recorder.close();
  return fixture.store.load(id).thread.path ?? '';
}

function codexRollouts(): string[] {
  const root = join(__dirname, '../../fixtures/codex-0.169');
  const out = [join(root, 'three-turns.jsonl')];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.jsonl') && e.name.startsWith('rollout-')) out.push(join(dir, e.name));
    }
  };
  walk(join(root, 'sessions'));
  return out;
}

/** Offsets to cut a file at: after every line, and in the middle of some (a save made mid-write). */
function cuts(bytes: Buffer): number[] {
  const out: number[] = [0];
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) {
    out.push(i + 1);
    if (i + 8 < bytes.length && out.length % 3 === 0) out.push(i + 8);
  }
  return out;
}

/** Saves the outline of each prefix, appends the rest and checks the continued outline against a whole read. */
function checkEveryCut(source: string, work: string): number {
  const bytes = readFileSync(source);
  let checked = 0;
  for (const cut of cuts(bytes)) {
    writeFileSync(work, bytes.subarray(0, cut));
    const before = outlineOf(work);
    // Between a rollback and the next turn the dropped turns (Redo may bring them back) are held in memory
    // only: that outline is not saved, the next read makes it from the file.
    if (before.outline.lastRollback?.dropped) {
      expect(before.saved, `outline at byte ${cut}, just after a rollback`).toBeNull();
      continue;
    }
    expect(before.saved, `saved outline at byte ${cut}`).not.toBeNull();
    appendFileSync(work, bytes.subarray(cut));
    const whole = outlineOf(work);
    const continued = outlineOf(work, before.saved);
    expect(continued.readFrom, `continued from byte ${cut}`).toBe(before.outline.end);
    expect(plain(continued.outline), `outline continued from byte ${cut} of ${source}`).toEqual(plain(whole.outline));
    expect(continued.progress).toEqual(whole.progress);
    checked++;
  }
  return checked;
}

describe('a saved outline continued over the lines appended since', () => {
  it("equals a whole read of Weft's rollouts, from any point", async () => {
    const path = await everyKindRollout();
    expect(readFileSync(path, 'utf8')).toContain('"thread_rolled_back"');
    // A torn line in the middle (a crash long ago) and one at the end: warnings, with their line numbers.
    const text = readFileSync(path, 'utf8').split('\n');
    text.splice(5, 0, text[5]?.slice(0, 30) ?? '');
    const damaged = join(fixture.tmp.home, 'damaged.jsonl');
    writeFileSync(damaged, `${text.join('\n')}{"timestamp":"2025-`);
    expect(checkEveryCut(path, join(fixture.tmp.home, 'work.jsonl'))).toBeGreaterThan(40);
    expect(checkEveryCut(damaged, join(fixture.tmp.home, 'work2.jsonl'))).toBeGreaterThan(40);
    const whole = outlineOf(damaged).outline;
    expect(whole.warnings).toEqual([
      expect.stringContaining('line 6 skipped'),
      expect.stringContaining('are not a complete line'),
    ]);
    expect(whole.turns.some((t) => t.status === 'failed')).toBe(true);
  });

  it("equals a whole read of Codex 0.169's rollouts, from any point", () => {
    const sources = codexRollouts();
    expect(sources.length).toBeGreaterThan(3);
    let checked = 0;
    for (const [i, source] of sources.entries())
      checked += checkEveryCut(source, join(fixture.tmp.home, `codex-${i}.jsonl`));
    expect(checked).toBeGreaterThan(50);
  });
});

describe('a saved outline that no longer describes the file', () => {
  async function saved(): Promise<{ path: string; data: Buffer; end: number }> {
    const path = join(fixture.tmp.home, 'thread.jsonl');
    writeFileSync(path, readFileSync(await everyKindRollout()));
    const c = outlineOf(path);
    if (c.saved === null) throw new Error('not saved');
    return { path, data: c.saved, end: c.outline.end };
  }

  const usable = (path: string, data: Buffer): boolean => outlineOf(path, data).readFrom > 0;

  it('is used while the file only grows', async () => {
    const { path, data } = await saved();
    expect(usable(path, data)).toBe(true);
    appendFileSync(path, '{"timestamp":"2025-03-04T05:06:07.000Z","type":"event_msg","payload":{"type":"x"}}\n');
    expect(usable(path, data)).toBe(true);
  });

  it('is not used once the file was rewritten, replaced or cut short', async () => {
    const { path, data, end } = await saved();
    const bytes = readFileSync(path);
    // The same file (inode), its last saved line changed.
    const changed = Buffer.from(bytes);
    changed[end - 3] = changed[end - 3] === 0x61 ? 0x62 : 0x61;
    writeFileSync(path, changed);
    expect(statSync(path).size).toBe(bytes.length);
    expect(usable(path, data)).toBe(false);
    // Put back in place: usable again (the check is the content, not a time).
    writeFileSync(path, bytes);
    expect(usable(path, data)).toBe(true);
    // Cut short.
    writeFileSync(path, bytes.subarray(0, end - 1));
    expect(usable(path, data)).toBe(false);
    // Replaced by a copy with the very same bytes (another file): read again.
    writeFileSync(`${path}.new`, bytes);
    renameSync(`${path}.new`, path);
    expect(usable(path, data)).toBe(false);
  });

  it('is not used when the saved form is damaged or of another kind', async () => {
    const { path, data } = await saved();
    for (const at of [0, 10, Math.floor(data.length / 2), data.length - 1]) {
      const bad = Buffer.from(data);
      bad[at] = (bad[at] ?? 0) ^ 0x5a;
      expect(usable(path, bad), `byte ${at} changed`).toBe(false);
    }
    expect(usable(path, data.subarray(0, data.length - 8))).toBe(false);
    expect(usable(path, Buffer.from('not an outline'))).toBe(false);
    expect(usable(path, Buffer.alloc(0))).toBe(false);
  });
});

describe('the store keeps the outline of a big thread', () => {
  /** A closed thread of `n` turns whose answers make it bigger than a saved outline's threshold. */
  async function bigThread(n: number): Promise<string> {
    const id = uuidv7();
    const { recorder } = fixture.store.createThread(meta(id));
    const s = new ScriptedSession(id, recorder);
    const long = 'x'.repeat(40_000);
    for (let i = 0; i < n; i++) {
      await s.turn([{ type: 'text', text: `question ${i}` }], 'completed', (t) => {
        t.history([{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `${long} ${i}` }] }]);
        t.item({ type: 'agentMessage', id: `${t.turnId}-a`, text: `answer ${i} ${long}`, phase: 'final_answer' });
      });
    }
    await recorder.close();
    return id;
  }
  const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  const page = (id: string, cursor: string | null = null) =>
    fixture.store.read(id, { includeTurns: true, turnsLimit: 5, turnsCursor: cursor });

  it('reads only what was appended since, and answers as a whole read does', async () => {
    const id = await bigThread(30);
    const first = fixture.store.load(id, { history: false, turnsLimit: 5 });
    expect(first.outlineReadFrom).toBe(0);
    await tick();
    const again = fixture.store.load(id, { history: false, turnsLimit: 5 });
    expect(again.outlineReadFrom).toBe(statSync(first.thread.path ?? '').size);
    expect(again.turns).toEqual(first.turns);
    expect(again.olderTurnsCursor).toBe(first.olderTurnsCursor);

    // Pages of older turns, a resume and its history after the thread went on.
    const opened = await fixture.store.openForAppendAsync(id, { turnsLimit: 5 });
    expect(opened.state.outlineReadFrom).toBeGreaterThan(0);
    const history = await opened.state.loadHistory?.();
    expect(history?.items).toHaveLength(60);
    const s = new ScriptedSession(id, opened.recorder);
    await s.turn([{ type: 'text', text: 'question 30' }], 'completed');
    await opened.recorder.close();
    const older = page(id, page(id).olderTurnsCursor);
    expect(older.thread.turns.map((t) => t.items[0]?.type === 'userMessage' && t.items[0].content)).toEqual(
      [26, 27, 28, 29, 30].map((i) => [{ type: 'text', text: `question ${i - 5}` }]),
    );
    await tick();
    const resumed = await fixture.store.openForAppendAsync(id, { turnsLimit: 5 });
    expect(resumed.state.outlineReadFrom).toBeGreaterThan(0);
    expect((await resumed.state.loadHistory?.())?.items).toHaveLength(61);
    await resumed.recorder.close();
    // The same as reading the whole file with no saved outline.
    const fresh = openStore(fixture.tmp.home, undefined, false).store;
    try {
      const path = first.thread.path ?? '';
      const { loadFile } = await import('../../../src-main/store/loader');
      const whole = loadFile(path, { history: false, turnsLimit: 5 });
      const kept = fresh.load(id, { history: false, turnsLimit: 5 });
      expect(kept.outlineReadFrom).toBeGreaterThan(0);
      expect(kept.turns).toEqual(whole.turns);
      expect(kept.totalTurns).toBe(31);
    } finally {
      await fresh.close();
    }
  });

  it('is made by the index build, so the first read after it reads only new lines', async () => {
    const id = await bigThread(30);
    const whole = fixture.store.load(id, { history: false, turnsLimit: 5 });
    await fixture.store.close();
    // A new index, built from the rollouts (as after an import, or a lost index), with no saved outline.
    for (const suffix of ['', '-wal', '-shm']) rmSync(join(fixture.tmp.home, `weft.sqlite${suffix}`), { force: true });
    rmSync(join(fixture.tmp.home, 'outlines'), { recursive: true, force: true });
    fixture.store = openStore(fixture.tmp.home).store;
    await fixture.store.whenIndexed();
    const first = fixture.store.load(id, { history: false, turnsLimit: 5 });
    expect(first.outlineReadFrom).toBe(statSync(whole.thread.path ?? '').size);
    expect(first.turns).toEqual(whole.turns);
    expect(first.totalTurns).toBe(30);
  });

  it('saves nothing for a small thread', async () => {
    const id = uuidv7();
    const { recorder } = fixture.store.createThread(meta(id));
    await new ScriptedSession(id, recorder).turn([{ type: 'text', text: 'hi' }], 'completed');
    await recorder.close();
    fixture.store.load(id, { history: false });
    await tick();
    expect(fixture.store.load(id, { history: false }).outlineReadFrom).toBe(0);
  });
});
