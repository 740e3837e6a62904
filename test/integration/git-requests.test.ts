// `weft/git/*` through the real app host against real git repositories in temp folders: status, diffs,
// stage / unstage / discard of files and hunks (with restore), commit and amend, a generated commit
// message from the mock model, push to a bare remote with progress, branches and the dirty-switch guard.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { makeGitRepo, type GitRepo } from '../support/git-repo';
import { startInProcessHost, type InProcessHost } from '../support/in-process-host';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { evAssistantMessage, evCompleted, evCreated, evOutputTextDelta } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type WeftHome } from '../support/workspace';

const run = promisify(execFile);
const TWENTY = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

let app: InProcessHost | undefined;
let repo: GitRepo | undefined;
let home: WeftHome | undefined;
let mock: MockResponsesServer | undefined;
const extra: { cleanup(): Promise<void> }[] = [];

afterEach(async () => {
  await app?.close();
  await repo?.cleanup();
  await home?.cleanup();
  await mock?.close();
  for (const e of extra.splice(0)) await e.cleanup();
  app = repo = home = mock = undefined;
});

async function start(
  files: Record<string, string>,
  options: { commit?: boolean } = {},
): Promise<{ app: InProcessHost; repo: GitRepo }> {
  mock = await startMockResponsesServer();
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${mock.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  repo = await makeGitRepo(files, options);
  app = await startInProcessHost({
    weftHome: home.dir,
    cwd: repo.dir,
    env: { ...process.env, WEFT_HOME: home.dir, MOCK_API_KEY: 'k' },
  });
  return { app, repo };
}

function host(): InProcessHost {
  if (app === undefined) throw new Error('the host is not started');
  return app;
}
function mockServer(): MockResponsesServer {
  if (mock === undefined) throw new Error('the mock model is not started');
  return mock;
}
function started(): GitRepo {
  if (repo === undefined) throw new Error('the repository is not made');
  return repo;
}

async function ok<T>(method: string, params: unknown): Promise<T> {
  const reply = await host().client.call(method, params);
  if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as T;
}

interface Status {
  enabled: boolean;
  root: string;
  branch: string | null;
  remotes: string[];
  upstream: string | null;
  files: {
    path: string;
    origPath: string | null;
    staged: string | null;
    unstaged: string | null;
    untracked: boolean;
  }[];
}
interface Diff {
  diff: string;
  hunks: { index: number; oldStart: number; newStart: number; newLines: number }[];
  original: string | null;
  modified: string | null;
}

describe('weft/git/status and diff', () => {
  it('lists staged, unstaged and untracked files with the branch, and diffs each area with both sides', async () => {
    const { repo } = await start({ 'a.txt': 'one\n', 'b.txt': 'two\n', 'gone.txt': 'bye\n' });
    await writeFile(repo.path('a.txt'), 'one changed\n');
    await writeFile(repo.path('b.txt'), 'two staged\n');
    await repo.git('add', 'b.txt');
    await writeFile(repo.path('b.txt'), 'two staged and more\n');
    await writeFile(repo.path('new file.txt'), 'fresh\n');
    await repo.git('rm', '--quiet', 'gone.txt');

    const status = await ok<Status>('weft/git/status', { cwd: repo.dir });
    expect(status).toMatchObject({ enabled: true, root: repo.dir, branch: 'main', remotes: [], upstream: null });
    expect(status.files).toEqual([
      { path: 'a.txt', origPath: null, staged: null, unstaged: 'modified', untracked: false },
      { path: 'b.txt', origPath: null, staged: 'modified', unstaged: 'modified', untracked: false },
      { path: 'gone.txt', origPath: null, staged: 'deleted', unstaged: null, untracked: false },
      { path: 'new file.txt', origPath: null, staged: null, unstaged: null, untracked: true },
    ]);

    const staged = await ok<Diff>('weft/git/diff', { cwd: repo.dir, path: 'b.txt', area: 'staged' });
    expect({ original: staged.original, modified: staged.modified }).toEqual({
      original: 'two\n',
      modified: 'two staged\n',
    });
    const unstaged = await ok<Diff>('weft/git/diff', { cwd: repo.dir, path: 'b.txt', area: 'unstaged' });
    expect({ original: unstaged.original, modified: unstaged.modified }).toEqual({
      original: 'two staged\n',
      modified: 'two staged and more\n',
    });
    expect(unstaged.diff).toContain('+two staged and more');
    const untracked = await ok<Diff>('weft/git/diff', { cwd: repo.dir, path: 'new file.txt', area: 'untracked' });
    expect({ original: untracked.original, modified: untracked.modified, hunks: untracked.hunks.length }).toEqual({
      original: null,
      modified: 'fresh\n',
      hunks: 1,
    });
  });

  it('says git is off outside a repository, and refuses paths that leave it', async () => {
    await start({ 'a.txt': 'x\n' });
    const plain = await makeTempWorkspace({ 'x.txt': 'y\n' });
    extra.push(plain);
    const status = await ok<Status & { reason: string }>('weft/git/status', { cwd: plain.dir });
    expect(status.enabled).toBe(false);
    expect(status.reason).toContain('not in a git repository');
    const outside = await host().client.call('weft/git/diff', { cwd: plain.dir, path: 'x.txt', area: 'unstaged' });
    expect(outside.error?.code).toBe(-32023);
    const escape = await host().client.call('weft/git/stage', { cwd: started().dir, path: '../etc/passwd' });
    expect(escape.error).toMatchObject({ code: -32602 });
    expect(escape.error?.message).toContain('params.path');
  });
});

describe('weft/git stage, unstage, discard', () => {
  it('stages one of two files and commits it; the other stays unstaged', async () => {
    const { repo } = await start({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    await writeFile(repo.path('a.txt'), 'a2\n');
    await writeFile(repo.path('b.txt'), 'b2\n');
    await ok('weft/git/stage', { cwd: repo.dir, path: 'a.txt' });
    const commit = await ok<{ sha: string; branch: string; summary: string }>('weft/git/commit', {
      cwd: repo.dir,
      message: 'Change a\n\nOnly a.',
    });
    expect(commit.branch).toBe('main');
    expect(commit.sha).toBe((await repo.git('rev-parse', 'HEAD')).trim());
    expect(await repo.git('log', '-1', '--format=%B')).toBe('Change a\n\nOnly a.\n\n');
    expect((await repo.git('show', '--name-only', '--format=', 'HEAD')).trim()).toBe('a.txt');
    const status = await ok<Status>('weft/git/status', { cwd: repo.dir });
    expect(status.files).toEqual([
      { path: 'b.txt', origPath: null, staged: null, unstaged: 'modified', untracked: false },
    ]);

    // Amend replaces the message (and takes what is staged now).
    await ok('weft/git/stage', { cwd: repo.dir, path: 'b.txt' });
    await ok('weft/git/commit', { cwd: repo.dir, message: 'Change a and b', amend: true });
    expect((await repo.git('log', '--format=%s')).trim().split('\n')).toEqual(['Change a and b', 'initial']);
    expect((await repo.git('show', '--name-only', '--format=', 'HEAD')).trim().split('\n')).toEqual(['a.txt', 'b.txt']);
  });

  it('stages and unstages single hunks, refusing hunks chosen from a diff that has changed', async () => {
    const { repo } = await start({ 'notes.txt': TWENTY });
    await writeFile(
      repo.path('notes.txt'),
      TWENTY.replace('line 2\n', 'LINE TWO\n').replace('line 18\n', 'LINE EIGHTEEN\n'),
    );
    const diff = await ok<Diff>('weft/git/diff', { cwd: repo.dir, path: 'notes.txt', area: 'unstaged' });
    expect(diff.hunks.map((h) => h.oldStart)).toEqual([1, 15]);

    await ok('weft/git/stage', { cwd: repo.dir, path: 'notes.txt', hunks: [1], expectedDiff: diff.diff });
    expect(await repo.git('show', ':notes.txt')).toBe(TWENTY.replace('line 18\n', 'LINE EIGHTEEN\n'));
    const left = await ok<Diff>('weft/git/diff', { cwd: repo.dir, path: 'notes.txt', area: 'unstaged' });
    expect(left.hunks).toHaveLength(1);
    expect(left.diff).toContain('+LINE TWO');

    const stale = await host().client.call('weft/git/stage', {
      cwd: repo.dir,
      path: 'notes.txt',
      hunks: [0],
      expectedDiff: diff.diff,
    });
    expect(stale.error?.message).toContain('changed since its diff was shown');

    const staged = await ok<Diff>('weft/git/diff', { cwd: repo.dir, path: 'notes.txt', area: 'staged' });
    await ok('weft/git/unstage', { cwd: repo.dir, path: 'notes.txt', hunks: [0], expectedDiff: staged.diff });
    expect(await repo.git('show', ':notes.txt')).toBe(TWENTY);
    expect(await repo.read('notes.txt')).toBe(
      TWENTY.replace('line 2\n', 'LINE TWO\n').replace('line 18\n', 'LINE EIGHTEEN\n'),
    );
  });

  it('stages one block of an untracked file, leaving the rest unstaged, refusing a stale diff', async () => {
    const { repo } = await start({ 'a.txt': 'a\n' });
    const text = 'first one\nfirst two\n\nsecond one\nsecond two\n\nthird one\n';
    await writeFile(repo.path('new.txt'), text);
    const diff = await ok<Diff>('weft/git/diff', { cwd: repo.dir, path: 'new.txt', area: 'untracked' });
    expect(diff.hunks.map((h) => [h.newStart, h.newLines])).toEqual([
      [1, 3],
      [4, 3],
      [7, 1],
    ]);

    await ok('weft/git/stage', { cwd: repo.dir, path: 'new.txt', hunks: [1], expectedDiff: diff.diff });
    expect(await repo.git('show', ':new.txt')).toBe('second one\nsecond two\n\n');
    expect(await repo.read('new.txt')).toBe(text);
    const status = await ok<Status>('weft/git/status', { cwd: repo.dir });
    expect(status.files.find((f) => f.path === 'new.txt')).toEqual({
      path: 'new.txt',
      origPath: null,
      staged: 'added',
      unstaged: 'modified',
      untracked: false,
    });
    // What is left is an ordinary unstaged change, staged hunk by hunk like any other.
    const left = await ok<Diff>('weft/git/diff', { cwd: repo.dir, path: 'new.txt', area: 'unstaged' });
    expect(left.diff).toContain('+first one');
    expect(left.diff).toContain('+third one');
    expect(left.diff).not.toContain('+second one');

    await writeFile(repo.path('other.txt'), 'one\n\ntwo\n');
    const other = await ok<Diff>('weft/git/diff', { cwd: repo.dir, path: 'other.txt', area: 'untracked' });
    await writeFile(repo.path('other.txt'), 'one\n\ntwo changed\n');
    const stale = await host().client.call('weft/git/stage', {
      cwd: repo.dir,
      path: 'other.txt',
      hunks: [0],
      expectedDiff: other.diff,
    });
    expect(stale.error?.message).toContain('changed since its diff was shown');
    const missing = await host().client.call('weft/git/stage', { cwd: repo.dir, path: 'other.txt', hunks: [5] });
    expect(missing.error?.message).toContain('has no hunk 5');
    expect(
      (await ok<Status>('weft/git/status', { cwd: repo.dir })).files.find((f) => f.path === 'other.txt')?.untracked,
    ).toBe(true);
  });

  it('unstages a whole file, also before the first commit', async () => {
    const { repo } = await start({ 'a.txt': 'a\n' }, { commit: false });
    await ok('weft/git/stage', { cwd: repo.dir, path: 'a.txt' });
    expect((await ok<Status>('weft/git/status', { cwd: repo.dir })).files[0]?.staged).toBe('added');
    await ok('weft/git/unstage', { cwd: repo.dir, path: 'a.txt' });
    expect((await ok<Status>('weft/git/status', { cwd: repo.dir })).files).toEqual([
      { path: 'a.txt', origPath: null, staged: null, unstaged: null, untracked: true },
    ]);
  });

  it('discards a file, a hunk and an untracked file, keeping each so it can be restored', async () => {
    const { repo } = await start({ 'a.txt': 'a\n', 'notes.txt': TWENTY });
    const edited = TWENTY.replace('line 2\n', 'LINE TWO\n').replace('line 18\n', 'LINE EIGHTEEN\n');
    await writeFile(repo.path('a.txt'), 'a changed\n');
    await writeFile(repo.path('notes.txt'), edited);
    await writeFile(repo.path('scratch.txt'), 'draft\n');

    const file = await ok<{ discard: { id: string; kind: string; summary: string } }>('weft/git/discard', {
      cwd: repo.dir,
      path: 'a.txt',
    });
    expect(file.discard).toMatchObject({ kind: 'file', summary: '+1 −1' });
    expect(await repo.read('a.txt')).toBe('a\n');
    const hunk = await ok<{ discard: { id: string; kind: string } }>('weft/git/discard', {
      cwd: repo.dir,
      path: 'notes.txt',
      hunks: [0],
    });
    expect(await repo.read('notes.txt')).toBe(TWENTY.replace('line 18\n', 'LINE EIGHTEEN\n'));
    const untracked = await ok<{ discard: { id: string; kind: string } }>('weft/git/discard', {
      cwd: repo.dir,
      path: 'scratch.txt',
    });
    await expect(readFile(repo.path('scratch.txt'))).rejects.toThrow();

    const list = await ok<{ discards: { id: string; path: string; restored: boolean }[] }>('weft/git/discard/list', {
      cwd: repo.dir,
    });
    expect(list.discards.map((d) => [d.path, d.restored]).sort()).toEqual([
      ['a.txt', false],
      ['notes.txt', false],
      ['scratch.txt', false],
    ]);

    await ok('weft/git/discard/restore', { cwd: repo.dir, id: file.discard.id });
    expect(await repo.read('a.txt')).toBe('a changed\n');
    await ok('weft/git/discard/restore', { cwd: repo.dir, id: untracked.discard.id });
    expect(await repo.read('scratch.txt')).toBe('draft\n');

    // notes.txt changed after its discard: restoring asks for force, and force keeps the newer text too.
    await writeFile(repo.path('notes.txt'), 'rewritten\n');
    const conflict = await host().client.call('weft/git/discard/restore', { cwd: repo.dir, id: hunk.discard.id });
    expect(conflict.error).toMatchObject({ code: -32022, data: { path: 'notes.txt' } });
    await ok('weft/git/discard/restore', { cwd: repo.dir, id: hunk.discard.id, force: true });
    expect(await repo.read('notes.txt')).toBe(edited);
    const after = await ok<{ discards: { path: string; restored: boolean; summary: string }[] }>(
      'weft/git/discard/list',
      { cwd: repo.dir },
    );
    expect(after.discards.filter((d) => !d.restored).map((d) => [d.path, d.summary])).toEqual([
      ['notes.txt', 'replaced by a forced restore'],
    ]);
  });

  it('answers git failures with the command and git message verbatim', async () => {
    const { repo } = await start({ 'a.txt': 'a\n' });
    const reply = await host().client.call('weft/git/commit', { cwd: repo.dir, message: 'nothing staged' });
    expect(reply.error?.code).toBe(-32020);
    expect(reply.error?.message).toMatch(/^git commit --file=- --cleanup=strip failed \(exit 1\): /);
    expect(reply.error?.data).toMatchObject({ command: ['git', 'commit', '--file=-', '--cleanup=strip'], exitCode: 1 });
    expect(JSON.stringify(reply.error?.data)).toContain('nothing to commit');
  });
});

describe('weft/git commit message, push, branches', () => {
  it('asks the model for a commit message describing the staged diff', async () => {
    const { repo } = await start({ 'a.txt': 'a\n' });
    await writeFile(repo.path('a.txt'), 'a better\n');
    await ok('weft/git/stage', { cwd: repo.dir, path: 'a.txt' });
    const text = 'Improve a.txt\n\nSay it better.';
    mockServer().enqueue({
      kind: 'sse',
      events: [evCreated(), evOutputTextDelta(text), evAssistantMessage(text), evCompleted()],
    });
    const result = await ok<{ message: string }>('weft/git/commitMessage', { cwd: repo.dir });
    expect(result).toEqual({ message: text });
    const sent = JSON.stringify((await mockServer().waitForRequest(1)).body);
    expect(sent).toContain('+a better');
    expect(sent).toContain('commit message');

    const empty = await start2Unstaged(repo);
    expect(empty.error?.message).toContain('nothing is staged');
  });

  it('pushes to a remote with progress lines, setting the upstream', async () => {
    const { repo } = await start({ 'a.txt': 'a\n' });
    const bare = await mkdtemp(join(tmpdir(), 'weft-bare-'));
    extra.push({ cleanup: () => rm(bare, { recursive: true, force: true }) });
    await run('git', ['init', '--quiet', '--bare', bare]);
    const noRemote = await host().client.call('weft/git/push', { cwd: repo.dir });
    expect(noRemote.error?.message).toContain('no remote');
    await repo.git('remote', 'add', 'origin', bare);
    const pushed = await ok<{ remote: string; branch: string; output: string }>('weft/git/push', {
      cwd: repo.dir,
      progressId: 'p1',
    });
    expect(pushed).toMatchObject({ remote: 'origin', branch: 'main' });
    expect((await run('git', ['--git-dir', bare, 'rev-parse', 'main'])).stdout).toBe(
      await repo.git('rev-parse', 'HEAD'),
    );
    const progress = host().client.notifications('weft/git/progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((n) => n.params['progressId'] === 'p1')).toBe(true);
    expect((await ok<Status>('weft/git/status', { cwd: repo.dir })).upstream).toBe('origin/main');

    await rm(bare, { recursive: true, force: true });
    const failed = await host().client.call('weft/git/push', { cwd: repo.dir });
    expect(failed.error?.code).toBe(-32020);
    expect(failed.error?.message).toContain('git push --progress --porcelain origin main failed');
  });

  it('lists, creates and switches branches, warning before a switch with uncommitted changes', async () => {
    const { repo } = await start({ 'a.txt': 'a\n' });
    await ok('weft/git/checkout', { cwd: repo.dir, branch: 'feature', create: true });
    const branches = await ok<{
      current: string;
      branches: { name: string; current: boolean; subject: string }[];
      dirty: boolean;
    }>('weft/git/branches', { cwd: repo.dir });
    expect(branches.current).toBe('feature');
    expect(branches.branches.map((b) => [b.name, b.current, b.subject])).toEqual([
      ['feature', true, 'initial'],
      ['main', false, 'initial'],
    ]);
    expect(branches.dirty).toBe(false);

    await writeFile(repo.path('a.txt'), 'dirty\n');
    const refused = await host().client.call('weft/git/checkout', { cwd: repo.dir, branch: 'main' });
    expect(refused.error).toMatchObject({ code: -32021, data: { files: ['a.txt'] } });
    expect((await repo.git('branch', '--show-current')).trim()).toBe('feature');
    await ok('weft/git/checkout', { cwd: repo.dir, branch: 'main', allowDirty: true });
    expect((await repo.git('branch', '--show-current')).trim()).toBe('main');
    expect(await repo.read('a.txt')).toBe('dirty\n');
    const flag = await host().client.call('weft/git/checkout', { cwd: repo.dir, branch: '--orphan' });
    expect(flag.error?.code).toBe(-32602);
  });
});

async function start2Unstaged(repo: GitRepo) {
  await repo.git('reset', '--quiet');
  return host().client.call('weft/git/commitMessage', { cwd: repo.dir });
}
