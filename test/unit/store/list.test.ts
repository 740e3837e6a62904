import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { appendFileSync, existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StoreError, ThreadNotFoundError, type ThreadStore } from '../../../src-main/store';
import { openIndex } from '../../../src-main/store/index-db';
import { ThreadIndex, type ListQuery } from '../../../src-main/store/thread-index';
import { uuidv7 } from '../../../src-main/util/ids';
import { ScriptedSession, fakeClock, meta, openStore, tempHome, type TempHome } from './helpers';

let tmp: TempHome;
let store: ThreadStore;
let warnings: string[];
const clock = { now: fakeClock() };

beforeEach(async () => {
  tmp = await tempHome();
  clock.now = fakeClock();
  ({ store, warnings } = openStore(tmp.home, () => clock.now()));
  await store.whenIndexed();
});

afterEach(async () => {
  await store.close();
  await tmp.dispose();
});

async function thread(s: ThreadStore, text: string, options: { cwd?: string; answer?: string } = {}): Promise<string> {
  const id = uuidv7(clock.now().getTime());
  const { recorder } = s.createThread(meta(id, options.cwd));
  const session = new ScriptedSession(id, recorder);
  await session.turn([{ type: 'text', text }], 'completed', (t) => {
    if (options.answer)
      t.item({ type: 'agentMessage', id: `${t.turnId}-a`, text: options.answer, phase: 'final_answer' });
  });
  await recorder.close();
  return id;
}

function reopen(): void {
  ({ store, warnings } = openStore(tmp.home, () => clock.now()));
}

describe('listing threads', () => {
  it('lists newest first, by created or updated time, with the fields of the thread', async () => {
    const a = await thread(store, 'first thread');
    const b = await thread(store, 'second thread');
    const c = await thread(store, 'third thread');
    expect(store.list().data.map((t) => t.id)).toEqual([c, b, a]);
    expect(store.list({ sortDirection: 'asc' }).data.map((t) => t.id)).toEqual([a, b, c]);
    const { recorder } = store.openForAppend(a);
    await new ScriptedSession(a, recorder).turn([{ type: 'text', text: 'more' }], 'completed');
    await recorder.close();
    expect(store.list({ sortKey: 'updated_at' }).data.map((t) => t.id)).toEqual([a, c, b]);
    expect(store.list({ sortKey: 'created_at' }).data.map((t) => t.id)).toEqual([c, b, a]);
    const first = store.list().data[2];
    expect(first).toMatchObject({
      id: a,
      preview: 'first thread',
      cwd: '/work/project',
      modelProvider: 'openai',
      turns: [],
      status: { type: 'notLoaded' },
    });
    expect(first?.path).toMatch(
      /sessions\/\d{4}\/\d{2}\/\d{2}\/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-.*\.jsonl$/,
    );
  });

  it('filters by cwd and by archived', async () => {
    const a = await thread(store, 'in a', { cwd: '/p/a' });
    const b = await thread(store, 'in b', { cwd: '/p/b' });
    const a2 = await thread(store, 'in a again', { cwd: '/p/a' });
    expect(store.list({ cwd: '/p/a' }).data.map((t) => t.id)).toEqual([a2, a]);
    expect(store.list({ cwd: ['/p/b', '/p/a'] }).data.map((t) => t.id)).toEqual([a2, b, a]);
    store.archive(a2);
    expect(store.list({ cwd: '/p/a' }).data.map((t) => t.id)).toEqual([a]);
    expect(store.list({ archived: true }).data.map((t) => t.id)).toEqual([a2]);
  });

  it('finds threads by user text, agent text and name; any search text is safe', async () => {
    const parser = await thread(store, 'Fix the flaky parser test', {
      answer: 'The tokenizer dropped a café character.',
    });
    const docs = await thread(store, 'Write the README', { answer: 'Done, see docs/README.md' });
    await store.setName(docs, 'Documentation sprint');
    const ids = (term: string): string[] => store.list({ searchTerm: term }).data.map((t) => t.id);
    expect(ids('parser')).toEqual([parser]);
    expect(ids('tokenizer cafe')).toEqual([parser]);
    expect(ids('docs README')).toEqual([docs]);
    expect(ids('sprint')).toEqual([docs]);
    expect(ids('toke')).toEqual([parser]);
    expect(ids('the')).toEqual([docs, parser]);
    expect(ids('nothing-like-this')).toEqual([]);
    for (const weird of [
      '"',
      'AND OR NOT',
      'parser)',
      '(*',
      '-parser',
      'NEAR(a b',
      "it's",
      '^',
      '***',
      '"unterminated',
    ]) {
      expect(() => store.list({ searchTerm: weird })).not.toThrow();
    }
    expect(ids('parser)')).toEqual([parser]);
  });

  it('pages by cursor without repeats or gaps while new threads are created', async () => {
    const created: string[] = [];
    for (let i = 0; i < 12; i++) created.push(await thread(store, `thread ${i}`));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = store.list({ limit: 5, cursor });
      seen.push(...page.data.map((t) => t.id));
      cursor = page.nextCursor;
      pages++;
      await thread(store, `created while paging ${pages}`);
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());
  });

  it('answers every list straight from an index, so its cost does not grow with the number of threads', async () => {
    await thread(store, 'one thread');
    const { db } = openIndex(join(tmp.home, 'weft.sqlite'));
    const index = new ThreadIndex(db);
    const first: ListQuery = {
      limit: 25,
      sortKey: 'created_at',
      direction: 'desc',
      archived: false,
      cwds: null,
      providers: null,
      sources: null,
      match: null,
      failedUnread: false,
      after: null,
    };
    const after = { value: Date.now(), id: 'z' };
    const queries: ListQuery[] = [
      first,
      { ...first, after },
      { ...first, sortKey: 'updated_at', after },
      { ...first, direction: 'asc', after },
      { ...first, cwds: ['/p/a'], after },
      { ...first, cwds: ['/p/a'], sortKey: 'updated_at', after },
      { ...first, archived: true },
    ];
    for (const q of queries) {
      const plan = index.explain(q).join('\n');
      expect(plan, JSON.stringify(q)).toMatch(/USING (COVERING )?INDEX threads_by_/);
      expect(plan, JSON.stringify(q)).not.toMatch(/TEMP B-TREE/);
    }
    db.close();
  });

  it("gives the repair every row's file once, in pages", async () => {
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await thread(store, `paged ${i}`));
    const { db } = openIndex(join(tmp.home, 'weft.sqlite'));
    const index = new ThreadIndex(db);
    const pages: string[][] = [];
    for (let page = index.filePage(0, 2); page !== null; page = index.filePage(page.lastRid, 2))
      pages.push(page.rows.map((r) => r.id));
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat().sort()).toEqual([...made].sort());
    const row = index.filePage(0, 1)?.rows[0];
    expect(row?.path).toMatch(/rollout-.*\.jsonl$/);
    expect(row?.file_size).toBeGreaterThan(0);
    db.close();
  });

  it('rejects a cursor that is not one, or was made for another order', async () => {
    for (let i = 0; i < 3; i++) await thread(store, `t${i}`);
    const { nextCursor } = store.list({ limit: 1 });
    expect(nextCursor).not.toBeNull();
    expect(() => store.list({ cursor: 'garbage' })).toThrow(StoreError);
    expect(() => store.list({ cursor: nextCursor, sortKey: 'updated_at' })).toThrow(/sorting by created_at desc/);
  });
});

