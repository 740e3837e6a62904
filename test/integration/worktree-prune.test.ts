// `weft worktrees list|prune` over worktree threads made by the real `weft app-server`, with real git: a
// worktree whose thread is archived and whose branch is merged (or empty) goes with its branch; one
// holding work found nowhere else (files in untracked folders counted one by one) is kept and named
// until `--yes` names it; unmerged commits, live threads and recent activity keep a worktree; nothing
// else is touched.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PruneOutcome } from '../../src-main/server/worktree-cleanup';
import { GIT_ENV, makeGitRepo, type GitRepo } from '../support/git-repo';
import { startInProcessHost } from '../support/in-process-host';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated } from '../support/sse';
import { waitFor } from '../support/wait';
import { makeWeftHome, type WeftHome } from '../support/workspace';

const WEFT = resolve(__dirname, '../../bin/weft.js');

let server: MockResponsesServer;
let repo: GitRepo;
let home: WeftHome;
let client: StdioRpcClient | null = null;

beforeEach(async () => {
  server = await startMockResponsesServer();
  repo = await makeGitRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
});

afterEach(async () => {
  await client?.close();
  client = null;
  await server.close();
  await repo.cleanup();
  await home.cleanup();
});

const ENV = (): Record<string, string> => ({
  PATH: process.env['PATH'] ?? '',
  HOME: process.env['HOME'] ?? '',
  WEFT_HOME: home.dir,
  MOCK_API_KEY: 'x',
  ...GIT_ENV,
});

function run(
  cmd: string,
  args: string[],
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd, args, { cwd, env: ENV() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
    child.stdin.end();
  });
}

const weft = (...args: string[]) => run(process.execPath, [WEFT, ...args], repo.dir);
async function gitIn(dir: string, ...args: string[]): Promise<string> {
  const out = await run('git', args, dir);
  if (out.code !== 0) throw new Error(`git ${args.join(' ')}: ${out.stderr}`);
  return out.stdout;
}

interface Made {
  id: string;
  path: string;
  branch: string;
}

/** A worktree thread with one finished turn (so it is saved), archived unless `live`. */
async function worktreeThread(
  app: StdioRpcClient,
  text: string,
  options: { live?: boolean; carry?: boolean } = {},
): Promise<Made> {
  const reply = await app.call('thread/start', {
    cwd: repo.dir,
    weftWorktree: true,
    ...(options.carry === true ? { weftWorktreeCarryChanges: true } : {}),
  });
  if (reply.error) throw new Error(reply.error.message);
  const { thread } = reply.result as { thread: { id: string; weftWorktree: { path: string; branch: string } } };
  server.enqueueMany([{ kind: 'sse', events: [evCreated(), evAssistantMessage(`ok ${text}`), evCompleted()] }]);
  const from = app.received.length;
  await app.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text }] });
  await app.notification('turn/completed', (p) => p['threadId'] === thread.id, from);
  if (options.live !== true) await app.request('thread/archive', { threadId: thread.id });
  return { id: thread.id, path: thread.weftWorktree.path, branch: thread.weftWorktree.branch };
}

interface Listed {
  path: string;
  branch: string;
  threads: { id: string; archived: boolean }[];
  merged: boolean;
  empty: boolean;
  commits: number | null;
  uniqueWork: { found: boolean; commits: number; files: string[] };
}

