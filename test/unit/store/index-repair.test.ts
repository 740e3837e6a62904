// A damaged index repairs itself: any corruption error (on list, read, search or a write) sets the index
// aside and rebuilds it from the rollouts; `weft threads reindex` checks the whole file and never reports
// success on a broken one; a folder where the index belongs is a clear error.
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runThreadsCommand } from '../../../src-main/cli/threads';
import { ThreadStore } from '../../../src-main/store';
import { KEPT_UNUSABLE_INDEXES, setIndexAside } from '../../../src-main/store/index-db';
import { uuidv7 } from '../../../src-main/util/ids';
import { ScriptedSession, meta, tempHome, type TempHome } from './helpers';

let tmp: TempHome;
let ids: string[];
const PAGE = 4096;

beforeEach(async () => {
  tmp = await tempHome();
  const store = ThreadStore.open(tmp.home, { onWarning: () => undefined });
  ids = [];
  for (let i = 0; i < 12; i++) {
    const id = uuidv7();
    const { recorder } = store.createThread(meta(id));
    await new ScriptedSession(id, recorder).turn(
      [{ type: 'text', text: `question ${i} about zebras ${'word '.repeat(150)}` }],
      'completed',
    );
    await recorder.close();
    ids.push(id);
  }
  await store.close();
});

afterEach(async () => {
  await tmp.dispose();
});

const indexPath = (): string => join(tmp.home, 'weft.sqlite');
const unusable = (): string[] =>
  readdirSync(tmp.home)
    .filter((n) => n.startsWith('weft.sqlite.unusable-'))
    .sort();

/** Overwrites every page of the given b-trees with garbage (the others stay intact). */
function damage(trees: readonly string[]): void {
  const db = new Database(indexPath(), { readonly: true });
  const rows = db.prepare(`SELECT pageno FROM dbstat WHERE name IN (${trees.map(() => '?').join(', ')})`).all(...trees);
  db.close();
  const pages = rows.map((r) => Number((r as { pageno: number }).pageno));
  expect(pages.length).toBeGreaterThan(0);
  const fd = openSync(indexPath(), 'r+');
  for (const page of pages) writeSync(fd, Buffer.alloc(PAGE, 0x5a), 0, PAGE, (page - 1) * PAGE);
  closeSync(fd);
}

/** Damage that opening the index does not notice; listing and searching do. */
const damagePages = (): void => damage(['threads_by_created', 'thread_text_data']);

/** Every page after the schema's: the index cannot even be opened. */
function damageAll(): void {
  const size = statSync(indexPath()).size;
  const fd = openSync(indexPath(), 'r+');
  for (let page = 1; page < size / PAGE; page++) writeSync(fd, Buffer.alloc(PAGE, 0x5a), 0, PAGE, page * PAGE);
  closeSync(fd);
}

async function weft(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runThreadsCommand(argv, {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: { WEFT_HOME: tmp.home, HOME: tmp.home },
  });
  return { code, stdout, stderr };
}

describe('a damaged thread index', () => {
  it('is set aside and rebuilt from the rollouts when a list, search or read meets the damage', async () => {
    damagePages();
    const warnings: string[] = [];
    const store = ThreadStore.open(tmp.home, { onWarning: (m) => warnings.push(m), repair: false });
    try {
      const page = await store.listComplete({ limit: 50 });
      expect(page.data.map((t) => t.id).sort()).toEqual([...ids].sort());
      expect(warnings.filter((w) => w.includes('set aside'))).toEqual([
        expect.stringMatching(
          /^the thread index was damaged \(database disk image is malformed\); it was set aside as weft\.sqlite\.unusable-\S+ and is being rebuilt from the rollouts$/,
        ),
      ]);
      expect(unusable()).toHaveLength(1);
      expect((await store.listComplete({ searchTerm: 'zebras', limit: 50 })).data).toHaveLength(ids.length);
      expect(store.read(ids[3] ?? '').thread.preview).toMatch(/^question 3 about zebras/);
    } finally {
      await store.close();
    }
    // And across a restart, the rebuilt index is sound.
    const again = await weft('list', '--limit', '50');
    expect(again.code).toBe(0);
    expect(again.stdout.trim().split('\n')).toHaveLength(ids.length);
    expect(again.stderr).toBe('');
  });

  it('is rebuilt in full when it cannot even be opened, also by a store that does no background repair', async () => {
    damageAll();
    const warnings: string[] = [];
    const store = ThreadStore.open(tmp.home, { onWarning: (m) => warnings.push(m), repair: false });
    try {
      expect(warnings).toEqual([
        expect.stringMatching(
          /could not be used \(.+\); it was set aside as weft\.sqlite\.unusable-\S+ and is being rebuilt from the rollouts$/,
        ),
      ]);
      expect((await store.listComplete({ limit: 50 })).data).toHaveLength(ids.length);
    } finally {
      await store.close();
    }
  });

  it('is found by `weft threads reindex`, which rebuilds it and counts every thread', async () => {
    damagePages();
    const result = await weft('reindex');
    expect(result.stdout).toBe(`Indexed ${ids.length} thread(s) from ${ids.length} rollout file(s).\n`);
    expect(result.stderr).toMatch(
      /the thread index was damaged \(.+\); it was set aside as weft\.sqlite\.unusable-\S+ and is being rebuilt/,
    );
    expect(result.code).toBe(0);
    expect(unusable()).toHaveLength(1);
    const check = await weft('reindex');
    expect(check).toEqual({
      code: 0,
      stdout: `Indexed ${ids.length} thread(s) from ${ids.length} rollout file(s).\n`,
      stderr: '',
    });
  });

  it('keeps only the newest set-aside copies', () => {
    for (let i = 0; i < KEPT_UNUSABLE_INDEXES + 2; i++) {
      openSync(indexPath(), 'w');
      setIndexAside(indexPath(), new Date(Date.UTC(2030, 0, 1, 0, 0, i)));
    }
    expect(unusable()).toEqual([
      'weft.sqlite.unusable-2030-01-01T00-00-02-000Z',
      'weft.sqlite.unusable-2030-01-01T00-00-03-000Z',
      'weft.sqlite.unusable-2030-01-01T00-00-04-000Z',
    ]);
  });

  it('is a clear error when a folder sits where the index belongs', async () => {
    rmSync(indexPath());
    mkdirSync(indexPath());
    const result = await weft('list');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${indexPath()} is a folder, but Weft keeps its thread index in a file of that name; move the folder elsewhere`,
    );
    expect(() => ThreadStore.open(tmp.home)).toThrow(/is a folder/);
  });
});
