import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointConflictError } from '../../../src-main/checkpoints/errors';
import { git, makeFixture, picture, THREAD, type Fixture } from './helpers';
import { makeTempWorkspace, type TempWorkspace } from '../../support/workspace';

const TURN_SCRIPT = [
  'printf "alpha2\\n" > a.txt',
  'rm gone.txt',
  'mv old.txt new.txt',
  'chmod 755 run.sh',
  'printf "\\000\\001\\002\\377" > blob.bin',
  'ln -s a.txt link',
  'mkdir -p deep/er',
  'echo nested > deep/er/n.txt',
].join(' && ');
const FILES = {
  'a.txt': 'alpha\n',
  'b.txt': 'beta\n',
  'old.txt': 'moving\n',
  'run.sh': 'echo hi\n',
  'gone.txt': 'bye\n',
  'keep/x.txt': 'x\n',
};

describe.each([
  { project: 'plain folder', gitRepo: false },
  { project: 'git repository', gitRepo: true },
])('revert in a $project', ({ gitRepo }) => {
  let fx: Fixture;
  afterEach(async () => fx.cleanup());

  it('puts every file back as it was before the turn, and leaves git alone', async () => {
    fx = await makeFixture(FILES);
    if (gitRepo) {
      git(fx.ws.dir, 'init', '-q');
      git(fx.ws.dir, 'add', '.');
      git(fx.ws.dir, 'commit', '-qm', 'base');
      fx.sh('echo wip >> b.txt && git stash list > /dev/null');
    }
    // The index is read before git itself looks at the tree (`status` may refresh it).
    const gitState = (): Record<string, unknown> => ({
      index: readFileSync(fx.ws.path('.git/index')),
      refs: git(fx.ws.dir, 'show-ref'),
      stash: git(fx.ws.dir, 'stash', 'list'),
      status: git(fx.ws.dir, '--no-optional-locks', 'status', '--porcelain'),
    });
    const gitBefore = gitRepo ? gitState() : null;
    const before = picture(fx.ws.dir);
    await fx.call('turn-1', TURN_SCRIPT);
    await fx.call('turn-2', 'echo more >> a.txt && rm -r keep');
    expect(picture(fx.ws.dir)).not.toEqual(before);

    const outcome = await fx.service.revert({ threadId: THREAD, root: fx.ws.dir, turnIds: ['turn-1', 'turn-2'] });
    expect(picture(fx.ws.dir)).toEqual(before);
    expect(outcome.overwritten).toEqual([]);
    // Files and links: the folders made and removed with them are not counted.
    expect(outcome.restored.sort()).toEqual([
      'a.txt',
      'blob.bin',
      'deep/er/n.txt',
      'gone.txt',
      'keep/x.txt',
      'link',
      'new.txt',
      'old.txt',
      'run.sh',
    ]);
    if (gitBefore !== null) {
      expect(gitState()).toEqual(gitBefore);
    }
  });

  it('undoes only the later turn when asked to', async () => {
    fx = await makeFixture(FILES);
    if (gitRepo) git(fx.ws.dir, 'init', '-q');
    await fx.call('turn-1', 'echo one > a.txt');
    const afterOne = picture(fx.ws.dir);
    await fx.call('turn-2', 'echo two > a.txt && echo t > two.txt');
    await fx.service.revert({ threadId: THREAD, root: fx.ws.dir, turnIds: ['turn-2'] });
    expect(picture(fx.ws.dir)).toEqual(afterOne);
  });
});

