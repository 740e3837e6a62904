// A `thread/fork` with files killed half way (SIGKILL to the app server and the git it runs, as the
// folder appears) leaves a partial folder under WEFT_HOME/worktrees and, in a git project, a registered
// worktree and a `weft/<id>` branch. `weft checkpoints gc` and the next start of the server remove them;
// a leftover holding work found nowhere else is kept, and said so.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeGitRepo, type GitRepo } from '../support/git-repo';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { answerTurn } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const run = promisify(execFile);
const WEFT = resolve(__dirname, '../../bin/weft.js');
/** Files of the project: enough that making the fork's folder takes a while to be killed in. */
const FILE_COUNT = 1500;

let server: MockResponsesServer;
let home: WeftHome;
let project: TempWorkspace | GitRepo | undefined;
const clients: StdioRpcClient[] = [];

beforeEach(async () => {
  server = await startMockResponsesServer();
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
});

afterEach(async () => {
  for (const c of clients.splice(0)) {
    if (c.child.exitCode === null && c.child.signalCode === null) await c.close();
  }
  await server.close();
  await project?.cleanup();
  project = undefined;
  await home.cleanup();
});

function manyFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < FILE_COUNT; i++) files[`src/d${i % 30}/f${i}.txt`] = `file ${i}\n${'x'.repeat(200)}\n`;
  return files;
}

const env = (): Record<string, string> => ({
  PATH: process.env['PATH'] ?? '',
  HOME: process.env['HOME'] ?? '',
  SHELL: '/bin/bash',
  WEFT_HOME: home.dir,
  MOCK_API_KEY: 'x',
});

/** `weft app-server` in a process group of its own, so a kill takes the git it runs too. */
async function startServer(cwd: string): Promise<StdioRpcClient> {
  const child = spawn(process.execPath, [WEFT, 'app-server'], { cwd, env: env(), detached: true });
  const client = StdioRpcClient.attach(child);
  clients.push(client);
  await client.initialize();
  return client;
}

/**
 * Starts a fork with files and kills the server's whole process group once the fork's folder holds
 * `entry` (for a worktree, `.git`: git has registered it and is checking the files out), or any entry.
 */
async function crashMidFork(
  cwd: string,
  entry: string | null,
  before: (client: StdioRpcClient, threadId: string) => Promise<void> = async () => undefined,
): Promise<string> {
  server.enqueue(answerTurn('Looked.'));
  const client = await startServer(cwd);
  const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd });
  const from = client.received.length;
  await client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'look' }] });
  await client.notification('turn/completed', () => true, from);
  await before(client, thread.id);

  const worktrees = join(home.dir, 'worktrees');
  mkdirSync(worktrees, { recursive: true });
  const kill = (): void => {
    const pid = client.child.pid;
    if (pid !== undefined) process.kill(-pid, 'SIGKILL');
  };
  const killed = new Promise<string>((resolveFolder) => {
    const outer = watch(worktrees, (_event, name) => {
      if (name === null) return;
      outer.close();
      const folder = join(worktrees, name);
      const holds = (): boolean => readdirSync(folder).some((n) => entry === null || n === entry);
      const inner = watch(folder, () => {
        if (!holds()) return;
        inner.close();
        kill();
        resolveFolder(folder);
      });
      if (holds()) {
        inner.close();
        kill();
        resolveFolder(folder);
      }
    });
  });
  client.send({ id: 'fork', method: 'thread/fork', params: { threadId: thread.id, weftWorktree: true } });
  const folder = await killed;
  await client.exited;
  return folder;
}

/** Resolves once the server has printed `text` on stderr (its log). */
function logged(client: StdioRpcClient, text: string): Promise<void> {
  return new Promise((resolveLogged, reject) => {
    const check = (): void => {
      if (!client.stderr.includes(text)) return;
      clearTimeout(timer);
      client.child.stderr.off('data', onData);
      resolveLogged();
    };
    // The listener runs after the client's own, which appends the chunk to `stderr`.
    const onData = (): void => check();
    const timer = setTimeout(() => {
      client.child.stderr.off('data', onData);
      reject(new Error(`the server never logged "${text}"; it logged: ${client.stderr}`));
    }, 20_000);
    client.child.stderr.on('data', onData);
    check();
  });
}

async function gc(cwd: string): Promise<string> {
  const { stdout } = await run(process.execPath, [WEFT, 'checkpoints', 'gc'], { cwd, env: env() });
  return stdout;
}

it('removes the worktree, its registration and its branch a killed fork left in a git project', async () => {
  const repo = await makeGitRepo(manyFiles());
  project = repo;
  // A fork made whole first: it is the user's, and stays.
  let wholeCwd = '';
  const folder = await crashMidFork(repo.dir, '.git', async (client, threadId) => {
    const whole = await client.request<{ thread: { cwd: string } }>('thread/fork', { threadId, weftWorktree: true });
    wholeCwd = whole.thread.cwd;
  });
  expect(existsSync(folder)).toBe(true);
  const branches = async (): Promise<string> =>
    (await repo.git('for-each-ref', '--format=%(refname:short)', 'refs/heads/weft/')).trim();
  // Read from the registrations themselves: `git worktree list` fails outright on one the kill cut short
  // before git wrote its `commondir` (which the clean-up must handle too).
  const registered = async (): Promise<string[]> => {
    const admin = join(repo.dir, '.git', 'worktrees');
    const names = existsSync(admin) ? readdirSync(admin) : [];
    const folders = names.map((name) => dirname(readFileSync(join(admin, name, 'gitdir'), 'utf8').trim()));
    return [repo.dir, ...folders.sort()];
  };

  // What the crash left: the folder half made, registered as a worktree, on its new branch.
  const wholeBranch = `weft/${wholeCwd.slice(-8)}`;
  expect(await registered()).toEqual([repo.dir, ...[wholeCwd, folder].sort()]);
  expect(await branches()).toBe([wholeBranch, `weft/${folder.slice(-8)}`].sort().join('\n'));

  const said = await gc(repo.dir);
  expect(said).toContain(`Removed what interrupted forks left: ${folder}.`);
  expect(readdirSync(join(home.dir, 'worktrees'))).toEqual([wholeCwd.slice(-8)]);
  expect(await registered()).toEqual([repo.dir, wholeCwd]);
  expect(await branches()).toBe(wholeBranch);
  expect(readdirSync(join(home.dir, 'checkpoints', 'forks', 'pending'))).toEqual([]);
  // The project itself is untouched.
  expect((await repo.git('status', '--porcelain')).trim()).toBe('');
});

it('keeps a leftover copy holding work found nowhere else, and removes it at start once it holds none', async () => {
  const ws = await makeTempWorkspace(manyFiles());
  project = ws;
  const folder = await crashMidFork(ws.dir, null);
  writeFileSync(join(folder, 'mine.txt'), 'written in the leftover, nowhere else\n');

  const first = await startServer(ws.dir);
  await logged(first, `kept ${folder}:`);
  expect(first.stderr).toContain('it holds work found nowhere else (mine.txt);');
  expect(existsSync(join(folder, 'mine.txt'))).toBe(true);
  await first.close();

  await run('rm', [join(folder, 'mine.txt')]);
  const second = await startServer(ws.dir);
  await logged(second, `removed what interrupted forks left: ${folder}`);
  expect(existsSync(folder)).toBe(false);
  expect(readdirSync(ws.dir).sort()).toEqual(['src']);
});