describe('weft worktrees', () => {
  it('lists what each worktree holds and prunes only the archived ones whose branch is merged or empty', async () => {
    await writeFile(repo.path('carried.txt'), 'the same in the project\n');
    const app = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, repo.dir);
    client = app;
    await app.initialize();
    const merged = await worktreeThread(app, 'merged');
    const empty = await worktreeThread(app, 'empty', { carry: true });
    const dirty = await worktreeThread(app, 'dirty');
    const unmerged = await worktreeThread(app, 'unmerged');
    const live = await worktreeThread(app, 'live', { live: true });
    // The app server is closed: prune works on what is saved.
    client = null;
    await app.close();

    // merged: a commit, merged into main. unmerged: a commit nowhere else.
    await writeFile(join(merged.path, 'feature.txt'), 'feature\n');
    await gitIn(merged.path, 'add', 'feature.txt');
    await gitIn(merged.path, 'commit', '-qm', 'feature');
    await repo.git('merge', '--quiet', '--ff-only', merged.branch);
    await writeFile(join(unmerged.path, 'mine.txt'), 'mine\n');
    await gitIn(unmerged.path, 'add', 'mine.txt');
    await gitIn(unmerged.path, 'commit', '-qm', 'only here');
    // dirty: a changed tracked file, and three new files, two of them in untracked folders.
    await writeFile(join(dirty.path, 'a.txt'), 'changed in the worktree\n');
    await mkdir(join(dirty.path, 'notes/deep'), { recursive: true });
    await writeFile(join(dirty.path, 'notes/one.txt'), '1\n');
    await writeFile(join(dirty.path, 'notes/deep/two.txt'), '2\n');
    await writeFile(join(dirty.path, 'three.txt'), '3\n');

    const listed = await weft('worktrees', 'list', '--json');
    expect(listed.code).toBe(0);
    const rows = (JSON.parse(listed.stdout) as Listed[]).map((r) => ({
      path: r.path,
      branch: r.branch,
      threads: r.threads.map((t) => [t.id, t.archived]),
      merged: r.merged,
      empty: r.empty,
      commits: r.commits,
      uniqueWork: r.uniqueWork,
    }));
    const row = (m: Made, rest: Partial<(typeof rows)[number]>) => ({
      path: m.path,
      branch: m.branch,
      threads: [[m.id, m !== live]],
      merged: false,
      empty: true,
      commits: 0,
      uniqueWork: { found: false, commits: 0, files: [] },
      ...rest,
    });
    expect(rows).toEqual(
      [
        row(merged, { merged: true, empty: false, commits: 1 }),
        // carried.txt came along and is still the project's: found elsewhere.
        row(empty, {}),
        row(dirty, {
          uniqueWork: {
            found: true,
            commits: 0,
            files: ['a.txt', 'notes/deep/two.txt', 'notes/one.txt', 'three.txt'],
          },
        }),
        row(unmerged, { empty: false, commits: 1, uniqueWork: { found: true, commits: 1, files: [] } }),
        row(live, {}),
      ].sort((a, b) => (a.path < b.path ? -1 : 1)),
    );
    const human = await weft('worktrees', 'list');
    expect(human.stdout).toContain(
      `${dirty.path}\n  branch: ${dirty.branch} from main: empty (no commits)\n  thread: ${dirty.id} "dirty" (archived)\n  unique work: yes: 4 uncommitted files (a.txt, notes/deep/two.txt, notes/one.txt, three.txt)\n`,
    );

    // Within the default 7 days of activity nothing goes.
    const early = await weft('worktrees', 'prune');
    expect(early).toEqual({ code: 0, stdout: 'Nothing to remove.\n', stderr: '' });

    const pruned = await weft('worktrees', 'prune', '--days', '0');
    expect(pruned.code).toBe(0);
    expect(pruned.stdout.split('\n').filter(Boolean).sort()).toEqual(
      [
        `Removed ${merged.path} and its branch ${merged.branch}`,
        `Removed ${empty.path} and its branch ${empty.branch}`,
      ].sort(),
    );
    expect(pruned.stderr).toBe(
      `weft worktrees: kept ${dirty.path}: it holds work found nowhere else: 4 uncommitted files (a.txt, notes/deep/two.txt, notes/one.txt, three.txt). To remove it anyway: weft worktrees prune --yes ${dirty.path}\n`,
    );
    for (const gone of [merged, empty]) expect(existsSync(gone.path)).toBe(false);
    for (const kept of [dirty, unmerged, live]) expect(existsSync(kept.path)).toBe(true);
    const branches = (await repo.git('branch', '--format=%(refname:short)')).split('\n').filter(Boolean);
    expect(branches.sort()).toEqual(['main', dirty.branch, unmerged.branch, live.branch].sort());
    // The project is as it was (with the merged commit main was given).
    expect(await repo.git('status', '--porcelain')).toBe('?? carried.txt\n');
    expect(existsSync(repo.path('feature.txt'))).toBe(true);

    // Named, the one with work found nowhere else goes too; the unmerged and the live one stay.
    const named = await weft('worktrees', 'prune', '--days', '0', '--yes', dirty.path, '--yes', live.branch);
    expect(named.code).toBe(0);
    expect(named.stdout).toBe(
      `Removed ${dirty.path} and its branch ${dirty.branch}, with what only it held: 4 uncommitted files (a.txt, notes/deep/two.txt, notes/one.txt, three.txt)\n`,
    );
    expect(named.stderr).toBe(`weft worktrees: kept ${live.path} (named with --yes): its thread is not archived\n`);
    expect(existsSync(dirty.path)).toBe(false);
    expect(existsSync(unmerged.path)).toBe(true);
    expect(existsSync(live.path)).toBe(true);

    const unknown = await weft('worktrees', 'prune', '--yes', '/nowhere');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      'weft worktrees: --yes /nowhere: no worktree has that folder or branch (`weft worktrees list` shows them)\n',
    );
  });

  it('is done by the app host at start for what may go without asking, and said in its log', async () => {
    await writeFile(
      join(home.dir, 'config.toml'),
      `${await readFile(join(home.dir, 'config.toml'), 'utf8')}\n[worktree]\nprune_after_days = 0\n`,
    );
    const first = await startInProcessHost({
      weftHome: home.dir,
      cwd: repo.dir,
      env: ENV(),
      pruneWorktreesAfterMs: 3_600_000,
    });
    const start = async (archive: boolean): Promise<{ id: string; path: string; branch: string }> => {
      const reply = await first.client.call('thread/start', { cwd: repo.dir, weftWorktree: true });
      const { thread } = reply.result as { thread: { id: string; weftWorktree: { path: string; branch: string } } };
      server.enqueueMany([{ kind: 'sse', events: [evCreated(), evAssistantMessage('ok'), evCompleted()] }]);
      const done = waitFor(first.client.subscribe, (m) => 'method' in m && m.method === 'turn/completed', {
        label: 'turn/completed',
      });
      await first.client.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
      await done;
      if (archive) await first.client.call('thread/archive', { threadId: thread.id });
      return { id: thread.id, ...thread.weftWorktree };
    };
    const archived = await start(true);
    const live = await start(false);
    await first.close();

    let pruned: (outcomes: PruneOutcome[]) => void = () => undefined;
    const outcomes = new Promise<PruneOutcome[]>((resolvePruned) => (pruned = resolvePruned));
    const second = await startInProcessHost({
      weftHome: home.dir,
      cwd: repo.dir,
      env: ENV(),
      pruneWorktreesAfterMs: 0,
      onWorktreesPruned: (o) => pruned(o),
    });
    try {
      const done = await outcomes;
      expect(done.map((o) => [o.worktree.recorded.path, o.removed])).toEqual(
        [
          [archived.path, { deletedBranch: archived.branch }],
          [live.path, null],
        ].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)),
      );
      expect(existsSync(archived.path)).toBe(false);
      expect(existsSync(live.path)).toBe(true);
      expect(second.logs).toContain(
        `weft app-server: removed the worktree ${archived.path} (threads archived, branch ${archived.branch} deleted)`,
      );
    } finally {
      await second.close();
    }
  });
});
