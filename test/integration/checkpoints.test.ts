// Undo a turn with its files, through the real app host and the real openai SDK against the mock
// Responses server: commands and patches that create, edit, delete, rename (a patch's Move to too) and chmod files, binary
// files, a symlink and a nested new folder; in a git repository and in a plain folder; the conflict
// path with and without force; forks into a worktree or a copy whose commands never touch the original.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockModelConfig, startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import {
  completedTurn,
  startInProcessHost,
  type InProcessClient,
  type InProcessHost,
  ok,
} from '../support/in-process-host';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';
import { git, picture } from '../unit/checkpoints/helpers';

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let app: InProcessHost | null = null;

const FILES = { 'notes.txt': 'one\ntwo\nthree\n', 'old.txt': 'moving\n', 'run.sh': 'echo hi\n', 'gone.txt': 'bye\n' };

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace(FILES);
  home = await makeWeftHome(mockModelConfig(server.url));
});

afterEach(async () => {
  await app?.close();
  app = null;
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

const answer = (text: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evAssistantMessage(text), evCompleted()],
});
const command = (id: string, cmd: string) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd }), evCompleted()],
});

const PATCH =
  "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: notes.txt\n@@\n-two\n+TWO\n*** Add File: patched/new.txt\n+from a patch\n*** End Patch\nEOF";
const SHELL = [
  'printf "edited\\n" >> notes.txt',
  'rm gone.txt',
  'mv old.txt new.txt',
  'chmod 755 run.sh',
  'printf "\\000\\001\\377" > blob.bin',
  'ln -s notes.txt link',
  'mkdir -p deep/er',
  'echo nested > deep/er/n.txt',
].join(' && ');

async function start(): Promise<InProcessClient> {
  app = await startInProcessHost({
    weftHome: home.dir,
    cwd: ws.dir,
    env: { ...process.env, WEFT_HOME: home.dir, MOCK_API_KEY: 'x' },
  });
  return app.client;
}

/** Runs one turn to its end; returns its id. */
async function turn(client: InProcessClient, threadId: string, text: string): Promise<string> {
  const from = client.received.length;
  const done = await completedTurn(client, threadId, text);
  expect(client.received.length).toBeGreaterThan(from);
  expect(done.turn.status).toBe('completed');
  return done.turn.id;
}

async function twoTurns(client: InProcessClient): Promise<{ threadId: string; first: string; second: string }> {
  server.enqueueMany([
    command('c1', SHELL),
    command('p1', PATCH),
    answer('first done'),
    command('c2', 'echo later > later.txt && rm -r patched'),
    answer('second done'),
  ]);
  const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });
  const first = await turn(client, thread.id, 'change things');
  const second = await turn(client, thread.id, 'more');
  return { threadId: thread.id, first, second };
}

