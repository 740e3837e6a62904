// Containment of the git that Weft runs for the user, through the real `weft app-server` binary: programs a
// repository's own config names (a nested repository the model wrote, or the root `.git/config` of a hostile
// clone) never run from `weft/git/*`, `thread/start` or `review/start`, while the user's global config and
// the root repository's own hooks keep working; and the Changes panel never follows an untracked symlink
// (to a FIFO, or out of the workspace).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { GIT_ENV, makeGitRepo, type GitRepo } from '../support/git-repo';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const run = promisify(execFile);

let mock: MockResponsesServer | undefined;
let home: WeftHome | undefined;
let tools: TempWorkspace | undefined;
let repo: GitRepo | undefined;
let client: StdioRpcClient | undefined;

afterEach(async () => {
  if (client !== undefined) {
    // A server wedged by a blocked read would never exit on its own.
    client.child.kill('SIGKILL');
    await client.exited;
  }
  await repo?.cleanup();
  await tools?.cleanup();
  await home?.cleanup();
  await mock?.close();
  client = repo = tools = home = mock = undefined;
  failures.length = 0;
});

interface Setup {
  client: StdioRpcClient;
  repo: GitRepo;
  /** Where every program a repository config names writes a line when it runs. */
  hostileMarker: string;
  /** Where the programs the user set up (global config, root hooks) write a line. */
  userMarker: string;
  /** A program that appends its name and arguments to `marker` (a filter passes stdin through). */
  program(name: string, marker: string): Promise<string>;
  /** A git config section text naming `program` for every key git runs a program from. */
  hostileConfig(): Promise<string>;
}

async function setUp(files: Record<string, string>): Promise<Setup> {
  mock = await startMockResponsesServer();
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${mock.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  tools = await makeTempWorkspace({});
  const t = tools;
  const hostileMarker = t.path('hostile.log');
  const userMarker = t.path('user.log');
  const program = async (name: string, marker: string): Promise<string> => {
    const path = t.path(`bin/${name}`);
    await mkdir(t.path('bin'), { recursive: true });
    // A clean or smudge filter passes its input through; every other program ignores stdin.
    const body = /clean|smudge|filter/.test(name) ? 'exec cat\n' : 'exit 0\n';
    await writeFile(path, `#!/bin/sh\necho "${name} $*" >> '${marker}'\n${body}`);
    await chmod(path, 0o755);
    return path;
  };
  const hostileConfig = async (): Promise<string> => {
    const p = (name: string) => program(name, hostileMarker);
    const hooks = t.path(`hooks-${Math.random().toString(36).slice(2)}`);
    await mkdir(hooks);
    for (const hook of [
      'pre-commit',
      'prepare-commit-msg',
      'commit-msg',
      'post-commit',
      'post-checkout',
      'post-index-change',
      'reference-transaction',
      'pre-push',
      'pre-auto-gc',
    ]) {
      await writeFile(join(hooks, hook), `#!/bin/sh\necho "hook ${hook}" >> '${hostileMarker}'\n`);
      await chmod(join(hooks, hook), 0o755);
    }
    return [
      '[core]',
      `\tfsmonitor = ${await p('fsmonitor')}`,
      `\thooksPath = ${hooks}`,
      `\tpager = ${await p('pager')}`,
      `\teditor = ${await p('editor')}`,
      `\tsshCommand = ${await p('ssh')}`,
      `\taskPass = ${await p('askpass')}`,
      '[diff]',
      `\texternal = ${await p('diff-external')}`,
      '[diff "x"]',
      `\ttextconv = ${await p('textconv')}`,
      `\tcommand = ${await p('diff-command')}`,
      '[filter "x"]',
      `\tclean = ${await p('clean')}`,
      `\tsmudge = ${await p('smudge')}`,
      '[filter "y"]',
      `\tprocess = ${await p('filter-process')}`,
      '[credential]',
      `\thelper = !${await p('credential')}`,
      '[gpg]',
      `\tprogram = ${await p('gpg')}`,
      '[status]',
      '\tsubmoduleSummary = true',
      '',
    ].join('\n');
  };
  repo = await makeGitRepo(files);
  const userHome = t.path('home');
  await mkdir(userHome);
  client = StdioRpcClient.start(
    { WEFT_HOME: home.dir, MOCK_API_KEY: 'k', HOME: userHome, ...GIT_ENV, GIT_CONFIG_NOSYSTEM: '1' },
    repo.dir,
  );
  await client.initialize();
  return { client, repo, hostileMarker, userMarker, program, hostileConfig };
}

async function ok<T>(c: StdioRpcClient, method: string, params: unknown): Promise<T> {
  return c.request<T>(method, params);
}

/** The requests' errors, asserted after the markers (a program that ran can make a request fail). */
const failures: string[] = [];

async function step<T = unknown>(s: Setup, method: string, params: unknown): Promise<T> {
  const reply = await s.client.call(method, params);
  if (reply.error) failures.push(`${method}: ${reply.error.message}`);
  return reply.result as T;
}

interface Status {
  files: { path: string; staged: string | null; unstaged: string | null; untracked: boolean }[];
  hooks: { directory: string | null; commit: string[]; push: string[]; ignored: string | null };
}

async function lines(path: string): Promise<string[]> {
  return existsSync(path) ? (await readFile(path, 'utf8')).split('\n').filter((l) => l !== '') : [];
}

/** A review of the uncommitted changes, answered by the mock model; resolves with the diff it was sent. */
async function review(s: Setup, serverMock: MockResponsesServer): Promise<string> {
  const step = serverMock.enqueue({
    kind: 'sse',
    events: [
      evCreated(),
      evAssistantMessage('{"findings":[],"overall_correctness":"patch is correct"}'),
      evCompleted(),
    ],
  });
  const { thread } = await ok<{ thread: { id: string } }>(s.client, 'thread/start', { cwd: s.repo.dir });
  const from = s.client.received.length;
  const { turn } = await ok<{ turn: { id: string } }>(s.client, 'review/start', {
    threadId: thread.id,
    target: { type: 'uncommittedChanges' },
  });
  await s.client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id, from);
  return JSON.stringify((await step.served).body);
}

