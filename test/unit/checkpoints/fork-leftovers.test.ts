// What interrupted forks leave, judged and cleaned: a branch holding commits found nowhere else is kept
// (its folder holds nothing of its own and goes), a fork whose process still runs is left alone, and a
// folder of the worktrees dir not named like a fork's is never looked at.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createForkFiles } from '../../../src-main/checkpoints/fork-files';
import { cleanForkLeftovers } from '../../../src-main/checkpoints/fork-leftovers';
import { git, makeFixture, THREAD, type Fixture } from './helpers';

describe('fork leftovers', () => {
  let fx: Fixture;
  afterEach(async () => fx.cleanup());

  async function leftover(shortId: string, pid: number): Promise<string> {
    const state = await fx.service.stateWithout({ threadId: THREAD, root: fx.ws.dir, laterTurnIds: [] });
    const worktreesDir = join(fx.home.dir, 'worktrees');
    const folder = join(worktreesDir, shortId);
    await fx.service.forks.begin({ v: 1, shortId, folder, root: fx.ws.dir, pid, startedAt: new Date().toISOString() });
    await createForkFiles({ root: fx.ws.dir, state, blobs: fx.service.blobs, worktreesDir, shortId });
    return folder;
  }

  it('keeps a branch with commits of its own, removes its folder, and leaves busy and foreign folders alone', async () => {
    fx = await makeFixture({ 'a.txt': 'a\n' });
    git(fx.ws.dir, 'init', '-q');
    git(fx.ws.dir, 'add', '.');
    git(fx.ws.dir, 'commit', '-qm', 'base');
    await fx.call('turn-1', 'echo changed > a.txt');
    const committed = await leftover('0000aaaa', 999_999_999);
    git(committed, 'commit', '-qam', 'work done in the fork');
    const busy = await leftover('0000bbbb', process.pid);
    const foreign = join(fx.home.dir, 'worktrees', 'my-notes');
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'n.txt'), 'mine\n');

    const report = await cleanForkLeftovers({
      worktreesDir: join(fx.home.dir, 'worktrees'),
      forks: fx.service.forks,
      blobs: fx.service.blobs,
      alive: (pid) => pid === process.pid,
    });
    expect(report).toEqual({
      removedFolders: [committed],
      removedBranches: [],
      kept: [
        {
          path: `${join(fx.ws.dir, '.git')}: weft/0000aaaa`,
          reason:
            'left by an interrupted fork, the branch has 1 commit(s) no other branch has; merge or delete it yourself',
        },
      ],
      problems: [],
    });
    expect(existsSync(busy)).toBe(true);
    expect(existsSync(join(foreign, 'n.txt'))).toBe(true);
    expect(git(fx.ws.dir, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/weft/').trim().split('\n')).toEqual([
      'weft/0000aaaa',
      'weft/0000bbbb',
    ]);
    expect((await fx.service.forks.pending()).map((p) => p.shortId)).toEqual(['0000bbbb']);
  });
});