describe.each([
  { project: 'a plain folder', gitRepo: false },
  { project: 'a git repository', gitRepo: true },
])('thread/revert with files in $project', ({ gitRepo }) => {
  it('puts back the files and drops the turns in one step', async () => {
    if (gitRepo) {
      git(ws.dir, 'init', '-q');
      git(ws.dir, 'add', '.');
      git(ws.dir, 'commit', '-qm', 'base');
    }
    const original = picture(ws.dir);
    const gitIndex = gitRepo ? readFileSync(ws.path('.git/index')) : null;
    const client = await start();
    const { threadId, first, second } = await twoTurns(client);
    expect(picture(ws.dir)).not.toEqual(original);

    const reverted = await ok<{
      thread: { turns: unknown[] };
      weftFiles: { restored: string[]; overwritten: string[] };
    }>(client, 'thread/revert', {
      threadId,
      beforeTurnId: first,
      weftRestoreFiles: true,
    });
    expect(picture(ws.dir)).toEqual(original);
    expect(reverted.weftFiles.overwritten).toEqual([]);
    expect(reverted.thread.turns).toEqual([]);
    expect(client.notifications('thread/reverted').map((n) => n.params)).toEqual([
      { threadId, weftBeforeTurnId: first, weftTurnIds: [first, second], weftFiles: reverted.weftFiles },
    ]);
    if (gitIndex !== null) expect(readFileSync(ws.path('.git/index'))).toEqual(gitIndex);
    const read = await ok<{ thread: { turns: unknown[] } }>(client, 'thread/read', { threadId, includeTurns: true });
    expect(read.thread.turns).toEqual([]);
  });

  it('undoes a patch that renames (keeping the mode), deletes, and adds in a new nested folder', async () => {
    chmodSync(ws.path('run.sh'), 0o755);
    if (gitRepo) {
      git(ws.dir, 'init', '-q');
      git(ws.dir, 'add', '.');
      git(ws.dir, 'commit', '-qm', 'base');
    }
    const original = picture(ws.dir);
    const client = await start();
    const patch = [
      "apply_patch <<'EOF'",
      '*** Begin Patch',
      '*** Update File: run.sh',
      '*** Move to: bin/tools/run.sh',
      '@@',
      '-echo hi',
      '+echo hello',
      '*** Update File: old.txt',
      '*** Move to: renamed.txt',
      '@@',
      '-moving',
      '+moved',
      '*** Delete File: gone.txt',
      '*** Add File: fresh/nested/new.txt',
      '+from a patch',
      '*** End Patch',
      'EOF',
    ].join('\n');
    server.enqueueMany([command('p1', patch), answer('patched')]);
    const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });
    const only = await turn(client, thread.id, 'move things');
    const after = picture(ws.dir);
    expect(after['bin/tools/run.sh']).toMatch(/^file:755:/);
    expect([after['run.sh'], after['old.txt'], after['gone.txt']]).toEqual([undefined, undefined, undefined]);
    expect(readFileSync(ws.path('renamed.txt'), 'utf8')).toBe('moved\n');
    expect(readFileSync(ws.path('fresh/nested/new.txt'), 'utf8')).toBe('from a patch\n');

    await ok(client, 'thread/revert', { threadId: thread.id, beforeTurnId: only, weftRestoreFiles: true });
    expect(picture(ws.dir)).toEqual(original);
  });
});

describe('conflicts', () => {
  it('a file the user changed after the turn: -32010 naming it, nothing written; with weftForce restored', async () => {
    const client = await start();
    const { threadId, first } = await twoTurns(client);
    writeFileSync(ws.path('notes.txt'), 'the user rewrote this\n');
    const edited = picture(ws.dir);

    const refused = await client.call('thread/revert', { threadId, beforeTurnId: first, weftRestoreFiles: true });
    expect(refused.error).toEqual({
      code: -32010,
      message: expect.stringContaining('notes.txt'),
      data: { conflicts: ['notes.txt'] },
    });
    expect(picture(ws.dir)).toEqual(edited);
    const read = await ok<{ thread: { turns: unknown[] } }>(client, 'thread/read', { threadId, includeTurns: true });
    expect(read.thread.turns).toHaveLength(2);

    const preview = await ok<{
      files: { path: string; conflict: boolean; change: string; current: string | null; restored: string | null }[];
    }>(client, 'weft/checkpoints/preview', {
      threadId,
      beforeTurnId: first,
    });
    expect(preview.files.find((f) => f.path === 'notes.txt')).toEqual(
      expect.objectContaining({
        conflict: true,
        change: 'update',
        current: 'the user rewrote this\n',
        restored: FILES['notes.txt'],
      }),
    );

    const forced = await ok<{ weftFiles: { overwritten: string[] } }>(client, 'thread/revert', {
      threadId,
      beforeTurnId: first,
      weftRestoreFiles: true,
      weftForce: true,
    });
    expect(forced.weftFiles.overwritten).toEqual(['notes.txt']);
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe(FILES['notes.txt']);

    // The overwritten version is itself a checkpoint: redo brings it back.
    await ok(client, 'weft/checkpoints/redo', { threadId });
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe('the user rewrote this\n');
  });
});