describe('programs named by a nested repository never run', () => {
  it(
    'status, diff, stage, unstage, commit, branches, checkout, thread/start and review with a hostile vendor/lib/.git/config',
    { timeout: 60_000 },
    async () => {
      // `.gitmodules` asks for the nested work tree to be checked (`ignore = none`), which would mean a git
      // process inside it, with its config.
      const s = await setUp({
        'README.md': 'root\n',
        '.gitattributes': '* filter=x diff=x\n',
        '.gitmodules': '[submodule "lib"]\n\tpath = vendor/lib\n\turl = ./vendor/lib\n\tignore = none\n',
      });
      const lib = s.repo.path('vendor/lib');
      await mkdir(lib, { recursive: true });
      // The test's own git in the nested repository runs none of what its config names either.
      const quiet = [
        'core.hooksPath=/dev/null',
        'core.fsmonitor=false',
        'filter.x.clean=cat',
        'filter.y.process=',
      ].flatMap((c) => ['-c', c]);
      const libGit = (...args: string[]) =>
        run('git', [...quiet, ...args], { cwd: lib, env: { ...process.env, ...GIT_ENV } });
      await libGit('init', '--quiet', '--initial-branch=main');
      await writeFile(join(lib, 'x.txt'), 'one\n');
      await writeFile(join(lib, 'y.md'), 'one\n');
      await writeFile(join(lib, '.gitattributes'), '*.txt filter=x diff=x\n*.md filter=y\n');
      await libGit('add', '--all');
      await libGit('commit', '--quiet', '-m', 'lib');
      // What a sandboxed model can do: write the nested repository's own config.
      await writeFile(
        join(lib, '.git/config'),
        `${await readFile(join(lib, '.git/config'), 'utf8')}${await s.hostileConfig()}`,
      );

      const untracked = await step<Status>(s, 'weft/git/status', { cwd: s.repo.dir });
      expect(untracked.files).toEqual([
        { path: 'vendor/lib/', origPath: null, staged: null, unstaged: null, untracked: true },
      ]);
      const folderDiff = await s.client.call('weft/git/diff', {
        cwd: s.repo.dir,
        path: 'vendor/lib/',
        area: 'untracked',
      });
      expect(folderDiff.error?.message).toBe(
        'vendor/lib/ is a nested git repository: it has no diff of its own (staging it records its commit)',
      );
      // The user stages the nested repository (a gitlink), then it changes inside.
      await step(s, 'weft/git/stage', { cwd: s.repo.dir, path: 'vendor/lib/' });
      await writeFile(join(lib, 'x.txt'), 'two\n');
      await writeFile(join(lib, 'y.md'), 'two\n');
      await writeFile(join(lib, 'new.txt'), 'new\n');
      await libGit('add', 'y.md');
      await libGit('commit', '--quiet', '-m', 'moved on');
      await writeFile(s.repo.path('README.md'), 'root changed\n');

      const staged = await step<Status>(s, 'weft/git/status', { cwd: s.repo.dir });
      expect(staged.files.map((f) => [f.path, f.staged, f.unstaged])).toEqual([
        ['README.md', null, 'modified'],
        ['vendor/lib', 'added', 'modified'],
      ]);
      await step(s, 'weft/git/diff', { cwd: s.repo.dir, path: 'vendor/lib', area: 'staged' });
      await step(s, 'weft/git/diff', { cwd: s.repo.dir, path: 'vendor/lib', area: 'unstaged' });
      await step(s, 'weft/git/diff', { cwd: s.repo.dir, path: 'README.md', area: 'unstaged' });
      await step(s, 'weft/git/unstage', { cwd: s.repo.dir, path: 'vendor/lib' });
      await step(s, 'weft/git/stage', { cwd: s.repo.dir, path: 'vendor/lib' });
      await step(s, 'weft/git/commit', { cwd: s.repo.dir, message: 'vendor lib' });
      // Now tracked: its work tree changes again and a new commit of it is staged (`git add` of a dirty
      // submodule runs `git status` inside it).
      await writeFile(join(lib, 'x.txt'), 'three\n');
      await libGit('commit', '--quiet', '-am', 'again');
      await writeFile(join(lib, 'x.txt'), 'four\n');
      await step(s, 'weft/git/stage', { cwd: s.repo.dir, path: 'vendor/lib' });
      await step(s, 'weft/git/stage', { cwd: s.repo.dir, path: 'vendor' });
      const restaged = await step<Status>(s, 'weft/git/status', { cwd: s.repo.dir });
      await step(s, 'weft/git/branches', { cwd: s.repo.dir });
      await step(s, 'weft/git/checkout', { cwd: s.repo.dir, branch: 'next', create: true, allowDirty: true });
      expect(await review(s, mockOf())).toContain('root changed');
      await step(s, 'weft/git/status', { cwd: s.repo.dir });

      expect(await lines(s.hostileMarker)).toEqual([]);
      expect(failures).toEqual([]);
      expect(restaged.files.map((f) => [f.path, f.staged, f.unstaged])).toEqual([
        ['README.md', null, 'modified'],
        ['vendor/lib', 'modified', null],
      ]);
    },
  );
});

