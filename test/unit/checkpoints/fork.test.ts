import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createForkFiles } from '../../../src-main/checkpoints/fork-files';
import { git, makeFixture, picture, THREAD, type Fixture } from './helpers';

describe('fork with files', () => {
  let fx: Fixture;
  afterEach(async () => fx.cleanup());

  it('in a git project: a worktree on a new branch holding the files as they were after the turn', async () => {
    fx = await makeFixture({ 'a.txt': 'a\n', 'tracked-gone.txt': 'x\n', '.gitignore': 'node_modules/\n' });
    git(fx.ws.dir, 'init', '-q');
    git(fx.ws.dir, 'add', '.');
    git(fx.ws.dir, 'commit', '-qm', 'base');
    await fx.call(
      'turn-1',
      'echo A > a.txt && rm tracked-gone.txt && mkdir -p new/dir && echo n > new/dir/n.txt && ln -s a.txt link && chmod 755 a.txt',
    );
    const afterOne = picture(fx.ws.dir, (rel) => rel.startsWith('node_modules'));
    await fx.call('turn-2', 'echo later > a.txt && echo l > later.txt');
    const original = picture(fx.ws.dir);

    const state = await fx.service.stateWithout({ threadId: THREAD, root: fx.ws.dir, laterTurnIds: ['turn-2'] });
    const fork = await createForkFiles({
      root: fx.ws.dir,
      state,
      blobs: fx.service.blobs,
      worktreesDir: join(fx.home.dir, 'worktrees'),
      shortId: 'abc123',
    });
    expect(fork).toEqual({
      cwd: join(fx.home.dir, 'worktrees', 'abc123'),
      kind: 'worktree',
      branch: 'weft/abc123',
      // Made from the project's branch, at its HEAD.
      base: {
        ref: git(fx.ws.dir, 'symbolic-ref', '--short', 'HEAD').trim(),
        commit: git(fx.ws.dir, 'rev-parse', 'HEAD').trim(),
      },
      notes: [],
    });
    expect(picture(fork.cwd)).toEqual(afterOne);
    expect(git(fork.cwd, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('weft/abc123');
    expect(git(fx.ws.dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).not.toBe('weft/abc123');

    // A command in the fork never touches the original.
    execFileSync('sh', ['-c', 'echo fork > a.txt && rm later.txt 2>/dev/null; echo f > f.txt'], { cwd: fork.cwd });
    expect(picture(fx.ws.dir)).toEqual(original);
    rmSync(fork.cwd, { recursive: true, force: true });
    git(fx.ws.dir, 'worktree', 'prune');
  });

  it('in a plain folder: a copy holding the files as they were after the turn', async () => {
    fx = await makeFixture({ 'a.txt': 'a\n', 'b.bin': '\u0000\u0001' });
    await fx.call('turn-1', 'echo A > a.txt && mkdir sub && echo s > sub/s.txt');
    const afterOne = picture(fx.ws.dir);
    await fx.call('turn-2', 'rm a.txt && echo later > sub/s.txt');
    const original = picture(fx.ws.dir);

    const state = await fx.service.stateWithout({ threadId: THREAD, root: fx.ws.dir, laterTurnIds: ['turn-2'] });
    const fork = await createForkFiles({
      root: fx.ws.dir,
      state,
      blobs: fx.service.blobs,
      worktreesDir: join(fx.home.dir, 'worktrees'),
      shortId: 'def456',
    });
    expect(fork.kind).toBe('copy');
    expect(fork.base).toBeNull();
    expect(picture(fork.cwd)).toEqual(afterOne);
    execFileSync('sh', ['-c', 'echo fork > a.txt && rm -r sub'], { cwd: fork.cwd });
    expect(picture(fx.ws.dir)).toEqual(original);
  });
});