describe('keeping some files (weftKeepFiles)', () => {
  it('restores every other file and leaves the kept ones as the user has them; a conflict not kept still refuses', async () => {
    const { 'notes.txt': _before, ...original } = picture(ws.dir);
    const client = await start();
    const { threadId, first } = await twoTurns(client);
    writeFileSync(ws.path('notes.txt'), 'the user rewrote this\n');
    writeFileSync(ws.path('run.sh'), 'echo mine\n');

    // One conflict kept, the other neither kept nor forced: refused, nothing written.
    const edited = picture(ws.dir);
    const refused = await client.call('thread/revert', {
      threadId,
      beforeTurnId: first,
      weftRestoreFiles: true,
      weftKeepFiles: ['notes.txt'],
    });
    expect(refused.error).toEqual({
      code: -32010,
      message: expect.stringContaining('run.sh'),
      data: { conflicts: ['run.sh'] },
    });
    expect(picture(ws.dir)).toEqual(edited);

    const reverted = await ok<{
      thread: { turns: unknown[] };
      weftFiles: { restored: string[]; overwritten: string[]; kept: string[] };
    }>(client, 'thread/revert', {
      threadId,
      beforeTurnId: first,
      weftRestoreFiles: true,
      weftForce: true,
      weftKeepFiles: ['notes.txt'],
    });
    expect(reverted.weftFiles.kept).toEqual(['notes.txt']);
    expect(reverted.weftFiles.overwritten).toEqual(['run.sh']);
    expect(reverted.weftFiles.restored).not.toContain('notes.txt');
    expect(reverted.thread.turns).toEqual([]);
    // The kept file is the user's; everything else is as before the turn.
    expect(readFileSync(ws.path('notes.txt'), 'utf8')).toBe('the user rewrote this\n');
    const { 'notes.txt': _kept, ...rest } = picture(ws.dir);
    expect(rest).toEqual(original);
  });
});

describe('thread/fork with weftWorktree', () => {
  it.each([
    { project: 'a git repository: a worktree on a weft/ branch', gitRepo: true },
    { project: 'a plain folder: a copy', gitRepo: false },
  ])('in $project, holding the files after the turn; its commands never touch the original', async ({ gitRepo }) => {
    if (gitRepo) {
      git(ws.dir, 'init', '-q');
      git(ws.dir, 'add', '.');
      git(ws.dir, 'commit', '-qm', 'base');
    }
    const client = await start();
    server.enqueueMany([command('c1', SHELL), answer('first done')]);
    const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });
    const first = await turn(client, thread.id, 'change things');
    const afterFirst = picture(ws.dir);
    server.enqueueMany([command('c2', 'echo later > later.txt'), answer('second done')]);
    await turn(client, thread.id, 'more');
    const original = picture(ws.dir);

    const fork = await ok<{ thread: { id: string; cwd: string } }>(client, 'thread/fork', {
      threadId: thread.id,
      weftTurnId: first,
      weftWorktree: true,
    });
    expect(fork.thread.cwd.startsWith(join(home.dir, 'worktrees'))).toBe(true);
    expect(picture(fork.thread.cwd)).toEqual(afterFirst);
    if (gitRepo)
      expect(git(fork.thread.cwd, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toMatch(/^weft\/[0-9a-f]{8}$/);

    server.enqueueMany([
      command('f1', 'echo forked >> notes.txt && rm new.txt && echo f > fork-only.txt'),
      answer('fork done'),
    ]);
    await turn(client, fork.thread.id, 'work in the fork');
    expect(readFileSync(join(fork.thread.cwd, 'fork-only.txt'), 'utf8')).toBe('f\n');
    expect(picture(ws.dir)).toEqual(original);

    // Where the fork lives, for the sidebar (it is listed with the project after a reload).
    const { data: forks } = await ok<{
      data: {
        threadId: string;
        parentThreadId: string;
        cwd: string;
        kind: string;
        branch: string | null;
        removed: boolean;
      }[];
    }>(client, 'weft/forks/list', { cwd: ws.dir });
    expect(forks).toEqual([
      expect.objectContaining({
        threadId: fork.thread.id,
        parentThreadId: thread.id,
        cwd: fork.thread.cwd,
        kind: gitRepo ? 'worktree' : 'copy',
        branch: gitRepo ? expect.stringMatching(/^weft\/[0-9a-f]{8}$/) : null,
        removed: false,
      }),
    ]);
    expect((await ok<{ data: unknown[] }>(client, 'weft/forks/list', { cwd: fork.thread.cwd })).data).toEqual([]);
    // The saved thread works in the fork's folder (a reload or resume keeps it there).
    const listed = await ok<{ data: { id: string; cwd: string }[] }>(client, 'thread/list', {
      cwd: [ws.dir, fork.thread.cwd],
    });
    expect(listed.data.map((t) => [t.id, t.cwd])).toEqual(
      expect.arrayContaining([
        [fork.thread.id, fork.thread.cwd],
        [thread.id, ws.dir],
      ]),
    );

    // Compare with parent: each file that differs, with the branch that changed it since the fork.
    const compared = await ok<{
      files: { path: string; changedIn: string; parent: string | null; fork: string | null }[];
    }>(client, 'weft/forks/compare', { threadId: fork.thread.id });
    expect(compared.files.map((f) => [f.path, f.changedIn])).toEqual([
      ['fork-only.txt', 'fork'],
      ['later.txt', 'parent'],
      ['new.txt', 'fork'],
      ['notes.txt', 'fork'],
    ]);
    expect(compared.files.find((f) => f.path === 'notes.txt')).toEqual(
      expect.objectContaining({ parent: 'one\ntwo\nthree\nedited\n', fork: 'one\ntwo\nthree\nedited\nforked\n' }),
    );

    // Remove: asks first, listing the work found nowhere else; removes only when forced.
    const asked = await ok<{ removed: boolean; uncommitted: string[] }>(client, 'weft/forks/remove', {
      threadId: fork.thread.id,
    });
    expect(asked.removed).toBe(false);
    expect(asked.uncommitted).toEqual(expect.arrayContaining(['fork-only.txt', 'notes.txt']));
    expect(existsSync(fork.thread.cwd)).toBe(true);
    const removed = await ok<{ removed: boolean; fork: { removed: boolean } }>(client, 'weft/forks/remove', {
      threadId: fork.thread.id,
      force: true,
    });
    expect(removed).toEqual(
      expect.objectContaining({ removed: true, fork: expect.objectContaining({ removed: true }) }),
    );
    expect(existsSync(fork.thread.cwd)).toBe(false);
    expect(picture(ws.dir)).toEqual(original);
    if (gitRepo) {
      // The branch stays: only the folder went.
      expect(git(ws.dir, 'branch', '--list', 'weft/*').trim()).toMatch(/weft\/[0-9a-f]{8}/);
      expect(git(ws.dir, 'worktree', 'list')).not.toContain(fork.thread.cwd);
    }
  });
});

