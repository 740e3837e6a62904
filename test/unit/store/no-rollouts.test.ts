// A home without a single rollout has its start-up check done at once, on the host's thread: a worker
// would only add its own start-up to the first lists, which wait for a new index.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { noRollouts } from '../../../src-main/store/catalog';
import type { RolloutSource } from '../../../src-main/store/repair';
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