describe('conflicts', () => {
  let fx: Fixture;
  afterEach(async () => fx.cleanup());

  it('refuses, naming the files, when someone changed them after the agent; writes nothing', async () => {
    fx = await makeFixture(FILES);
    await fx.call('turn-1', 'echo agent > a.txt && echo agent > b.txt && echo new > c.txt');
    writeFileSync(fx.ws.path('a.txt'), 'user edit\n');
    writeFileSync(fx.ws.path('c.txt'), 'user edit too\n');
    const edited = picture(fx.ws.dir);
    const error = await fx.service
      .revert({ threadId: THREAD, root: fx.ws.dir, turnIds: ['turn-1'] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointConflictError);
    expect(error instanceof CheckpointConflictError && error.conflicts).toEqual(['a.txt', 'c.txt']);
    expect(error instanceof Error && error.message).toContain('a.txt, c.txt');
    expect(picture(fx.ws.dir)).toEqual(edited);
  });

  it('with force overwrites, after saving the user version so the force can be undone', async () => {
    fx = await makeFixture(FILES);
    const original = picture(fx.ws.dir);
    await fx.call('turn-1', 'echo agent > a.txt');
    writeFileSync(fx.ws.path('a.txt'), 'user edit\n');
    const edited = picture(fx.ws.dir);
    const outcome = await fx.service.revert({ threadId: THREAD, root: fx.ws.dir, turnIds: ['turn-1'], force: true });
    expect(outcome.overwritten).toEqual(['a.txt']);
    expect(picture(fx.ws.dir)).toEqual(original);
    const saved = (await fx.service.records.read(THREAD)).find((r) => r.source === 'force-save');
    const userVersion = saved?.changes[0]?.after;
    expect(userVersion?.kind === 'file' && (await fx.service.blobs.read(userVersion.hash ?? '')).toString()).toBe(
      'user edit\n',
    );
    // Redo puts back what the restore replaced: the user's version.
    await fx.service.redo({ threadId: THREAD, root: fx.ws.dir });
    expect(picture(fx.ws.dir)).toEqual(edited);
  });

  it('redo after a plain revert brings the turn back', async () => {
    fx = await makeFixture(FILES);
    await fx.call('turn-1', TURN_SCRIPT);
    const afterTurn = picture(fx.ws.dir);
    await fx.service.revert({ threadId: THREAD, root: fx.ws.dir, turnIds: ['turn-1'] });
    await fx.service.redo({ threadId: THREAD, root: fx.ws.dir });
    expect(picture(fx.ws.dir)).toEqual(afterTurn);
  });
});

describe('safety', () => {
  let fx: Fixture;
  let outside: TempWorkspace;
  afterEach(async () => {
    await fx.cleanup();
    await outside.cleanup();
  });

  it('never follows a symlink out of the workspace: that path is named, the others restored', async () => {
    fx = await makeFixture({ 'dir/f.txt': 'inside\n', 'a.txt': 'a\n' });
    outside = await makeTempWorkspace({ 'f.txt': 'outside\n' });
    await fx.call('turn-1', 'echo changed > dir/f.txt && echo A > a.txt');
    // Someone replaces the folder with a link to a folder outside the workspace.
    rmSync(fx.ws.path('dir'), { recursive: true });
    symlinkSync(outside.dir, fx.ws.path('dir'));
    const outcome = await fx.service.revert({
      threadId: THREAD,
      root: fx.ws.dir,
      turnIds: ['turn-1'],
      force: true,
    });
    expect(outcome.notRestored).toEqual([{ path: 'dir/f.txt', reason: 'dir is a symbolic link' }]);
    expect(outcome.restored).toEqual(['a.txt']);
    expect(readFileSync(fx.ws.path('a.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(join(outside.dir, 'f.txt'), 'utf8')).toBe('outside\n');
  });

  it('rolls back what it wrote when a step fails', async () => {
    fx = await makeFixture({ 'a.txt': 'a\n', 'sub/b.txt': 'b\n' });
    const original = picture(fx.ws.dir);
    await fx.call('turn-1', 'echo A > a.txt && echo B > sub/b.txt && echo c > sub/c.txt');
    const afterTurn = picture(fx.ws.dir);
    const error = await fx.service
      .revert({
        threadId: THREAD,
        root: fx.ws.dir,
        turnIds: ['turn-1'],
        hooks: {
          afterStep: (index) => {
            if (index === 1) throw new Error('disk full');
          },
        },
      })
      .catch((e: unknown) => e);
    expect(error instanceof Error && error.message).toBe('disk full');
    expect(picture(fx.ws.dir)).toEqual(afterTurn);
    expect(original).not.toEqual(afterTurn);
  });
});

describe('folders the turn created', () => {
  let fx: Fixture;
  afterEach(async () => fx.cleanup());

  it('are kept when they hold files Weft does not track', async () => {
    fx = await makeFixture({ '.gitignore': '*.tmp\n' });
    await fx.call('turn-1', 'mkdir out && echo r > out/r.txt');
    writeFileSync(fx.ws.path('out/x.tmp'), 'ignored');
    const outcome = await fx.service.revert({ threadId: THREAD, root: fx.ws.dir, turnIds: ['turn-1'], force: true });
    expect(picture(fx.ws.dir)).toEqual({
      '.gitignore': expect.stringMatching(/^file:/),
      out: 'dir:755',
      'out/x.tmp': expect.stringMatching(/^file:/),
    });
    expect(outcome.notRestored).toEqual([{ path: 'out', reason: 'the folder still holds files Weft does not track' }]);
    expect(outcome.restored).toEqual(['out/r.txt']);
  });
});

describe('a restore across many folders', () => {
  let fx: Fixture;
  afterEach(async () => fx.cleanup());

  it('puts back 300 folders, more than it holds open at once', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`f${i}/deep/x.txt`] = `${i}\n`;
    fx = await makeFixture(files);
    const original = picture(fx.ws.dir);
    await fx.call('turn-1', 'rm -r f*');
    const outcome = await fx.service.revert({ threadId: THREAD, root: fx.ws.dir, turnIds: ['turn-1'] });
    expect(outcome.notRestored).toEqual([]);
    // 300 files; their 600 folders came back with them (the picture) but are not counted.
    expect(outcome.restored).toHaveLength(300);
    expect(picture(fx.ws.dir)).toEqual(original);
  });
});
