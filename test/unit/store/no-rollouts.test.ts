// How big a home is, read before its start-up check: a home without a single rollout has its check done at
// once, on the host's thread (a worker would only add its own start-up to the first lists, which wait for
// a new index); a small one's new index is waited for by the first lists until it is built.
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isSmallHome, noRollouts } from '../../../src-main/store/catalog';
import type { RolloutSource } from '../../../src-main/store/index-changes';
import { uuidv7 } from '../../../src-main/util/ids';
import { makeWeftHome, type WeftHome } from '../../support/workspace';

let home: WeftHome | null = null;
afterEach(async () => {
  await home?.cleanup();
  home = null;
});

const source = (dir: string): RolloutSource => ({ dir, archived: false, origin: 'weft' });

describe('noRollouts', () => {
  it('is true for folders that are missing or empty, false as soon as one holds anything', async () => {
    home = await makeWeftHome();
    const sessions = join(home.dir, 'sessions');
    const archived = join(home.dir, 'archived_sessions');
    expect(await noRollouts([source(sessions), source(archived)])).toBe(true);
    mkdirSync(sessions);
    expect(await noRollouts([source(sessions), source(archived)])).toBe(true);
    mkdirSync(join(archived, '2026', '11'), { recursive: true });
    writeFileSync(join(archived, '2026', '11', 'rollout.jsonl'), '');
    expect(await noRollouts([source(sessions), source(archived)])).toBe(false);
  });
});

describe('isSmallHome', () => {
  /** Writes `count` rollouts of `bytes` each (sparse) into `dir`'s folder of one day. */
  function rollouts(dir: string, count: number, bytes = 100): string[] {
    const day = join(dir, '2026', '12', '01');
    mkdirSync(day, { recursive: true });
    return Array.from({ length: count }, () => {
      const path = join(day, `rollout-2026-12-01T10-00-00-${uuidv7()}.jsonl`);
      writeFileSync(path, '');
      truncateSync(path, bytes);
      return path;
    });
  }

  it('counts the rollouts of every folder, up to 250', async () => {
    home = await makeWeftHome();
    const sessions = join(home.dir, 'sessions');
    const archived = join(home.dir, 'archived_sessions');
    const both = [source(sessions), source(archived)];
    expect(isSmallHome(both)).toBe(true);
    rollouts(sessions, 200);
    // Files that are not rollouts are not counted.
    writeFileSync(join(sessions, 'notes.jsonl'), 'x'.repeat(1000));
    expect(isSmallHome(both)).toBe(true);
    rollouts(archived, 50);
    expect(isSmallHome(both)).toBe(true);
    rollouts(archived, 1);
    expect(isSmallHome(both)).toBe(false);
  });

  it('counts their bytes, up to 64 MiB', async () => {
    home = await makeWeftHome();
    const sessions = join(home.dir, 'sessions');
    const [first] = rollouts(sessions, 2, 32 * 1024 * 1024);
    expect(isSmallHome([source(sessions)])).toBe(true);
    truncateSync(first ?? '', 32 * 1024 * 1024 + 1);
    expect(isSmallHome([source(sessions)])).toBe(false);
  });
});
