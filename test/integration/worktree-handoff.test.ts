// Handoff over the real `weft app-server`, with real git and the real sandbox: a worktree thread's work
// (committed by its agent, and not) brought to the local checkout, and the local checkout's uncommitted
// changes moved into the worktree. Each is previewed first; a file both sides changed in other lines is
// merged, one changed in the same lines is a conflict that refuses the handoff (-32010) until the person
// picks a side, and nothing is ever written over the person's own version without that choice.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answer, command, gitIn, startWorktreeApp, type WorktreeApp } from '../support/worktree-app';

let app: WorktreeApp | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const FILES = { 'a.txt': TEN, 'b.txt': 'b as committed\n', 'c.txt': 'c\n', 'keep.txt': 'untouched\n' };

interface Preview {
  direction: string;
  local: string;
  worktree: string;
  branch: string;
  base: string;
  files: Record<string, unknown>[];
  fingerprint: string;
}

const side = (kind: string, text: string | null = null) => ({ kind, text });

describe('weft/worktree/handoff', () => {
  it('brings the thread’s committed and uncommitted work to the local checkout, merging, and refuses a conflict until a side is chosen', async () => {
    app = await startWorktreeApp(FILES);
    const { repo } = app;
    const base = (await repo.git('rev-parse', 'HEAD')).trim();
    const started = await app.startWorktree();
    const wt = started.worktree.path;
    app.server.enqueueMany([
      command(
        'c1',
        [
          "sed -i 's/^line 9$/line nine, from the thread/' a.txt",
          'echo new from the thread > new.txt',
          'git add -A && git commit -qm "Thread work"',
          'echo b from the thread > b.txt',
          'rm c.txt',
        ].join(' && '),
      ),
      answer('done'),
    ]);
    await app.turn(started.thread.id, 'work');
    expect(app.commands(started.thread.id)[0]?.exitCode).toBe(0);
    // The person's own uncommitted work in the local checkout meanwhile.
    const mineA = TEN.replace('line 1\n', 'line one, mine\n');
    await writeFile(repo.path('a.txt'), mineA);
    await writeFile(repo.path('b.txt'), 'b, mine\n');

    const preview = await app.ok<Preview>('weft/worktree/handoff/preview', {
      threadId: started.thread.id,
      direction: 'toLocal',
    });
    const merged = mineA.replace('line 9\n', 'line nine, from the thread\n');
    expect(preview).toEqual({
      direction: 'toLocal',
      local: repo.dir,
      worktree: wt,
      branch: started.worktree.branch,
      base,
      fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/) as unknown,
      files: [
        {
          path: 'a.txt',
          status: 'merge',
          change: 'update',
          local: side('file', mineA),
          worktree: side('file', TEN.replace('line 9\n', 'line nine, from the thread\n')),
          result: merged,
          binary: false,
          reason: null,
        },
        {
          path: 'b.txt',
          status: 'conflict',
          change: 'update',
          local: side('file', 'b, mine\n'),
          worktree: side('file', 'b from the thread\n'),
          result: null,
          binary: false,
          reason: 'changed in both, in the same lines',
        },
        {
          path: 'c.txt',
          status: 'apply',
          change: 'delete',
          local: side('file', 'c\n'),
          worktree: side('absent'),
          result: null,
          binary: false,
          reason: null,
        },
        {
          path: 'new.txt',
          status: 'apply',
          change: 'add',
          local: side('absent'),
          worktree: side('file', 'new from the thread\n'),
          result: null,
          binary: false,
          reason: null,
        },
      ],
    });

    const localNow = async () => ({
      a: await readFile(repo.path('a.txt'), 'utf8'),
      b: await readFile(repo.path('b.txt'), 'utf8'),
      c: existsSync(repo.path('c.txt')),
      new: existsSync(repo.path('new.txt')),
    });
    const untouched = { a: mineA, b: 'b, mine\n', c: true, new: false };
    // A conflict without a choice: refused, nothing written.
    const refused = await app.client.call('weft/worktree/handoff', {
      threadId: started.thread.id,
      direction: 'toLocal',
      fingerprint: preview.fingerprint,
    });
    expect(refused.error).toEqual({
      code: -32010,
      message: '1 file was changed on both sides (b.txt): nothing was written; choose which side to keep for each',
      data: { conflicts: ['b.txt'], stale: false },
    });
    expect(await localNow()).toEqual(untouched);
    // The local checkout changed after the preview: the preview no longer holds, nothing written.
    await writeFile(repo.path('keep.txt'), 'changed after the preview\n');
    await writeFile(repo.path('a.txt'), `${mineA}one more\n`);
    const stale = await app.client.call('weft/worktree/handoff', {
      threadId: started.thread.id,
      direction: 'toLocal',
      fingerprint: preview.fingerprint,
      resolutions: [{ path: 'b.txt', take: 'local' }],
    });
    expect(stale.error).toEqual({
      code: -32010,
      message: 'the files changed since the preview: nothing was written; look at the handoff again',
      data: { conflicts: ['b.txt'], stale: true },
    });
    expect(await localNow()).toEqual({ ...untouched, a: `${mineA}one more\n` });
    await writeFile(repo.path('a.txt'), mineA);

    // Keep mine for the conflict: the rest comes over, the person's b.txt stays.
    const again = await app.ok<Preview>('weft/worktree/handoff/preview', {
      threadId: started.thread.id,
      direction: 'toLocal',
    });
    expect(again.fingerprint).toBe(preview.fingerprint);
    const done = await app.ok('weft/worktree/handoff', {
      threadId: started.thread.id,
      direction: 'toLocal',
      fingerprint: again.fingerprint,
      resolutions: [{ path: 'b.txt', take: 'local' }],
    });
    expect(done).toEqual({
      direction: 'toLocal',
      written: ['a.txt', 'c.txt', 'new.txt'],
      merged: ['a.txt'],
      overwritten: [],
      kept: ['b.txt'],
      notWritten: [],
      moved: [],
      threadCwd: null,
    });
    expect(await localNow()).toEqual({ a: merged, b: 'b, mine\n', c: false, new: true });
    expect(await readFile(repo.path('new.txt'), 'utf8')).toBe('new from the thread\n');
    // The worktree (the source) is as it was: its commit, its uncommitted changes.
    expect(await gitIn(wt, 'status', '--porcelain')).toBe(' M b.txt\n D c.txt\n');
    expect((await gitIn(wt, 'log', '-1', '--format=%s')).trim()).toBe('Thread work');

    // Now only the conflict is left; taking the thread's side replaces the person's file, kept as a discard.
    const last = await app.ok<Preview>('weft/worktree/handoff/preview', {
      threadId: started.thread.id,
      direction: 'toLocal',
    });
    expect(last.files.map((f) => [f.path, f.status])).toEqual([
      ['a.txt', 'same'],
      ['b.txt', 'conflict'],
      ['c.txt', 'same'],
      ['new.txt', 'same'],
    ]);
    const taken = await app.ok<{ overwritten: string[] }>('weft/worktree/handoff', {
      threadId: started.thread.id,
      direction: 'toLocal',
      resolutions: [{ path: 'b.txt', take: 'worktree' }],
    });
    expect(taken.overwritten).toEqual(['b.txt']);
    expect(await readFile(repo.path('b.txt'), 'utf8')).toBe('b from the thread\n');
    const discards = await app.ok<{ discards: Record<string, unknown>[] }>('weft/git/discard/list', { cwd: repo.dir });
    expect(discards.discards).toEqual([
      expect.objectContaining({ path: 'b.txt', summary: 'replaced by a handoff from the worktree', restored: false }),
    ]);
  });

  it('moves the local checkout’s uncommitted changes into the worktree when asked, keeping the worktree’s side of a conflict', async () => {
    app = await startWorktreeApp(FILES);
    const { repo } = app;
    const started = await app.startWorktree();
    const wt = started.worktree.path;
    app.server.enqueueMany([command('c1', 'echo b by the thread > b.txt'), answer('done')]);
    await app.turn(started.thread.id, 'work');
    await writeFile(repo.path('c.txt'), 'c, changed locally\n');
    await writeFile(repo.path('fresh.txt'), 'a new local file\n');
    await writeFile(repo.path('b.txt'), 'b, mine\n');

    const preview = await app.ok<Preview>('weft/worktree/handoff/preview', {
      threadId: started.thread.id,
      direction: 'toWorktree',
    });
    expect(preview.files.map((f) => [f.path, f.status, f.change])).toEqual([
      ['b.txt', 'conflict', 'update'],
      ['c.txt', 'apply', 'update'],
      ['fresh.txt', 'apply', 'add'],
    ]);
    expect(preview.base).toBe((await repo.git('rev-parse', 'HEAD')).trim());
    const done = await app.ok('weft/worktree/handoff', {
      threadId: started.thread.id,
      direction: 'toWorktree',
      fingerprint: preview.fingerprint,
      resolutions: [{ path: 'b.txt', take: 'worktree' }],
      move: true,
    });
    expect(done).toEqual({
      direction: 'toWorktree',
      written: ['c.txt', 'fresh.txt'],
      merged: [],
      overwritten: [],
      kept: ['b.txt'],
      notWritten: [],
      moved: ['c.txt', 'fresh.txt'],
      // The thread already works in its worktree: it stays there.
      threadCwd: wt,
    });
    // In the worktree now; gone from the local checkout (back to its HEAD), except the kept conflict.
    expect(await readFile(join(wt, 'c.txt'), 'utf8')).toBe('c, changed locally\n');
    expect(await readFile(join(wt, 'fresh.txt'), 'utf8')).toBe('a new local file\n');
    expect(await readFile(join(wt, 'b.txt'), 'utf8')).toBe('b by the thread\n');
    expect(await repo.git('status', '--porcelain', '--untracked-files=all')).toBe(' M b.txt\n');
    expect(await readFile(repo.path('b.txt'), 'utf8')).toBe('b, mine\n');

    // The thread's next command sees them.
    app.server.enqueueMany([command('c2', 'cat c.txt fresh.txt'), answer('read')]);
    await app.turn(started.thread.id, 'read them');
    expect(app.commands(started.thread.id)[1]?.aggregatedOutput).toBe('c, changed locally\na new local file\n');
  });

  it('leaves out a file the person keeps on their side, and refuses a choice for a file it does not write', async () => {
    app = await startWorktreeApp(FILES);
    const started = await app.startWorktree();
    app.server.enqueueMany([command('c1', 'echo x > x.txt && echo y > y.txt'), answer('done')]);
    await app.turn(started.thread.id, 'work');
    const done = await app.ok('weft/worktree/handoff', {
      threadId: started.thread.id,
      direction: 'toLocal',
      resolutions: [{ path: 'y.txt', take: 'local' }],
    });
    expect(done).toEqual({
      direction: 'toLocal',
      written: ['x.txt'],
      merged: [],
      overwritten: [],
      kept: ['y.txt'],
      notWritten: [],
      moved: [],
      threadCwd: null,
    });
    expect(existsSync(app.repo.path('x.txt'))).toBe(true);
    expect(existsSync(app.repo.path('y.txt'))).toBe(false);
    const wrong = await app.client.call('weft/worktree/handoff', {
      threadId: started.thread.id,
      direction: 'toLocal',
      resolutions: [{ path: 'x.txt', take: 'worktree' }],
    });
    expect(wrong.error).toEqual({
      code: -32602,
      message: 'resolutions: x.txt is not a file this handoff writes',
    });
  });

  it('refuses a thread that works in the project’s own folder, saying why', async () => {
    app = await startWorktreeApp(FILES);
    const local = await app.ok<{ thread: { id: string } }>('thread/start', { cwd: app.repo.dir });
    const reply = await app.client.call('weft/worktree/handoff/preview', {
      threadId: local.thread.id,
      direction: 'toLocal',
    });
    expect(reply.error).toEqual({
      code: -32602,
      message: `params.threadId: thread ${local.thread.id} works in the project's own folder, not in a worktree of its own; a handoff moves work between a worktree thread and the local checkout`,
    });
  });
});
