// What the start-up index check's worker finds on a saved home: nothing when the index is right (the usual
// start, checked without loading the rollout reader: see lazy-imports.test.ts), the one rollout that grew,
// the one that went. The worker runs from source here, as it does in the tests.
import { appendFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scanIndex, type IndexFiles } from '../../../src-main/store/index-changes';
import { IndexCheck } from '../../../src-main/store/index-check';
import { readIndexCheckRequest } from '../../../src-main/store/index-check-request';
import type { IndexChange } from '../../../src-main/store/repair';
import { indexFile, sessionsDir } from '../../../src-main/store/paths';
import { saveThreads, type SavedThread } from '../../support/saved-threads';
import { makeWeftHome, type WeftHome } from '../../support/workspace';
import { uuidv7 } from '../../../src-main/util/ids';
import { Slicer } from '../../../src-main/util/slicer';

let home: WeftHome | null = null;
afterEach(async () => {
  await home?.cleanup();
  home = null;
});

async function savedHome(threads: number): Promise<{ dir: string; saved: SavedThread[] }> {
  home = await makeWeftHome();
  const prompts = Array.from({ length: threads }, (_, i) => `prompt ${i}`);
  return { dir: home.dir, saved: await saveThreads(home.dir, home.dir, prompts) };
}

function rolloutOf(dir: string, id: string): string {
  const name = readdirSync(sessionsDir(dir), { recursive: true, encoding: 'utf8' }).find((f) =>
    f.endsWith(`${id}.jsonl`),
  );
  if (name === undefined) throw new Error(`no rollout for ${id}`);
  return join(sessionsDir(dir), name);
}

/** Runs a check of `dir` to its end: its report and the changes it sent. */
async function check(dir: string): Promise<{ report: unknown; changes: IndexChange[] }> {
  const changes: IndexChange[] = [];
  const run = new IndexCheck({
    home: dir,
    indexPath: indexFile(dir),
    sources: [{ dir: sessionsDir(dir), archived: false, origin: 'weft' }],
  });
  const report = await run.run({ write: (change) => changes.push(change), giveWay: () => Promise.resolve() });
  expect(await run.exited).toBe(0);
  return { report, changes };
}

describe('the start-up index check', () => {
  it('finds nothing to do on an index that is right, and says how many rollouts it looked at', async () => {
    const { dir } = await savedHome(12);
    const { report, changes } = await check(dir);
    expect(report).toEqual({ indexed: 0, removed: 0, files: 12, warnings: [], cancelled: false });
    expect(changes).toEqual([]);
  });

  it('reads the rollout that grew and drops the row of the one that went', async () => {
    const { dir, saved } = await savedHome(5);
    const [grown, gone] = [saved[1], saved[3]];
    if (grown === undefined || gone === undefined) throw new Error('five threads were saved');
    appendFileSync(rolloutOf(dir, grown.id), '\n');
    rmSync(rolloutOf(dir, gone.id));
    const { report, changes } = await check(dir);
    expect(report).toMatchObject({ indexed: 1, removed: 1, files: 4, cancelled: false });
    expect(changes.flatMap((c) => c.upserts.map((u) => u.summary.id))).toEqual([grown.id]);
    expect(changes.flatMap((c) => c.removed)).toEqual([gone.id]);
  });

  it('gives the event loop back between folders, however few rollouts each holds', async () => {
    home = await makeWeftHome();
    const folders = 40;
    for (let day = 0; day < folders; day++) {
      const dayDir = join(sessionsDir(home.dir), '2030', '01', String(day + 1).padStart(2, '0'));
      mkdirSync(dayDir, { recursive: true });
      writeFileSync(join(dayDir, `rollout-2030-01-01T00-00-00-${uuidv7()}.jsonl`), '');
    }
    let pauses = 0;
    // A slice of 0 ms is always due: every place the scan may pause, it does.
    const slicer = new Slicer(0, () => {
      pauses++;
      return Promise.resolve();
    });
    const noRows: IndexFiles = {
      filePage: () => null,
      fileAt: () => null,
      fileOf: () => null,
      count: () => 0,
      origin: () => null,
    };
    const sources = [{ dir: sessionsDir(home.dir), archived: false, origin: 'weft' as const }];
    const scan = await scanIndex(noRows, sources, { full: false, slicer, cancelled: () => false });
    expect(scan?.files).toBe(folders);
    expect(scan?.queue).toHaveLength(folders);
    expect(pauses).toBeGreaterThanOrEqual(folders);
  });

  it('refuses a request whose fields are wrong, naming the field', () => {
    const good = { home: '/h', indexPath: '/h/i', sources: [{ dir: '/h/s', archived: false, origin: 'weft' }] };
    expect(readIndexCheckRequest(good)).toEqual(good);
    const names = new Map([['id', 'a name']]);
    const withNames = { ...good, sources: [{ ...good.sources[0], origin: 'codex', names }] };
    expect(readIndexCheckRequest(withNames).sources[0]?.names).toBe(names);
    expect(() => readIndexCheckRequest(null)).toThrow("the index check's request is not an object");
    expect(() => readIndexCheckRequest({ ...good, indexPath: 3 })).toThrow('indexPath is not a string');
    expect(() => readIndexCheckRequest({ ...good, sources: [{ ...good.sources[0], origin: 'other' }] })).toThrow(
      'sources[0].origin is neither "weft" nor "codex"',
    );
    expect(() =>
      readIndexCheckRequest({ ...good, sources: [{ ...good.sources[0], names: new Map([['id', 1]]) }] }),
    ).toThrow('sources[0].names is not a map of strings');
  });
});
