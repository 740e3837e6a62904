// A worktree thread's agent commits on its own branch, in the real bubblewrap sandbox (workspace-write),
// through the real `weft app-server`: `git add` and `git commit` in its worktree work, while the
// repository's config, its hooks, the worktree's own links to the repository, the project's other branches
// (the main checkout's, and another worktree thread's in the same ref folder) and the project's files stay
// read-only to it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answer, command, gitIn, startWorktreeApp, type WorktreeApp } from '../support/worktree-app';

let app: WorktreeApp | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('git inside a worktree thread’s sandbox', () => {
  it('commits on the thread’s branch; config, hooks, the worktree’s links, other branches and the project stay read-only', async () => {
    app = await startWorktreeApp({ 'a.txt': 'one\n' });
    const { repo } = app;
    const other = await app.startWorktree();
    const mine = await app.startWorktree();
    const common = repo.path('.git');
    const admin = (await gitIn(mine.worktree.path, 'rev-parse', '--path-format=absolute', '--git-dir')).trim();
    expect(admin).toBe(join(common, 'worktrees', mine.worktree.path.split('/').at(-1) ?? ''));
    const before = {
      config: await readFile(join(common, 'config'), 'utf8'),
      main: (await repo.git('rev-parse', 'main')).trim(),
      other: (await repo.git('rev-parse', other.worktree.branch)).trim(),
      status: await repo.git('status', '--porcelain', '--untracked-files=all'),
    };
    const targets = [
      join(common, 'config'),
      join(common, 'hooks', 'pre-commit'),
      join(common, 'refs', 'heads', 'main'),
      join(common, 'refs', 'heads', other.worktree.branch),
      join(common, 'packed-refs'),
      join(admin, 'commondir'),
      join(admin, 'gitdir'),
      join(admin, 'HEAD'),
      join(admin, 'config.worktree'),
      repo.path('a.txt'),
    ];
    const script = [
      'echo made by the agent > agent.txt',
      'git add agent.txt',
      'git commit -q -m "Agent work" && echo COMMIT=ok || echo COMMIT=failed',
      ...targets.map((t) => `(echo x >> '${t}') 2>/dev/null && echo 'WROTE ${t}' || echo 'REFUSED ${t}'`),
      'git branch try-a-branch 2>/dev/null && echo BRANCH=made || echo BRANCH=refused',
      'git update-ref refs/heads/main HEAD 2>/dev/null && echo MAIN=moved || echo MAIN=kept',
    ].join('\n');
    app.server.enqueueMany([command('c1', script), answer('committed')]);
    await app.turn(mine.thread.id, 'commit your work');

    const [item] = app.commands(mine.thread.id);
    expect(item?.aggregatedOutput?.split('\n').filter((line) => line !== '')).toEqual([
      'COMMIT=ok',
      ...targets.map((t) => `REFUSED ${t}`),
      'BRANCH=refused',
      'MAIN=kept',
    ]);
    // The commit is on the thread's branch, seen from the project; nothing else moved.
    expect((await repo.git('log', '-1', '--format=%s', mine.worktree.branch)).trim()).toBe('Agent work');
    expect((await repo.git('show', `${mine.worktree.branch}:agent.txt`)).trim()).toBe('made by the agent');
    expect(await gitIn(mine.worktree.path, 'status', '--porcelain')).toBe('');
    expect({
      config: await readFile(join(common, 'config'), 'utf8'),
      main: (await repo.git('rev-parse', 'main')).trim(),
      other: (await repo.git('rev-parse', other.worktree.branch)).trim(),
      status: await repo.git('status', '--porcelain', '--untracked-files=all'),
    }).toEqual(before);
    expect(await repo.git('branch', '--list', 'try-a-branch')).toBe('');
  });
});
