import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findProjectRoot } from '../../../src-main/config/project';
import { hasMarker } from '../../../src-main/util/markers';
import { findRepoRoot } from '../../../src-main/tools/turn-diff';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-markers-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('project-root markers', () => {
  it('an empty .git folder (a sandbox placeholder) is no repository; one with HEAD, or a .git file, is', async () => {
    await mkdir(join(dir, 'placeholder', '.git'), { recursive: true });
    await mkdir(join(dir, 'repo', '.git'), { recursive: true });
    await writeFile(join(dir, 'repo', '.git', 'HEAD'), 'ref: refs/heads/main\n');
    await mkdir(join(dir, 'worktree'));
    await writeFile(join(dir, 'worktree', '.git'), 'gitdir: ../repo/.git/worktrees/w\n');
    const results = await Promise.all(['placeholder', 'repo', 'worktree'].map((d) => hasMarker(join(dir, d), '.git')));
    expect(results).toEqual([false, true, true]);
    // The turn diff's root: the repository above a folder, never a placeholder.
    await mkdir(join(dir, 'repo', 'sub', '.git'), { recursive: true });
    expect(await findRepoRoot(join(dir, 'repo', 'sub'))).toBe(join(dir, 'repo'));
    // Other markers count by existence.
    await writeFile(join(dir, 'placeholder', 'package.json'), '{}');
    expect(await hasMarker(join(dir, 'placeholder'), 'package.json')).toBe(true);
  });

  it('a placeholder .git does not make a folder inside a repository its own project root', async () => {
    await mkdir(join(dir, 'repo', '.git'), { recursive: true });
    await writeFile(join(dir, 'repo', '.git', 'HEAD'), 'ref: refs/heads/main\n');
    await mkdir(join(dir, 'repo', 'pkg', '.git'), { recursive: true });
    expect(await findProjectRoot(join(dir, 'repo', 'pkg'), ['.git'])).toBe(
      await findProjectRoot(join(dir, 'repo'), ['.git']),
    );
  });
});
