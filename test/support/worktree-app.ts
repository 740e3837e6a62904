// The real `weft app-server` over stdio, a real git repository and the mock model, for tests of worktree
// threads: start, scripted turns, the commands a turn ran, and git run in any folder. Commands run in the
// real sandbox (workspace-write, the temp folders not writable, so nothing outside the worktree is).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { GIT_ENV, makeGitRepo, type GitRepo } from './git-repo';
import { startMockResponsesServer, type MockResponsesServer, type ScriptStep } from './mock-responses-server';
import { StdioRpcClient } from './rpc-client';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from './sse';
import { makeWeftHome, type WeftHome } from './workspace';

const run = promisify(execFile);

export interface WorktreeInfo {
  path: string;
  branch: string;
  baseRef: string;
  projectRoot: string;
}

export interface StartedThread {
  thread: { id: string; cwd: string; weftWorktree?: WorktreeInfo; weftGroupId?: string };
  cwd: string;
}

export interface CommandItem {
  type: string;
  id: string;
  command: string;
  cwd: string;
  status: string;
  exitCode: number | null;
  aggregatedOutput: string | null;
}

export interface WorktreeApp {
  server: MockResponsesServer;
  repo: GitRepo;
  home: WeftHome;
  client: StdioRpcClient;
  /** A request's result; throws with the error's code and message. */
  ok<T>(method: string, params: unknown): Promise<T>;
  /** Starts a worktree thread of the repository (more thread/start params may be given). */
  startWorktree(params?: Record<string, unknown>): Promise<StartedThread & { worktree: WorktreeInfo }>;
  /** Runs one turn to its end; returns its turn/completed params. */
  turn(threadId: string, text: string): Promise<Record<string, unknown>>;
  /** The command items completed in a thread so far. */
  commands(threadId: string): CommandItem[];
  close(): Promise<void>;
}

/** The model's answer: a message, and the turn ends. */
export const answer = (text: string): ScriptStep => ({
  kind: 'sse',
  events: [evCreated(), evAssistantMessage(text), evCompleted()],
});

/** The model runs `cmd` with exec_command. */
export const command = (id: string, cmd: string): ScriptStep => ({
  kind: 'sse',
  events: [evCreated(), evFunctionCall(id, 'exec_command', { cmd }), evCompleted()],
});

/** git in any folder, outside Weft (the test's own view of the repository). */
export async function gitIn(dir: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV } })).stdout;
}

export async function startWorktreeApp(files: Record<string, string>): Promise<WorktreeApp> {
  const server = await startMockResponsesServer();
  const repo = await makeGitRepo(files);
  // The temp folders are not writable in the sandbox: every test folder is in one, the worktrees' parent too.
  const home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\nsandbox_mode = "workspace-write"\n[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  const client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x', ...GIT_ENV }, repo.dir);
  await client.initialize();
  const ok = async <T>(method: string, params: unknown): Promise<T> => {
    const reply = await client.call(method, params);
    if (reply.error) throw new Error(`${method}: ${reply.error.code} ${reply.error.message}`);
    return reply.result as T;
  };
  return {
    server,
    repo,
    home,
    client,
    ok,
    startWorktree: async (params = {}) => {
      const started = await ok<StartedThread>('thread/start', { cwd: repo.dir, weftWorktree: true, ...params });
      const worktree = started.thread.weftWorktree;
      if (worktree === undefined) throw new Error('thread/start answered no weftWorktree');
      return { ...started, worktree };
    },
    turn: async (threadId, text) => {
      const from = client.received.length;
      await ok('turn/start', { threadId, input: [{ type: 'text', text }] });
      return client.notification('turn/completed', (p) => p['threadId'] === threadId, from);
    },
    commands: (threadId) =>
      client
        .notifications('item/completed')
        .filter((p) => p['threadId'] === threadId)
        .map((p) => p['item'] as CommandItem)
        .filter((item) => item.type === 'commandExecution'),
    close: async () => {
      await client.close();
      await server.close();
      await repo.cleanup();
      await home.cleanup();
    },
  };
}