describe('a page kept while the index is unchanged', () => {
  it('is the same page, frozen, until this store writes', async () => {
    const a = await thread(store, 'first thread');
    const first = store.list();
    expect(store.list().data).toBe(first.data);
    expect(Object.isFrozen(first.data[0])).toBe(true);
    expect(Object.isFrozen(first.data[0]?.status)).toBe(true);
    // Another page (other params) is its own.
    expect(store.list({ limit: 1 }).data).not.toBe(first.data);
    await store.setName(a, 'Renamed');
    expect(store.list().data.map((t) => t.name)).toEqual(['Renamed']);
    store.archive(a);
    expect(store.list().data).toEqual([]);
    expect(store.list({ archived: true }).data.map((t) => t.id)).toEqual([a]);
    const b = await thread(store, 'second thread');
    expect(store.list().data.map((t) => t.id)).toEqual([b]);
  });

  it('is read again after another connection writes to the index', async () => {
    const a = await thread(store, 'first thread');
    expect(store.list().data.map((t) => t.name)).toEqual([null]);
    // Another Weft on the same home (or `weft threads`) writes through a connection of its own.
    const other = new Database(join(tmp.home, 'weft.sqlite'));
    try {
      other.prepare('UPDATE threads SET name = ? WHERE id = ?').run('Named elsewhere', a);
    } finally {
      other.close();
    }
    expect(store.list().data.map((t) => t.name)).toEqual(['Named elsewhere']);
  });
});

