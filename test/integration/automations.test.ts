// Automations through the real `weft` binary, real git and the mock model: `weft automations add` writes
// the file (a bad cron line is refused naming the field), `due` runs what is owed once in a worktree
// thread of its own where the model's patch lands (the project untouched), a second `due` and one
// started while a run is under way start nothing, a failing run keeps its reason, and install-timer
// writes the systemd units into the folder it is given.
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { owedDailySchedule } from '../support/test-schedules';
import { makeGitRepo, type GitRepo } from '../support/git-repo';
import { createGate, startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { StdioRpcClient } from '../support/rpc-client';
import { runWeftCli, type WeftRun } from '../support/weft-cli';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let repo: GitRepo;
let home: WeftHome;

const modelConfig = (): string =>
  `model = "mock-model"\nmodel_provider = "mock"\nsandbox_mode = "workspace-write"\n[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`;

beforeEach(async () => {
  server = await startMockResponsesServer();
  repo = await makeGitRepo({ 'a.txt': 'a one\n' });
  home = await makeWeftHome(modelConfig());
});

afterEach(async () => {
  await server.close();
  await repo.cleanup();
  await home.cleanup();
});

const weft = (...args: string[]): Promise<WeftRun> => runWeftCli(args, { cwd: repo.dir, weftHome: home.dir });

const PATCH = '*** Begin Patch\n*** Update File: a.txt\n@@\n-a one\n+a changed by the automation\n*** End Patch';

/** Adds a daily automation whose time came an hour ago and comes again in 23 hours: one run is owed now. */
async function addOwed(name: string): Promise<string> {
  const owed = owedDailySchedule();
  const added = await weft(
    'automations',
    'add',
    '--name',
    name,
    '--project',
    repo.dir,
    '--schedule',
    owed.cron,
    '--timezone',
    'UTC',
    '--prompt',
    'change a.txt',
  );
  expect(added).toEqual({ code: 0, stdout: expect.stringMatching(/^Added [a-z-]+: /) as unknown, stderr: '' });
  const id = /^Added ([a-z-]+):/.exec(added.stdout)?.[1] ?? '';
  const file = join(home.dir, 'automations', `${id}.toml`);
  const text = await readFile(file, 'utf8');
  await writeFile(file, text.replace(/^created_at = .*$/m, `created_at = "${owed.createdAt}"`));
  return id;
}

interface Run {
  status: string;
  threadId: string | null;
  worktree: string | null;
  reason: string | null;
  finalMessage: string | null;
  trigger: string;
}

async function runsOf(id: string): Promise<Run[]> {
  const out = await weft('automations', 'runs', id, '--json');
  expect(out.code).toBe(0);
  return JSON.parse(out.stdout) as Run[];
}

describe('weft automations', () => {
  it('refuses a cron line it cannot read, naming the field and why', async () => {
    const bad = await weft(
      'automations',
      'add',
      '--name',
      'Bad',
      '--project',
      repo.dir,
      '--schedule',
      '61 * * * *',
      '--prompt',
      'x',
    );
    expect(bad).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'weft automations add: trigger.cron: cron "61 * * * *" is not a schedule: Invalid value for minute: 61 (five fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5")\n',
    });
  });

  it('runs what is due once, in a worktree thread where the model patch lands; a second due runs nothing', async () => {
    const id = await addOwed('Fix A');
    server.enqueueMany([
      { kind: 'sse', events: [evCreated(), evFunctionCall('p1', 'apply_patch', { input: PATCH }), evCompleted()] },
      { kind: 'sse', events: [evCreated('r2'), evAssistantMessage('a.txt changed'), evCompleted('r2')] },
    ]);
    expect(await weft('automations', 'due')).toMatchObject({ code: 0, stdout: `${id}: completed\n` });
    expect(await weft('automations', 'due')).toMatchObject({ code: 0, stdout: '' });
    expect(server.requests).toHaveLength(2);
    // Nobody is there to answer: the model is given no tool to ask a question.
    const tools = ((server.requests[0]?.body as { tools?: { name?: string }[] }).tools ?? []).map((t) => t.name);
    expect(tools).toContain('apply_patch');
    expect(tools).not.toContain('request_user_input');

    const [run, ...more] = await runsOf(id);
    expect(more).toEqual([]);
    expect(run).toMatchObject({
      status: 'completed',
      trigger: 'schedule',
      reason: null,
      finalMessage: 'a.txt changed',
    });
    const worktree = run?.worktree ?? '';
    expect(worktree.startsWith(join(home.dir, 'worktrees'))).toBe(true);
    expect(await readFile(join(worktree, 'a.txt'), 'utf8')).toBe('a changed by the automation\n');
    expect(await readFile(repo.path('a.txt'), 'utf8')).toBe('a one\n');
    const thread = await weft('threads', 'read', run?.threadId ?? '', '--json');
    const read = JSON.parse(thread.stdout) as {
      thread: { cwd: string; weftWorktree?: { path: string; projectRoot: string } };
    };
    expect(read.thread.weftWorktree).toMatchObject({ path: worktree, projectRoot: repo.dir });
    expect(read.thread.cwd).toBe(worktree);
  });

  it('starts nothing from a second due, nor a Run now, while a run of the same automation is under way', async () => {
    const id = await addOwed('Slow');
    const gate = createGate();
    server.enqueue({ kind: 'sse-slow', events: [evCreated(), gate, evAssistantMessage('done'), evCompleted()] });
    const first = weft('automations', 'due');
    await server.waitForRequest(1);
    // Its time is taken by the run under way: nothing is owed, nothing starts.
    expect(await weft('automations', 'due')).toMatchObject({ code: 0, stdout: '' });
    // Run now is refused by the lock the run under way holds, in another process.
    expect(await weft('automations', 'run', id)).toMatchObject({
      code: 1,
      stdout: `${id}: not started, a run of it is under way\n`,
    });
    gate.release();
    expect(await first).toMatchObject({ code: 0, stdout: `${id}: completed\n` });
    expect((await runsOf(id)).map((r) => r.status)).toEqual(['completed']);
  });

  it('records why a run failed', async () => {
    const id = await addOwed('Broken model');
    server.enqueue({
      kind: 'http-error',
      status: 400,
      body: { error: { message: 'the model is not there', type: 'invalid_request_error' } },
    });
    const ran = await weft('automations', 'run', id);
    expect(ran.code).toBe(1);
    const [run] = await runsOf(id);
    expect(run).toMatchObject({ status: 'failed', trigger: 'manual' });
    expect(run?.reason).toContain('the model is not there');
  });

  it('install-timer writes the systemd user service and timer into the folder given, without enabling them', async () => {
    const dir: TempWorkspace = await makeTempWorkspace();
    try {
      const out = await weft('automations', 'install-timer', '--dir', dir.dir);
      expect(out.code).toBe(0);
      expect(out.stdout).toContain('systemctl --user enable --now weft-automations.timer');
      const service = await readFile(join(dir.dir, 'weft-automations.service'), 'utf8');
      expect(service).toContain(`Environment=WEFT_HOME=${home.dir}\n`);
      expect(service).toContain(
        `ExecStart=${process.execPath} ${resolve(__dirname, '../../bin/weft.js')} automations due\n`,
      );
      expect(await readFile(join(dir.dir, 'weft-automations.timer'), 'utf8')).toContain(
        'OnCalendar=minutely\nPersistent=true\n',
      );
    } finally {
      await dir.cleanup();
    }
  });

  it('runs what is owed from inside weft app-server, as a thread its clients are told about', async () => {
    const id = await addOwed('In the host');
    const gate = createGate();
    server.enqueue({
      kind: 'sse-slow',
      events: [evCreated(), gate, evAssistantMessage('nothing to do'), evCompleted()],
    });
    const client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, repo.dir);
    try {
      await client.initialize();
      // A client is told of every thread's status once it has asked the host about threads.
      await client.call('thread/list', {});
      await server.waitForRequest(1);
      const from = client.received.length;
      gate.release();
      await client.notification(
        'thread/status/changed',
        (p) => (p['status'] as { type: string }).type === 'idle',
        from,
      );
    } finally {
      // Closing the host waits for the run's end to be recorded.
      await client.close();
    }
    expect(await runsOf(id)).toEqual([
      expect.objectContaining({ status: 'completed', trigger: 'schedule', finalMessage: 'nothing to do' }),
    ]);
  });

  it('weft/automations/*: create (a bad cron refused naming the field), update, list, Run now and its runs', async () => {
    const ids = { runId: '', threadId: '' };
    const client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, repo.dir);
    try {
      await client.initialize();
      const settings = { name: 'Nightly', project: repo.dir, prompt: 'say hi', environment: 'local' };
      const bad = await client.call('weft/automations/create', {
        ...settings,
        trigger: { type: 'schedule', cron: '0 25 * * *', timezone: 'UTC' },
      });
      expect(bad.error).toEqual({
        code: -32602,
        message: `${join(home.dir, 'automations', 'nightly.toml')}: trigger.cron: cron "0 25 * * *" is not a schedule: Invalid value for hour: 25 (five fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5")`,
      });
      const created = await client.call('weft/automations/create', {
        ...settings,
        trigger: { type: 'schedule', cron: '0 3 * * *', timezone: 'UTC' },
      });
      expect(created.error).toBeUndefined();
      const updated = await client.call('weft/automations/update', {
        id: 'nightly',
        changes: { enabled: false, trigger: { type: 'manual' } },
      });
      const automation = {
        id: 'nightly',
        file: join(home.dir, 'automations', 'nightly.toml'),
        name: 'Nightly',
        project: repo.dir,
        prompt: 'say hi',
        enabled: false,
        environment: 'local',
        remote: null,
        model: null,
        effort: null,
        sandbox: 'workspace-write',
        notify: 'changes',
        trigger: { type: 'manual' },
      };
      const entry = { id: 'nightly', file: automation.file, automation, problem: null, nextRunAt: null, lastRun: null };
      expect(updated.result).toEqual({ entry });
      expect((await client.call('weft/automations/list', {})).result).toEqual({ data: [entry] });

      await client.call('thread/list', {});
      server.enqueue({ kind: 'sse', events: [evCreated(), evAssistantMessage('hi'), evCompleted()] });
      const from = client.received.length;
      const ran = await client.call('weft/automations/runNow', { id: 'nightly' });
      ids.runId = (ran.result as { runId: string }).runId;
      const started = await client.notification('thread/started', () => true, from);
      ids.threadId = (started['thread'] as { id: string }).id;
      await client.notification(
        'thread/status/changed',
        (p) => p['threadId'] === ids.threadId && (p['status'] as { type: string }).type === 'idle',
        from,
      );
    } finally {
      // Closing the host waits for the run's end to be recorded.
      await client.close();
    }
    const again = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, repo.dir);
    try {
      await again.initialize();
      expect((await again.call('weft/automations/runs', { id: 'nightly' })).result).toEqual({
        runs: [
          {
            runId: ids.runId,
            trigger: 'manual',
            slot: null,
            startedAt: expect.any(Number) as unknown,
            endedAt: expect.any(Number) as unknown,
            status: 'completed',
            threadId: ids.threadId,
            worktree: null,
            environment: null,
            reason: null,
            finalMessage: 'hi',
            turnId: expect.any(String) as unknown,
            changedFiles: 0,
            cost: { usdMicros: 0, unpricedModels: [] },
            commands: [],
            seen: false,
            decision: null,
          },
        ],
      });
      expect((await again.call('weft/automations/remove', { id: 'nightly' })).result).toEqual({});
      expect((await again.call('weft/automations/list', {})).result).toEqual({ data: [] });
    } finally {
      await again.close();
    }
  });
});