describe("programs named by a hostile clone's root .git/config never run", () => {
  it(
    'the Changes panel, stage/unstage/discard, commit, push, branches, checkout, thread/start and review run none of them; the user global filter and root hook do',
    { timeout: 60_000 },
    async () => {
      const s = await setUp({
        'a.txt': 'one\n',
        'b.md': 'one\n',
        'c.bin': 'one\n',
        '.gitattributes': '*.txt filter=x diff=x\n*.md filter=y\n*.bin filter=lfsish\n',
      });
      // The user's own global config: a filter like git-lfs's, which must keep working.
      const userFilter = await s.program('user-filter', s.userMarker);
      const userHome = join(tools?.dir ?? '', 'home');
      await writeFile(
        join(userHome, '.gitconfig'),
        `[filter "lfsish"]\n\tclean = ${userFilter}\n\tsmudge = ${userFilter}\n`,
      );
      // The user's own hook in the root repository (the sandbox keeps the root .git read-only).
      await writeFile(s.repo.path('.git/hooks/pre-commit'), `#!/bin/sh\necho "user pre-commit" >> '${s.userMarker}'\n`);
      await chmod(s.repo.path('.git/hooks/pre-commit'), 0o755);
      await writeFile(s.repo.path('.git/hooks/pre-push'), `#!/bin/sh\necho "user pre-push" >> '${s.userMarker}'\n`);
      await chmod(s.repo.path('.git/hooks/pre-push'), 0o755);
      // What the clone shipped in its own .git/config, with a remote whose receive-pack is a program too.
      const bare = join(tools?.dir ?? '', 'remote.git');
      await run('git', ['init', '--quiet', '--bare', bare]);
      const receivePack = await s.program('receive-pack', s.hostileMarker);
      await writeFile(
        s.repo.path('.git/config'),
        `${await readFile(s.repo.path('.git/config'), 'utf8')}${await s.hostileConfig()}[remote "origin"]\n\turl = ${bare}\n\treceivepack = ${receivePack}\n`,
      );

      const first = await step<Status>(s, 'weft/git/status', { cwd: s.repo.dir });
      await writeFile(s.repo.path('a.txt'), 'two\n');
      await writeFile(s.repo.path('b.md'), 'two\n');
      await writeFile(s.repo.path('c.bin'), 'two\n');
      await writeFile(s.repo.path('d.txt'), 'new\n');
      await step(s, 'weft/git/status', { cwd: s.repo.dir });
      for (const path of ['a.txt', 'b.md', 'c.bin'])
        await step(s, 'weft/git/diff', { cwd: s.repo.dir, path, area: 'unstaged' });
      await step(s, 'weft/git/diff', { cwd: s.repo.dir, path: 'd.txt', area: 'untracked' });
      expect(await review(s, mockOf())).toContain('two');
      await step(s, 'weft/git/stage', { cwd: s.repo.dir, path: 'a.txt' });
      await step(s, 'weft/git/stage', { cwd: s.repo.dir, path: 'b.md' });
      await step(s, 'weft/git/stage', { cwd: s.repo.dir, path: 'c.bin' });
      await step(s, 'weft/git/diff', { cwd: s.repo.dir, path: 'a.txt', area: 'staged' });
      await step(s, 'weft/git/unstage', { cwd: s.repo.dir, path: 'b.md' });
      await step(s, 'weft/git/discard', { cwd: s.repo.dir, path: 'b.md' });
      await step(s, 'weft/git/commit', { cwd: s.repo.dir, message: 'change' });
      await step(s, 'weft/git/push', { cwd: s.repo.dir });
      await step(s, 'weft/git/branches', { cwd: s.repo.dir });
      await step(s, 'weft/git/checkout', { cwd: s.repo.dir, branch: 'next', create: true, allowDirty: true });
      await step(s, 'weft/git/checkout', { cwd: s.repo.dir, branch: 'main', allowDirty: true });

      expect(await lines(s.hostileMarker)).toEqual([]);
      expect(failures).toEqual([]);
      // The status said which of the root repository's hooks a commit runs, and that the clone's own
      // core.hooksPath is not used.
      expect(first.hooks).toEqual({
        directory: s.repo.path('.git/hooks'),
        commit: ['pre-commit'],
        push: ['pre-push'],
        ignored: expect.stringContaining('core.hooksPath') as unknown,
      });
      const user = await lines(s.userMarker);
      expect(user).toContain('user pre-commit');
      expect(user).toContain('user pre-push');
      expect(user.some((l) => l.startsWith('user-filter'))).toBe(true);
      expect((await run('git', ['log', '--format=%s', 'main'], { cwd: bare })).stdout).toBe('change\ninitial\n');
    },
  );
});

