// Automations on a remote environment, reached through a command (`sh -c '… weft app-server'`, as
// `kubectl exec -i` would be) with a Weft home of its own: the run's thread and worktree are there, its
// record (runs, inbox, the end told to clients) here. Its review goes there through the host's router: the
// turn's diff, the Handoff (Keep) and the worktree's removal (Discard). It never asks anyone. A link lost for good fails the run saying so; a link
// that comes back after the remote finished the turn records the run as the remote ended it.
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { attachDirect, cliEnv, remoteWeft, stopUserServer, relayPipes } from '../support/environments';
import { makeGitRepo, type GitRepo } from '../support/git-repo';
import {
  assertAllToolOutputsAnswered,
  createGate,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { answerTurn, evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { runWeftCli, type WeftRun } from '../support/weft-cli';
import { makeTempWorkspace, makeWeftHome, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let repo: GitRepo;
let remote: WeftHome;
let local: WeftHome;
const clients: StdioRpcClient[] = [];

/** While this file exists, the `blockable` environment cannot be reached. */
const blockFile = (): string => join(remote.dir, 'unreachable');

beforeEach(async () => {
  server = await startMockResponsesServer();
  repo = await makeGitRepo({ 'a.txt': 'a one\n' });
  // Threads there ask for everything by default: a run must say `never` itself.
  remote = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "untrusted"\nsandbox_mode = "workspace-write"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  local = await makeWeftHome(
    [
      '[environments.pipe]',
      `command = ["sh", "-c", ${JSON.stringify(`${remoteWeft(remote.dir)} app-server`)}]`,
      '[environments.blockable] # through the per-user server there, unreachable while the block file exists',
      `command = ["sh", "-c", ${JSON.stringify(`[ -e ${blockFile()} ] && { echo "unreachable" >&2; exit 1; }; exec env ${remoteWeft(remote.dir)} app-server --attach`)}]`,
      '',
    ].join('\n'),
  );
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await stopUserServer(remote.dir);
  await server.close();
  await repo.cleanup();
  await remote.cleanup();
  await local.cleanup();
});

const weft = (...args: string[]): Promise<WeftRun> => runWeftCli(args, { cwd: local.dir, weftHome: local.dir });

async function addRemote(name: string, environment: string): Promise<string> {
  const added = await weft(
    'automations',
    'add',
    '--name',
    name,
    '--project',
    repo.dir,
    '--manual',
    '--prompt',
    'say hi',
    '--env',
    environment,
  );
  expect(added).toEqual({ code: 0, stdout: expect.stringMatching(/^Added [a-z-]+: /) as unknown, stderr: '' });
  return /^Added ([a-z-]+):/.exec(added.stdout)?.[1] ?? '';
}

/** `weft app-server` on the local home (its scheduler runs the automations), told of their runs. */
async function connect(extraEnv: Record<string, string> = {}): Promise<StdioRpcClient> {
  const client = StdioRpcClient.start(cliEnv(local.dir, extraEnv), repo.dir);
  clients.push(client);
  await client.initialize();
  expect((await client.call('weft/automations/list', {})).error).toBeUndefined();
  return client;
}

interface Run {
  runId: string;
  status: string;
  threadId: string | null;
  worktree: string | null;
  environment: string | null;
  reason: string | null;
  finalMessage: string | null;
  turnId: string | null;
}

async function runEnded(client: StdioRpcClient, runId: string): Promise<Run> {
  const params = await client.notification(
    'weft/automations/runEnded',
    (p) => (p['automationRun'] as { run: Run }).run.runId === runId,
  );
  return (params['automationRun'] as { run: Run }).run;
}

/** Cuts the pipe of the relay inside `client`'s process (the `node` child its `sh -c … exec` became). */
async function cutPipe(client: StdioRpcClient): Promise<void> {
  const pipes = await relayPipes(client.child.pid ?? 0);
  expect(pipes).toHaveLength(1);
  for (const pid of pipes) process.kill(pid, 'SIGKILL');
}

describe('automations on a remote environment', () => {
  it('refuses --env naming no environment of config.toml, or with a trigger that looks at files here', async () => {
    const add = await weft('automations', 'add', '--name', 'X', '--project', repo.dir, '--manual', '--prompt', 'x');
    expect(add.code).toBe(0);
    const id = /^Added ([a-z-]+):/.exec(add.stdout)?.[1] ?? '';
    expect(await weft('automations', 'edit', id, '--env', 'build-box')).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'weft automations edit: --env build-box: no environment named "build-box" in config.toml (configured: blockable, pipe)\n',
    });
    expect(await weft('automations', 'edit', id, '--env', 'pipe', '--here')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'weft automations edit: choose --env NAME (a remote environment) or --here (this machine), not both\n',
    });
    // Commits and files are looked at here: a remote project's are not.
    const watching = await weft(
      'automations',
      'add',
      '--name',
      'W',
      '--project',
      repo.dir,
      '--on-commit',
      'main',
      '--prompt',
      'x',
      '--env',
      'pipe',
    );
    expect(watching).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'weft automations add: trigger.type: a commit trigger looks at this machine\'s branches, and this automation runs on environment "pipe": give it a schedule or make it manual, or add the automation on that machine to watch its project there\n',
    });
  });

  it('runs its thread there and records the run here: runs, inbox and the end told to clients', async () => {
    const id = await addRemote('Remote hi', 'pipe');
    const file = join(local.dir, 'automations', `${id}.toml`);
    expect(await readFile(file, 'utf8')).toContain('\nremote = "pipe"\n');
    server.enqueue(answerTurn('hi from there'));
    const client = await connect();
    const { runId } = await client.request<{ runId: string }>('weft/automations/runNow', { id });
    const run = await runEnded(client, runId);
    expect(run).toMatchObject({
      runId,
      status: 'completed',
      environment: 'pipe',
      reason: null,
      finalMessage: 'hi from there',
    });
    // The worktree and the thread are there, not here.
    expect(run.worktree?.startsWith(join(remote.dir, 'worktrees'))).toBe(true);
    const there = await runWeftCli(['threads', 'read', run.threadId ?? '', '--json'], {
      cwd: remote.dir,
      weftHome: remote.dir,
    });
    expect(there.code).toBe(0);
    expect((JSON.parse(there.stdout) as { thread: { name: string } }).thread.name).toBe('Automation: Remote hi');
    expect((await weft('threads', 'read', run.threadId ?? '', '--json')).code).not.toBe(0);
    // Recorded here: its history, and the inbox, where its diff, Keep and Discard belong to the environment.
    const runs = JSON.parse((await weft('automations', 'runs', id, '--json')).stdout) as Run[];
    expect(runs).toEqual([expect.objectContaining({ runId, status: 'completed', environment: 'pipe' })]);
    const inbox = await client.request<{ items: { run: Run }[]; unseen: number }>('weft/automations/inbox/list', {});
    expect({ runs: inbox.items.map((i) => i.run.runId), unseen: inbox.unseen }).toEqual({ runs: [runId], unseen: 1 });
    // Its diff is in its thread there (read with thread/read and weftEnvironment; see below).
    const read = await client.request<{ diff: string | null; turnId: string | null }>('weft/automations/inbox/read', {
      id,
      runId,
    });
    expect(read).toMatchObject({ diff: null, turnId: null });
    // `weft automations run` runs it there too.
    server.enqueue(answerTurn('again from there'));
    expect(await weft('automations', 'run', id)).toMatchObject({ code: 0, stdout: `${id}: completed\n` });
  });

  it('reviews a run there: its diff read there, Keep after a Handoff there, Discard after its worktree is removed there', async () => {
    const id = await addRemote('Remote edit', 'pipe');
    const edit = (callId: string, text: string) => [
      {
        kind: 'sse' as const,
        events: [evCreated(), evFunctionCall(callId, 'exec_command', { cmd: `echo '${text}' > a.txt` }), evCompleted()],
      },
      answerTurn(`wrote ${text}`),
    ];
    server.enqueueMany(edit('c1', 'kept there'));
    const client = await connect();
    const first = await runEnded(
      client,
      (await client.request<{ runId: string }>('weft/automations/runNow', { id })).runId,
    );
    expect(first).toMatchObject({ status: 'completed', environment: 'pipe', changedFiles: 1 });
    const threadId = first.threadId ?? '';

    // The diff: the run's turn in its thread there, through this host's router.
    const there = await client.request<{
      thread: { weftEnvironment?: string; turns: { id: string; weftDiff?: string | null }[] };
    }>('thread/read', { threadId, includeTurns: true, weftEnvironment: 'pipe' });
    expect(there.thread.weftEnvironment).toBe('pipe');
    const turn = there.thread.turns.find((t) => t.id === first.turnId);
    expect(turn?.weftDiff).toContain('--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a one\n+kept there\n');

    // Keep: the Handoff there (the thread is routed there now), to the project's checkout there.
    const preview = await client.request<{ fingerprint: string }>('weft/worktree/handoff/preview', {
      threadId,
      direction: 'toLocal',
    });
    await client.request('weft/worktree/handoff', {
      threadId,
      direction: 'toLocal',
      fingerprint: preview.fingerprint,
      resolutions: [],
      move: false,
    });
    expect(await readFile(join(repo.dir, 'a.txt'), 'utf8')).toBe('kept there\n');
    const kept = await client.request<{ item: { run: Run & { decision: string } } }>('weft/automations/inbox/keep', {
      id,
      runId: first.runId,
    });
    expect(kept.item.run).toMatchObject({ runId: first.runId, decision: 'kept', seen: true });

    // Discard: the worktree there removed (only the one the thread was started in), its thread archived there.
    server.enqueueMany(edit('c2', 'thrown away'));
    const second = await runEnded(
      client,
      (await client.request<{ runId: string }>('weft/automations/runNow', { id })).runId,
    );
    const worktree = second.worktree ?? '';
    expect(worktree.startsWith(join(remote.dir, 'worktrees'))).toBe(true);
    expect(await readFile(join(worktree, 'a.txt'), 'utf8')).toBe('thrown away\n');
    const secondThread = second.threadId ?? '';
    // Reviewed first, as the inbox does: the router learns where the thread is.
    const secondRead = await client.request<{ thread: { turns: { weftDiff?: string | null }[] } }>('thread/read', {
      threadId: secondThread,
      includeTurns: true,
      weftEnvironment: 'pipe',
    });
    expect(secondRead.thread.turns.at(-1)?.weftDiff).toContain('+thrown away\n');
    expect(
      (await client.call('weft/worktree/remove', { threadId: secondThread, path: repo.dir, weftEnvironment: 'pipe' }))
        .error,
    ).toEqual({
      code: -32600,
      message: `${repo.dir} is not the worktree thread ${secondThread} was started in; it is left as it is`,
    });
    expect(
      await client.request('weft/worktree/remove', { threadId: secondThread, path: worktree, weftEnvironment: 'pipe' }),
    ).toEqual({ removed: true });
    expect(existsSync(worktree)).toBe(false);
    // Its branch stays, so what it committed is not lost.
    expect(await repo.git('branch', '--list', '--format=%(refname:short)')).toMatch(/\bweft\//);
    await client.request('thread/archive', { threadId: secondThread });
    const archived = await runWeftCli(['threads', 'list', '--archived', '--json'], {
      cwd: remote.dir,
      weftHome: remote.dir,
    });
    expect(archived.stdout).toContain(secondThread);
    const discarded = await client.request<{ item: { run: Run & { decision: string } }; worktreeRemoved: boolean }>(
      'weft/automations/inbox/discard',
      { id, runId: second.runId },
    );
    expect(discarded).toMatchObject({ worktreeRemoved: false, item: { run: { decision: 'discarded' } } });
    expect(await readFile(join(repo.dir, 'a.txt'), 'utf8')).toBe('kept there\n');
  });

  it('never asks anyone there: what needs an approval is refused and the model told, even with a person watching', async () => {
    const id = await addRemote('Unattended', 'blockable');
    const outside = await makeTempWorkspace({});
    const gate = createGate();
    server.enqueueMany([
      {
        kind: 'sse-slow',
        events: [evCreated(), gate, evFunctionCall('d', 'exec_command', { cmd: 'rm -rf a.txt' }), evCompleted()],
      },
      {
        kind: 'sse',
        events: [
          evCreated(),
          evFunctionCall('e', 'exec_command', {
            cmd: `touch ${outside.dir}/x.txt`,
            sandbox_permissions: 'require_escalated',
            justification: 'Write outside the worktree?',
          }),
          evCompleted(),
        ],
      },
      answerTurn('done without asking'),
    ]);
    const client = await connect();
    const { runId } = await client.request<{ runId: string }>('weft/automations/runNow', { id });
    await server.waitForRequest(1);
    const [started] = JSON.parse((await weft('automations', 'runs', id, '--json')).stdout) as Run[];
    const threadId = started?.threadId ?? '';
    // A person's client there, subscribed to the run's thread, would be asked whatever the run asks.
    const watcher = attachDirect(remote.dir);
    clients.push(watcher);
    await watcher.initialize();
    await watcher.request('thread/resume', { threadId });
    gate.release();
    const run = await runEnded(client, runId);
    expect(run).toMatchObject({ status: 'completed', finalMessage: 'done without asking' });
    const asked = (c: StdioRpcClient) => c.received.filter((m) => m.method !== undefined && m.id !== undefined);
    expect(asked(watcher)).toEqual([]);
    expect(asked(client)).toEqual([]);
    // Refused there, and the model told why, instead of asking.
    const outputs = (n: number) => JSON.stringify(assertAllToolOutputsAnswered(server.requests[n - 1]?.body));
    expect(outputs(2)).toMatch(/exec command rejected: dangerous command: .*approvals are set to \\"Never ask\\"/);
    expect(outputs(3)).toContain(
      'exec command rejected: the command asks to run outside the sandbox (sandbox_permissions: require_escalated), which needs approval, but approvals are set to \\"Never ask\\"',
    );
    expect(existsSync(join(run.worktree ?? '', 'a.txt'))).toBe(true);
    expect(existsSync(join(outside.dir, 'x.txt'))).toBe(false);
    // Nor can it ask a question: the model is not given the tool (a thread there otherwise is).
    const toolNames = (n: number) =>
      ((server.requests[n - 1]?.body as { tools?: { name?: string }[] }).tools ?? []).map((t) => t.name);
    expect(toolNames(1)).toContain('exec_command');
    expect(toolNames(1)).not.toContain('request_user_input');
    await outside.cleanup();
  });

  it('fails a run whose project folder is not there, naming the environment', async () => {
    const id = await addRemote('Nowhere', 'pipe');
    expect(await weft('automations', 'edit', id, '--project', '/no/such/folder')).toMatchObject({ code: 0 });
    expect(await weft('automations', 'run', id)).toMatchObject({ code: 1 });
    const [run] = JSON.parse((await weft('automations', 'runs', id, '--json')).stdout) as Run[];
    expect(run).toMatchObject({
      status: 'failed',
      environment: 'pipe',
      reason: `the project folder /no/such/folder does not exist on environment "pipe"; change \`project\` in ${join(local.dir, 'automations', `${id}.toml`)}`,
    });
    expect(server.requests).toHaveLength(0);
  });

  it('fails a run whose link is lost for good, saying the turn may go on there', async () => {
    const id = await addRemote('Cut off', 'blockable');
    const gate = createGate();
    server.enqueue({ kind: 'sse-slow', events: [evCreated(), gate, evAssistantMessage('too late'), evCompleted()] });
    const client = await connect({ WEFT_RELAY_MAX_DELAY_MS: '20' });
    const { runId } = await client.request<{ runId: string }>('weft/automations/runNow', { id });
    await server.waitForRequest(1);
    await writeFile(blockFile(), '');
    await cutPipe(client);
    const run = await runEnded(client, runId);
    gate.release();
    expect(run).toMatchObject({ runId, status: 'failed', environment: 'blockable' });
    expect(run.reason).toMatch(
      new RegExp(
        `^the link to environment "blockable" was lost during the run and did not come back \\(gave up reconnecting to "blockable" after 40 attempts: .*unreachable.*\\); the turn may have gone on in its thread ${run.threadId ?? 'none'} there$`,
      ),
    );
  });

  it('records the end the remote reached while the link was down, once it is back', async () => {
    const id = await addRemote('Comes back', 'blockable');
    const gate = createGate();
    server.enqueue({ kind: 'sse-slow', events: [evCreated(), gate, evAssistantMessage('done there'), evCompleted()] });
    const client = await connect({ WEFT_RELAY_MAX_DELAY_MS: '300' });
    const { runId } = await client.request<{ runId: string }>('weft/automations/runNow', { id });
    await server.waitForRequest(1);
    const [started] = JSON.parse((await weft('automations', 'runs', id, '--json')).stdout) as Run[];
    const threadId = started?.threadId ?? '';
    // A watcher on the remote itself sees the turn end while the link is down.
    const watcher = attachDirect(remote.dir);
    clients.push(watcher);
    await watcher.initialize();
    await watcher.request('thread/resume', { threadId });
    await writeFile(blockFile(), '');
    await cutPipe(client);
    gate.release();
    await watcher.notification('turn/completed', (p) => p['threadId'] === threadId);
    await rm(blockFile());
    const run = await runEnded(client, runId);
    expect(run).toMatchObject({
      runId,
      threadId,
      status: 'completed',
      environment: 'blockable',
      reason: null,
      finalMessage: 'done there',
    });
  });
});