describe('weft/forks/bringBack', () => {
  it.each([
    { project: 'a git repository (a worktree)', gitRepo: true },
    { project: 'a plain folder (a copy)', gitRepo: false },
  ])(
    'in $project: previews the fork changes as a patch on the parent, applies the hunks kept, refuses a stale preview',
    async ({ gitRepo }) => {
      const long = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
      writeFileSync(join(ws.dir, 'long.txt'), long.join('\n') + '\n');
      if (gitRepo) {
        git(ws.dir, 'init', '-q');
        git(ws.dir, 'add', '.');
        git(ws.dir, 'commit', '-qm', 'base');
      }
      const client = await start();
      server.enqueueMany([command('c1', SHELL), answer('first done')]);
      const { thread } = await ok<{ thread: { id: string } }>(client, 'thread/start', { cwd: ws.dir });
      const first = await turn(client, thread.id, 'change things');
      const fork = await ok<{ thread: { id: string; cwd: string } }>(client, 'thread/fork', {
        threadId: thread.id,
        weftTurnId: first,
        weftWorktree: true,
      });
      // The parent moves on in the middle of long.txt; the fork edits near both of its ends.
      server.enqueueMany([
        command('c2', "echo later > later.txt && sed -i 's/^line 10$/LINE TEN/' long.txt"),
        answer('second done'),
      ]);
      await turn(client, thread.id, 'more');
      server.enqueueMany([
        command(
          'f1',
          [
            'echo forked >> notes.txt',
            'rm new.txt',
            'echo f > fork-only.txt',
            "sed -i -e 's/^line 2$/LINE TWO/' -e 's/^line 19$/LINE NINETEEN/' long.txt",
            'printf "\\000\\002" > blob.bin',
          ].join(' && '),
        ),
        answer('fork done'),
      ]);
      await turn(client, fork.thread.id, 'work in the fork');
      const parentBefore = picture(ws.dir);
      const forkBefore = picture(fork.thread.cwd);

      type Result = {
        parentThreadId: string;
        parentCwd: string;
        changes: { path: string; kind: { type: string }; diff: string }[];
        skipped: { path: string; reason: string }[];
        fingerprint: string;
        applied: string[];
      };
      const preview = await ok<Result>(client, 'weft/forks/bringBack', { threadId: fork.thread.id, dryRun: true });
      expect(preview.parentThreadId).toBe(thread.id);
      expect(preview.parentCwd).toBe(ws.dir);
      expect(preview.changes.map((c) => [c.path, c.kind.type])).toEqual([
        [join(ws.dir, 'fork-only.txt'), 'add'],
        [join(ws.dir, 'long.txt'), 'update'],
        [join(ws.dir, 'new.txt'), 'delete'],
        [join(ws.dir, 'notes.txt'), 'update'],
      ]);
      const longDiff = preview.changes.find((c) => c.path.endsWith('long.txt'))?.diff ?? '';
      expect(longDiff.match(/^@@/gm)).toHaveLength(2);
      expect(preview.skipped).toEqual([{ path: 'blob.bin', reason: expect.stringContaining('binary') }]);
      expect(preview.applied).toEqual([]);
      expect(picture(ws.dir)).toEqual(parentBefore);

      // A preview that is not the one reviewed writes nothing.
      const stale = await client.call('weft/forks/bringBack', { threadId: fork.thread.id, fingerprint: 'stale' });
      expect(stale.error?.message).toMatch(/changed since the preview: nothing was written/);
      const unreviewed = await client.call('weft/forks/bringBack', { threadId: fork.thread.id });
      expect(unreviewed.error?.message).toMatch(/params\.fingerprint/);
      expect(picture(ws.dir)).toEqual(parentBefore);

      // Declined: long.txt's second hunk and the deletion of new.txt. The rest lands in the parent.
      const done = await ok<Result>(client, 'weft/forks/bringBack', {
        threadId: fork.thread.id,
        fingerprint: preview.fingerprint,
        weftHunks: [
          { path: join(ws.dir, 'long.txt'), hunk: 0, decision: 'accept' },
          { path: join(ws.dir, 'long.txt'), hunk: 1, decision: 'decline', comment: 'not yet' },
          { path: join(ws.dir, 'new.txt'), hunk: 0, decision: 'decline' },
        ],
      });
      expect(done.applied.sort()).toEqual(['fork-only.txt', 'long.txt', 'notes.txt'].map((p) => join(ws.dir, p)));
      const read = (path: string): string => readFileSync(join(ws.dir, path), 'utf8');
      expect(read('fork-only.txt')).toBe('f\n');
      expect(read('notes.txt')).toBe('one\ntwo\nthree\nedited\nforked\n');
      expect(read('long.txt')).toBe(
        long.map((l) => (l === 'line 2' ? 'LINE TWO' : l === 'line 10' ? 'LINE TEN' : l)).join('\n') + '\n',
      );
      expect(read('new.txt')).toBe('moving\n');
      expect(read('later.txt')).toBe('later\n');
      expect(picture(ws.dir)['blob.bin']).toEqual(parentBefore['blob.bin']);
      // The fork itself is left as it was.
      expect(picture(fork.thread.cwd)).toEqual(forkBefore);

      // What is left to bring back: the declined hunks.
      const again = await ok<Result>(client, 'weft/forks/bringBack', { threadId: fork.thread.id, dryRun: true });
      expect(again.changes.map((c) => [c.path, c.kind.type])).toEqual([
        [join(ws.dir, 'long.txt'), 'update'],
        [join(ws.dir, 'new.txt'), 'delete'],
      ]);
      expect(again.changes[0]?.diff).toContain('+LINE NINETEEN');
      expect(again.changes[0]?.diff).not.toContain('+LINE TWO');

      // The parent changes the very lines a fork hunk changes: that file is left out, named, not half brought.
      writeFileSync(join(ws.dir, 'long.txt'), read('long.txt').replace('line 19\n', 'mine 19\n'));
      const clash = await ok<Result>(client, 'weft/forks/bringBack', { threadId: fork.thread.id, dryRun: true });
      expect(clash.changes.map((c) => c.path)).toEqual([join(ws.dir, 'new.txt')]);
      expect(clash.skipped).toEqual([
        { path: 'blob.bin', reason: expect.stringContaining('binary') },
        { path: 'long.txt', reason: 'the parent changed the same lines since the fork' },
      ]);
    },
  );
});