describe('untracked symlinks are shown as links, never followed', () => {
  it(
    'a symlink to a FIFO: five diffs, a review and a discard answer, and fs/readFile still does',
    { timeout: 60_000 },
    async () => {
      const s = await setUp({ 'a.txt': 'one\n' });
      await run('mkfifo', [s.repo.path('.p')]);
      await symlink('.p', s.repo.path('notes.md'));
      const diffs = await Promise.all(
        Array.from({ length: 5 }, () =>
          ok<{ diff: string; modified: string | null }>(s.client, 'weft/git/diff', {
            cwd: s.repo.dir,
            path: 'notes.md',
            area: 'untracked',
          }),
        ),
      );
      for (const d of diffs) {
        expect(d.modified).toBe('.p');
        expect(d.diff).toContain('new file mode 120000');
        expect(d.diff).toContain('+.p');
      }
      const read = await ok<{ dataBase64: string }>(s.client, 'fs/readFile', { path: s.repo.path('a.txt') });
      expect(Buffer.from(read.dataBase64, 'base64').toString('utf8')).toBe('one\n');
      expect(await review(s, mockOf())).toContain('+.p');
      await ok(s.client, 'weft/git/discard', { cwd: s.repo.dir, path: 'notes.md' });
      expect(existsSync(s.repo.path('notes.md'))).toBe(false);
      expect(existsSync(s.repo.path('.p'))).toBe(true);
    },
  );

  it('/etc/passwd through an untracked symlink, or through a symlinked folder, is not returned', async () => {
    const s = await setUp({ 'a.txt': 'one\n' });
    await symlink('/etc/passwd', s.repo.path('pw'));
    await symlink('/etc', s.repo.path('etc-link'));
    const passwd = await readFile('/etc/passwd', 'utf8');

    const refused = await s.client.call('fs/readFile', { path: s.repo.path('pw') });
    expect(refused.error?.message).toContain('outside the folders');
    const diff = await ok<{ diff: string; modified: string | null }>(s.client, 'weft/git/diff', {
      cwd: s.repo.dir,
      path: 'pw',
      area: 'untracked',
    });
    expect(diff.modified).toBe('/etc/passwd');
    expect(diff.diff).toContain('+/etc/passwd');
    expect(diff.diff).not.toContain(passwd.split('\n')[0]);

    const through = await s.client.call('weft/git/diff', {
      cwd: s.repo.dir,
      path: 'etc-link/passwd',
      area: 'untracked',
    });
    expect(JSON.stringify(through)).not.toContain(passwd.split('\n')[0]);
    expect(through.error?.message).toContain('etc-link/passwd');
  });
});

describe('a discard is put back only inside the repository', () => {
  it('restore refuses to write through a folder that became a symlink out of the workspace', async () => {
    const s = await setUp({ 'src/a.txt': 'one\n' });
    await writeFile(s.repo.path('src/a.txt'), 'two\n');
    const { discard } = await ok<{ discard: { id: string } }>(s.client, 'weft/git/discard', {
      cwd: s.repo.dir,
      path: 'src/a.txt',
    });
    const outside = join(tools?.dir ?? '', 'outside');
    await mkdir(outside);
    await rm(s.repo.path('src'), { recursive: true });
    await symlink(outside, s.repo.path('src'));
    const reply = await s.client.call('weft/git/discard/restore', { cwd: s.repo.dir, id: discard.id, force: true });
    expect(existsSync(join(outside, 'a.txt'))).toBe(false);
    expect(reply.error?.message).toContain('src/a.txt leads outside');
  });
});

function mockOf(): MockResponsesServer {
  if (mock === undefined) throw new Error('the mock model is not started');
  return mock;
}
