// A Handoff that moves (`move: true`, `weft worktrees handoff --apply --move`) moves the thread with its
// work: handed to the local checkout, the thread works there from then on — its `cwd` is the checkout, in
// the loaded thread, in a read of the saved one and after a restart, and its next turn runs its commands
// there — and handed back to its worktree, it works in the worktree again. Real app server, git, sandbox.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GIT_ENV } from '../support/git-repo';
import { StdioRpcClient } from '../support/rpc-client';
import { runWeftCli } from '../support/weft-cli';
import { answer, command, startWorktreeApp, type WorktreeApp } from '../support/worktree-app';

let app: WorktreeApp | undefined;
let other: StdioRpcClient | undefined;

afterEach(async () => {
  await other?.close();
  other = undefined;
  await app?.close();
  app = undefined;
});

const FILES = { 'a.txt': 'a\n', 'keep.txt': 'untouched\n' };

interface ThreadView {
  thread: { id: string; cwd: string; weftWorktree?: { path: string } };
}

describe('a Handoff that moves the thread', () => {
  it('continues the thread in the local checkout after handing it there, and in its worktree after handing it back', async () => {
    app = await startWorktreeApp(FILES);
    const { repo } = app;
    const started = await app.startWorktree();
    const threadId = started.thread.id;
    const wt = started.worktree.path;
    app.server.enqueueMany([command('c1', 'echo from the thread > made.txt'), answer('done')]);
    await app.turn(threadId, 'work');

    const toLocal = await app.ok<Record<string, unknown>>('weft/worktree/handoff', {
      threadId,
      direction: 'toLocal',
      move: true,
    });
    expect(toLocal).toEqual({
      direction: 'toLocal',
      written: ['made.txt'],
      merged: [],
      overwritten: [],
      kept: [],
      notWritten: [],
      moved: ['made.txt'],
      threadCwd: repo.dir,
    });
    const read = await app.ok<ThreadView>('thread/read', { threadId });
    expect({ cwd: read.thread.cwd, worktree: read.thread.weftWorktree?.path }).toEqual({ cwd: repo.dir, worktree: wt });

    // The next turn works in the local checkout: its command runs there, and what it writes lands there.
    app.server.enqueueMany([command('c2', 'pwd && echo next > next.txt'), answer('next')]);
    await app.turn(threadId, 'go on');
    const ran = app.commands(threadId)[1];
    expect({ cwd: ran?.cwd, output: ran?.aggregatedOutput, exitCode: ran?.exitCode }).toEqual({
      cwd: repo.dir,
      output: `${repo.dir}\n`,
      exitCode: 0,
    });
    expect(await readFile(repo.path('next.txt'), 'utf8')).toBe('next\n');
    expect(existsSync(join(wt, 'next.txt'))).toBe(false);

    // Handed back with move, the thread works in its worktree again (taking the local changes with it).
    const toWorktree = await app.ok<Record<string, unknown>>('weft/worktree/handoff', {
      threadId,
      direction: 'toWorktree',
      move: true,
    });
    expect(toWorktree).toEqual({
      direction: 'toWorktree',
      written: ['made.txt', 'next.txt'],
      merged: [],
      overwritten: [],
      kept: [],
      notWritten: [],
      moved: ['made.txt', 'next.txt'],
      threadCwd: wt,
    });
    app.server.enqueueMany([command('c3', 'pwd && cat next.txt'), answer('back')]);
    await app.turn(threadId, 'once more');
    expect(app.commands(threadId)[2]?.aggregatedOutput).toBe(`${wt}\nnext\n`);
  });

  it('moves a saved thread with `weft worktrees handoff --to local --apply --move`, as a restarted app then finds it', async () => {
    app = await startWorktreeApp(FILES);
    const { repo, home } = app;
    const started = await app.startWorktree();
    const threadId = started.thread.id;
    app.server.enqueueMany([command('c1', 'echo from the thread > made.txt'), answer('done')]);
    await app.turn(threadId, 'work');
    // The app lets go of the thread (as when its window closes); the terminal hands it off.
    await app.client.close();
    const run = await runWeftCli(['worktrees', 'handoff', threadId, '--to', 'local', '--apply', '--move'], {
      cwd: repo.dir,
      weftHome: home.dir,
    });
    expect(run).toEqual({
      code: 0,
      stdout: [
        `Handed off thread ${threadId} to the local checkout ${repo.dir}:`,
        '  written: made.txt',
        '  taken back out of the source: made.txt',
        `  the thread works in ${repo.dir} from now on`,
        '',
      ].join('\n'),
      stderr: '',
    });

    other = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x', ...GIT_ENV }, repo.dir);
    await other.initialize();
    const listed = await other.request<{ data: { id: string; cwd: string }[] }>('thread/list', { cwd: repo.dir });
    expect(listed.data.find((t) => t.id === threadId)?.cwd).toBe(repo.dir);
    const resumed = await other.request<ThreadView>('thread/resume', { threadId });
    expect(resumed.thread.cwd).toBe(repo.dir);
    app.server.enqueueMany([command('c2', 'pwd'), answer('here')]);
    const from = other.received.length;
    await other.request('turn/start', { threadId, input: [{ type: 'text', text: 'where are you' }] });
    const completed = await other.notification('turn/completed', (p) => p['threadId'] === threadId, from);
    expect(completed['turn']).toMatchObject({ status: 'completed' });
    const item = other
      .notifications('item/completed')
      .map((p) => p['item'] as { type: string; cwd?: string; aggregatedOutput?: string })
      .find((i) => i.type === 'commandExecution');
    expect({ cwd: item?.cwd, output: item?.aggregatedOutput }).toEqual({ cwd: repo.dir, output: `${repo.dir}\n` });
  });

  it('refuses to move a thread another window holds open, writing nothing', async () => {
    app = await startWorktreeApp(FILES);
    const { repo, home } = app;
    const started = await app.startWorktree();
    const threadId = started.thread.id;
    app.server.enqueueMany([command('c1', 'echo from the thread > made.txt'), answer('done')]);
    await app.turn(threadId, 'work');
    const run = await runWeftCli(['worktrees', 'handoff', threadId, '--to', 'local', '--apply', '--move'], {
      cwd: repo.dir,
      weftHome: home.dir,
    });
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `weft worktrees: thread ${threadId} is open in another window, and a handoff that moves the work moves the thread too: close it there first, or hand off without moving; nothing was written\n`,
    });
    expect(existsSync(repo.path('made.txt'))).toBe(false);
    expect(await readFile(join(started.worktree.path, 'made.txt'), 'utf8')).toBe('from the thread\n');
    expect((await app.ok<ThreadView>('thread/read', { threadId })).thread.cwd).toBe(started.worktree.path);
  });
});
