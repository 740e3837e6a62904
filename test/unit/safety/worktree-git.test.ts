// What a worktree thread's sandbox makes writable for a commit on its own branch (worktree-git.ts), on
// real git worktrees: the admin folder without its links and config, the objects without alternates and
// packs, the branch's ref folder with its other branches read-only, the reflog; nothing at all when the
// worktree is not as the thread recorded it, and no ref folder when a branch of it is only packed.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { worktreeCommitRoots } from '../../../src-main/safety/sandbox/worktree-git';
import { makeGitRepo, type GitRepo } from '../../support/git-repo';
import { makeTempWorkspace, type TempWorkspace } from '../../support/workspace';

let repo: GitRepo | undefined;
let outside: TempWorkspace | undefined;

afterEach(async () => {
  await repo?.cleanup();
  await outside?.cleanup();
  repo = outside = undefined;
});

const WRITE = { type: 'workspaceWrite' } as const;

async function setUp(): Promise<{ repo: GitRepo; path: string; common: string; admin: string }> {
  repo = await makeGitRepo({ 'a.txt': 'a\n' });
  outside = await makeTempWorkspace();
  const path = outside.path('wt');
  await repo.git('worktree', 'add', '-q', '-b', 'weft/abc123', path);
  await repo.git('branch', 'weft/other');
  const common = repo.path('.git');
  return { repo, path, common, admin: join(common, 'worktrees', 'wt') };
}

describe('worktreeCommitRoots', () => {
  it('makes what a commit writes writable, and keeps links, config, packs and other branches read-only', async () => {
    const { path, common, admin } = await setUp();
    const roots = await worktreeCommitRoots(WRITE, join(path), { path, branch: 'weft/abc123' });
    expect(roots).toEqual([
      {
        root: admin,
        readOnlySubpaths: ['commondir', 'gitdir', 'HEAD', 'config.worktree'].map((n) => join(admin, n)),
      },
      { root: join(common, 'objects'), readOnlySubpaths: [join(common, 'objects/info'), join(common, 'objects/pack')] },
      { root: join(common, 'refs/heads/weft'), readOnlySubpaths: [join(common, 'refs/heads/weft/other')] },
      { root: join(common, 'logs/refs/heads/weft/abc123'), readOnlySubpaths: [] },
    ]);
    // A config.worktree is there, empty, so none can be planted for later.
    expect(await readFile(join(admin, 'config.worktree'), 'utf8')).toBe('');
  });

  it('grants nothing for another branch, a cwd outside the worktree, a read-only policy or a worktree of another repository', async () => {
    const { path, admin } = await setUp();
    expect(await worktreeCommitRoots(WRITE, path, { path, branch: 'main' })).toEqual([]);
    expect(await worktreeCommitRoots(WRITE, outside?.dir ?? '', { path, branch: 'weft/abc123' })).toEqual([]);
    expect(await worktreeCommitRoots({ type: 'readOnly' }, path, { path, branch: 'weft/abc123' })).toEqual([]);
    // The admin folder's link back names another folder: not this worktree's.
    await writeFile(join(admin, 'gitdir'), `${outside?.path('elsewhere/.git') ?? ''}\n`);
    expect(await worktreeCommitRoots(WRITE, path, { path, branch: 'weft/abc123' })).toEqual([]);
  });

  it('leaves the ref folder read-only when a branch of it is only in packed-refs', async () => {
    const { repo: r, path, common } = await setUp();
    await r.git('pack-refs', '--all');
    // pack-refs drops the loose refs; the thread's own is written loose again by its next commit.
    const roots = await worktreeCommitRoots(WRITE, path, { path, branch: 'weft/abc123' });
    expect(roots.map((root) => root.root)).toEqual([
      join(common, 'worktrees/wt'),
      join(common, 'objects'),
      join(common, 'logs/refs/heads/weft/abc123'),
    ]);
  });
});