describe('the index is derived', () => {
  it('is rebuilt from the rollouts when deleted, names and search included', async () => {
    const a = await thread(store, 'alpha words here', { answer: 'zebra answer' });
    const b = await thread(store, 'beta words');
    await store.setName(b, 'Named thread');
    store.archive(a);
    const before = [store.list().data, store.list({ archived: true }).data];
    await store.close();
    for (const f of readdirSync(tmp.home)) if (f.startsWith('weft.sqlite')) rmSync(join(tmp.home, f));
    reopen();
    await store.whenIndexed();
    expect([store.list().data, store.list({ archived: true }).data]).toEqual(before);
    expect(store.list({ searchTerm: 'zebra', archived: true }).data.map((t) => t.id)).toEqual([a]);
    expect(store.list({ searchTerm: 'named' }).data.map((t) => t.id)).toEqual([b]);
  });

  it('drops entries whose file is gone, and says a missing thread is missing', async () => {
    const a = await thread(store, 'doomed');
    const b = await thread(store, 'kept');
    const path = store.list().data.find((t) => t.id === a)?.path;
    expect(path).toBeDefined();
    rmSync(path ?? '');
    expect(() => store.read(a)).toThrow(ThreadNotFoundError);
    expect(store.list().data.map((t) => t.id)).toEqual([b]);
    const c = await thread(store, 'also doomed');
    rmSync(store.read(c).thread.path ?? '');
    await store.close();
    reopen();
    await store.whenIndexed();
    expect(store.list().data.map((t) => t.id)).toEqual([b]);
  });

  it('rescans a rollout that changed behind its back', async () => {
    const a = await thread(store, 'original');
    const path = store.read(a).thread.path ?? '';
    await store.close();
    const line = {
      timestamp: '2030-01-01T00:00:00.000Z',
      type: 'event_msg',
      payload: { type: 'thread_name_updated', thread_id: a, thread_name: 'Renamed elsewhere' },
    };
    appendFileSync(path, JSON.stringify(line) + '\n');
    reopen();
    expect(store.list().data[0]?.name).toBeNull();
    await store.whenIndexed();
    expect(store.list().data[0]).toMatchObject({
      id: a,
      name: 'Renamed elsewhere',
      updatedAt: Date.UTC(2030, 0, 1) / 1000,
    });
  });

  it('finds a thread by id even before the index knows it', async () => {
    const a = await thread(store, 'indexed later');
    await store.close();
    for (const f of readdirSync(tmp.home)) if (f.startsWith('weft.sqlite')) rmSync(join(tmp.home, f));
    ({ store, warnings } = openStore(tmp.home, () => clock.now(), false));
    expect(store.list().data).toEqual([]);
    expect(store.read(a).thread.preview).toBe('indexed later');
    expect(store.list().data.map((t) => t.id)).toEqual([a]);
  });

  it('takes over an index of schema 2 (saved outlines in a table) as it is, dropping that table', async () => {
    const a = await thread(store, 'kept as it was');
    await store.close();
    const file = join(tmp.home, 'weft.sqlite');
    const old = new Database(file);
    // Schema 2: the table of saved outlines, and no attributes column (schema 4) yet.
    old.exec('ALTER TABLE threads DROP COLUMN attrs; DROP TABLE index_meta');
    old.exec('CREATE TABLE outlines (id TEXT PRIMARY KEY, data BLOB NOT NULL)');
    old.pragma('user_version = 2');
    old.close();
    reopen();
    expect(store.list().data.map((t) => t.id)).toEqual([a]);
    await store.whenIndexed();
    expect(warnings).toEqual([]);
    expect(readdirSync(tmp.home).some((f) => f.startsWith('weft.sqlite.unusable-'))).toBe(false);
    const check = new Database(file, { readonly: true });
    const tables = check.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'outlines'").all();
    check.close();
    expect(tables).toEqual([]);
  });

  it('sets aside an index that is corrupt or from a newer Weft, and rebuilds it', async () => {
    const a = await thread(store, 'survivor');
    await store.close();
    const file = join(tmp.home, 'weft.sqlite');
    const db = new Database(file);
    db.pragma('user_version = 99');
    db.close();
    reopen();
    await store.whenIndexed();
    expect(warnings.join('\n')).toMatch(/newer Weft.*set aside as weft\.sqlite\.unusable-\S+ and is being rebuilt/);
    expect(store.list().data.map((t) => t.id)).toEqual([a]);
    await store.close();
    for (const f of readdirSync(tmp.home)) if (f.startsWith('weft.sqlite')) rmSync(join(tmp.home, f));
    writeFileSync(file, 'this is not a database at all, just text that fills a page or so. '.repeat(100));
    reopen();
    await store.whenIndexed();
    expect(warnings.join('\n')).toMatch(/could not be used/);
    expect(store.list().data.map((t) => t.id)).toEqual([a]);
    expect(readdirSync(tmp.home).some((f) => f.startsWith('weft.sqlite.unusable-'))).toBe(true);
    expect(existsSync(file)).toBe(true);
  });
});
