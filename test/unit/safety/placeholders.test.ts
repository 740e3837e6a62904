import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimPlaceholder, releasePlaceholder } from '../../../src-main/safety/sandbox/placeholders';

let base: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'weft-placeholders-unit-')));
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** The pid of a process that has ended. */
function deadPid(): number {
  const child = spawnSync('true');
  if (child.pid === undefined) throw new Error('could not start `true`');
  return child.pid;
}

const entries = async (dir: string): Promise<string[]> => (await readdir(dir)).sort();

describe('sandbox placeholders', () => {
  it('are made once per process, counted, and removed by the last release', async () => {
    const path = join(base, '.git');
    // Two commands at once: the second waits for the first claim, and shares its lease.
    expect(await Promise.all([claimPlaceholder(path), claimPlaceholder(path)])).toEqual(['claimed', 'claimed']);
    // One lease for the two commands of this process.
    expect(await entries(path)).toEqual([
      expect.stringMatching(new RegExp(`^\\.weft-sandbox-placeholder\\.${process.pid}\\.\\d+$`)),
    ]);
    await releasePlaceholder(path);
    expect(await entries(base)).toEqual(['.git']);
    await releasePlaceholder(path);
    await releasePlaceholder(path);
    expect(await entries(base)).toEqual([]);
  });

  it('a folder with content is never claimed nor written', async () => {
    const path = join(base, '.agents');
    await mkdir(join(path, 'skills'), { recursive: true });
    await writeFile(join(base, '.weft'), 'a file\n');
    expect(await Promise.all([claimPlaceholder(path), claimPlaceholder(join(base, '.weft'))])).toEqual([
      'existing',
      'existing',
    ]);
    expect(await entries(path)).toEqual(['skills']);
  });

  it("takes over a placeholder whose process died, and removes it; another live process's keeps it", async () => {
    const orphan = join(base, 'orphan');
    await mkdir(orphan);
    await writeFile(join(orphan, `.weft-sandbox-placeholder.${deadPid()}.1`), '');
    expect(await claimPlaceholder(orphan)).toBe('claimed');
    expect(await entries(orphan)).toEqual([expect.stringMatching(/^\.weft-sandbox-placeholder\./)]);
    await releasePlaceholder(orphan);
    expect(await entries(base)).toEqual([]);

    const shared = join(base, 'shared');
    await mkdir(shared);
    // pid 1 lives as long as the machine does.
    const other = '.weft-sandbox-placeholder.1.7';
    await writeFile(join(shared, other), '');
    expect(await claimPlaceholder(shared)).toBe('claimed');
    await releasePlaceholder(shared);
    expect(await entries(shared)).toEqual([other]);
  });

  it('an empty folder that was there before is used and left in place, empty', async () => {
    const path = join(base, '.weft');
    await mkdir(path);
    expect(await claimPlaceholder(path)).toBe('claimed');
    expect(await entries(path)).toEqual([expect.stringMatching(/^\.weft-sandbox-in-use\./)]);
    await releasePlaceholder(path);
    expect(await entries(base)).toEqual(['.weft']);
    expect(await entries(path)).toEqual([]);
  });

  it('cannot be made where the parent is missing: bwrap is left to it', async () => {
    expect(await claimPlaceholder(join(base, 'missing', '.git'))).toBe('unclaimable');
  });
});
