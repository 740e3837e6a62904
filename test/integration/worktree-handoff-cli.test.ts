// `weft worktrees handoff` from a terminal, the built binary against a worktree thread made over the real
// app server (real git, the real sandbox): the preview lists each file and shows a conflict as the two
// sides' diff; --apply refuses while a conflict has no side chosen (nothing written), and writes once
// --take-local / --take-worktree chose one. The other direction moves the local changes into the worktree.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runWeftCli } from '../support/weft-cli';
import { answer, command, startWorktreeApp, type WorktreeApp } from '../support/worktree-app';

let app: WorktreeApp | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const FILES = { 'a.txt': TEN, 'b.txt': 'b as committed\n', 'keep.txt': 'untouched\n' };

describe('weft worktrees handoff', () => {
  it('previews a thread’s work with its conflict shown, refuses --apply until a side is chosen, then writes it', async () => {
    app = await startWorktreeApp(FILES);
    const { repo, home } = app;
    const started = await app.startWorktree();
    const threadId = started.thread.id;
    app.server.enqueueMany([
      command(
        'c1',
        [
          "sed -i 's/^line 9$/line nine, from the thread/' a.txt",
          'echo new from the thread > new.txt',
          'echo b from the thread > b.txt',
        ].join(' && '),
      ),
      answer('done'),
    ]);
    await app.turn(threadId, 'work');
    const mineA = TEN.replace('line 1\n', 'line one, mine\n');
    await writeFile(repo.path('a.txt'), mineA);
    await writeFile(repo.path('b.txt'), 'b, mine\n');
    const cli = (...args: string[]) =>
      runWeftCli(['worktrees', 'handoff', ...args], { cwd: repo.dir, weftHome: home.dir });
    const local = async () => ({
      a: await readFile(repo.path('a.txt'), 'utf8'),
      b: await readFile(repo.path('b.txt'), 'utf8'),
      new: existsSync(repo.path('new.txt')),
    });
    const untouched = { a: mineA, b: 'b, mine\n', new: false };

    const preview = await cli(threadId);
    expect({ code: preview.code, stderr: preview.stderr }).toEqual({ code: 0, stderr: '' });
    expect(preview.stdout).toBe(
      [
        `Handoff of thread ${threadId} (branch ${started.worktree.branch}) to the local checkout ${repo.dir}:`,
        '  merge     a.txt',
        '  conflict  b.txt: changed in both, in the same lines',
        '  apply     new.txt (new)',
        '',
        'Conflict in b.txt (- local, + the thread’s worktree):',
        '@@ -1,1 +1,1 @@',
        '-b, mine',
        '+b from the thread',
        '',
        '1 conflict: nothing is written until you choose a side for each: --take-local PATH keeps the local',
        'version, --take-worktree PATH takes the worktree’s. Then run it again with --apply.',
        '',
      ].join('\n'),
    );
    expect(await local()).toEqual(untouched);

    const refused = await cli(threadId, '--apply');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'weft worktrees: 1 file was changed on both sides (b.txt) and no side was chosen: nothing was written; ' +
        'choose one for each with --take-local PATH or --take-worktree PATH\n',
    );
    expect(await local()).toEqual(untouched);

    const applied = await cli(threadId, '--apply', '--take-worktree', 'b.txt');
    expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: 0, stderr: '' });
    expect(applied.stdout).toBe(
      [
        `Handed off thread ${threadId} to the local checkout ${repo.dir}:`,
        '  written: new.txt',
        '  merged: a.txt',
        '  overwritten: b.txt (the version it replaced is kept: the Changes panel lists it with Restore)',
        '',
      ].join('\n'),
    );
    expect(await local()).toEqual({
      a: mineA.replace('line 9\n', 'line nine, from the thread\n'),
      b: 'b from the thread\n',
      new: true,
    });
    expect(await readFile(repo.path('new.txt'), 'utf8')).toBe('new from the thread\n');
  });

  it('moves the local checkout’s uncommitted changes into the worktree with --to worktree --move, as JSON', async () => {
    app = await startWorktreeApp(FILES);
    const { repo, home } = app;
    const started = await app.startWorktree();
    // A thread is saved with its first turn; until then only the app that started it knows it.
    app.server.enqueue(answer('ready'));
    await app.turn(started.thread.id, 'hello');
    await writeFile(repo.path('keep.txt'), 'changed locally\n');
    const run = await runWeftCli(
      ['worktrees', 'handoff', started.thread.id, '--to', 'worktree', '--apply', '--move', '--json'],
      { cwd: repo.dir, weftHome: home.dir },
    );
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({
      direction: 'toWorktree',
      written: ['keep.txt'],
      merged: [],
      overwritten: [],
      kept: [],
      notWritten: [],
      moved: ['keep.txt'],
      threadCwd: started.worktree.path,
    });
    expect(await readFile(join(started.worktree.path, 'keep.txt'), 'utf8')).toBe('changed locally\n');
    expect(await readFile(repo.path('keep.txt'), 'utf8')).toBe('untouched\n');
  });

  it('says why for a thread that is not a worktree thread, and for a bad --to', async () => {
    app = await startWorktreeApp(FILES);
    const { repo, home } = app;
    const { thread } = await app.ok<{ thread: { id: string } }>('thread/start', { cwd: repo.dir });
    app.server.enqueue(answer('ready'));
    await app.turn(thread.id, 'hello');
    const run = await runWeftCli(['worktrees', 'handoff', thread.id], { cwd: repo.dir, weftHome: home.dir });
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `weft worktrees: params.threadId: thread ${thread.id} works in the project's own folder, not in a worktree of its own; a handoff moves work between a worktree thread and the local checkout\n`,
    });
    const bad = await runWeftCli(['worktrees', 'handoff', thread.id, '--to', 'elsewhere'], {
      cwd: repo.dir,
      weftHome: home.dir,
    });
    expect(bad).toEqual({
      code: 1,
      stdout: '',
      stderr: 'weft worktrees: --to must be local or worktree, got "elsewhere"\n',
    });
  });
});
