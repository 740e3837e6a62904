// The review inbox over the real `weft app-server` (its scheduler runs Run now), real git, the real sandbox
// and the mock model: a finished run is told to the clients (`weft/automations/runEnded`, with whether its
// `notify` setting asks to tell the person), listed unread with the commands it ran and its cost, read with
// its turn's diff, marked seen on the server; Keep follows a Handoff that brings the worktree's change to
// the local checkout; Discard removes the run's worktree, keeps its branch and archives its thread.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GIT_ENV } from '../support/git-repo';
import { StdioRpcClient } from '../support/rpc-client';
import { answer, command, gitIn, startWorktreeApp, type WorktreeApp } from '../support/worktree-app';

let app: WorktreeApp | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

interface Item {
  automationId: string;
  automationName: string;
  project: string;
  environment: string;
  run: Record<string, unknown> & { runId: string; threadId: string; worktree: string; turnId: string };
}

async function createAutomation(a: WorktreeApp, name: string): Promise<string> {
  const created = await a.ok<{ entry: { id: string } }>('weft/automations/create', {
    name,
    project: a.repo.dir,
    prompt: 'tidy a.txt',
    trigger: { type: 'manual' },
  });
  return created.entry.id;
}

/** Run now, followed to the run's end as the clients are told of it. */
async function runNow(a: WorktreeApp, id: string): Promise<{ automationRun: Item; notify: boolean }> {
  const from = a.client.received.length;
  const { runId } = await a.ok<{ runId: string }>('weft/automations/runNow', { id });
  const ended = await a.client.notification(
    'weft/automations/runEnded',
    (p) => (p['automationRun'] as Item).run.runId === runId,
    from,
  );
  return ended as unknown as { automationRun: Item; notify: boolean };
}

/** The tools the model was offered in its `n`th request (1-based). */
function toolNames(a: WorktreeApp, n: number): (string | undefined)[] {
  return ((a.server.requests[n - 1]?.body as { tools?: { name?: string }[] }).tools ?? []).map((t) => t.name);
}

describe('the automations review inbox', () => {
  it('a run’s thread resumed in another process still asks nobody; a person’s own turn may ask them', async () => {
    app = await startWorktreeApp({ 'a.txt': 'a one\n' });
    const a = app;
    const id = await createAutomation(a, 'Quiet');
    a.server.enqueueMany([answer('looked')]);
    const { run } = (await runNow(a, id)).automationRun;
    expect(toolNames(a, 1)).toContain('exec_command');
    expect(toolNames(a, 1)).not.toContain('request_user_input');
    // The host closes (the thread is unloaded); the settings file would now ask for everything.
    await a.client.close();
    const config = join(a.home.dir, 'config.toml');
    await writeFile(
      config,
      (await readFile(config, 'utf8')).replace('approval_policy = "never"', 'approval_policy = "untrusted"'),
    );
    const other = StdioRpcClient.start({ WEFT_HOME: a.home.dir, MOCK_API_KEY: 'x', ...GIT_ENV }, a.repo.dir);
    try {
      await other.initialize();
      const call = async <T>(method: string, params: unknown): Promise<T> => {
        const reply = await other.call(method, params);
        if (reply.error) throw new Error(`${method}: ${reply.error.code} ${reply.error.message}`);
        return reply.result as T;
      };
      const turn = async (params: Record<string, unknown>): Promise<void> => {
        const from = other.received.length;
        await call('turn/start', { threadId: run.threadId, ...params });
        await other.notification('turn/completed', (p) => p['threadId'] === run.threadId, from);
      };
      const resumed = await call<{ approvalPolicy: string }>('thread/resume', { threadId: run.threadId });
      expect(resumed.approvalPolicy).toBe('never');
      // A client that says nothing of who is there: the run's settings hold, nobody is asked.
      a.server.enqueueMany([answer('still quiet'), answer('asked you')]);
      await turn({ input: [{ type: 'text', text: 'go on' }] });
      expect(toolNames(a, 2)).toContain('exec_command');
      expect(toolNames(a, 2)).not.toContain('request_user_input');
      // A person continuing the run (the app says a person sent it): the model may ask them again.
      await turn({ input: [{ type: 'text', text: 'ask me if unsure' }], weftQuestions: true });
      expect(toolNames(a, 3)).toContain('request_user_input');
    } finally {
      await other.close();
    }
  });

  it('lists a finished run with its diff, marks it seen, and Keep hands its change to the local checkout', async () => {
    app = await startWorktreeApp({ 'a.txt': 'a one\n' });
    const { repo } = app;
    const id = await createAutomation(app, 'Tidy A');
    app.server.enqueueMany([
      command('c1', "sed -i 's/a one/a changed by the automation/' a.txt"),
      answer('a.txt tidied'),
    ]);
    const ended = await runNow(app, id);
    const run = ended.automationRun.run;
    const item = {
      automationId: 'tidy-a',
      automationName: 'Tidy A',
      project: repo.dir,
      environment: 'worktree',
      run: {
        runId: run.runId,
        trigger: 'manual',
        slot: null,
        startedAt: expect.any(Number) as unknown,
        endedAt: expect.any(Number) as unknown,
        status: 'completed',
        threadId: expect.any(String) as unknown,
        worktree: expect.any(String) as unknown,
        environment: null,
        reason: null,
        finalMessage: 'a.txt tidied',
        turnId: expect.any(String) as unknown,
        changedFiles: 1,
        cost: { usdMicros: 0, unpricedModels: [] },
        commands: [{ command: "sed -i 's/a one/a changed by the automation/' a.txt", exitCode: 0 }],
        seen: false,
        decision: null,
      },
    };
    expect(ended).toEqual({ automationRun: item, notify: true });
    expect(await readFile(`${run.worktree}/a.txt`, 'utf8')).toBe('a changed by the automation\n');

    expect(await app.ok('weft/automations/inbox/list', {})).toEqual({ items: [item], unseen: 1 });
    const read = await app.ok<{ diff: string }>('weft/automations/inbox/read', { id, runId: run.runId });
    expect(read).toEqual({
      item,
      turnId: run.turnId,
      diff: expect.stringContaining('--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a one\n+a changed by the automation\n'),
      diffCut: null,
    });

    const seen = { ...item, run: { ...item.run, seen: true } };
    expect(await app.ok('weft/automations/inbox/markSeen', { id, runId: run.runId })).toEqual({ item: seen });
    expect(await app.ok('weft/automations/inbox/list', {})).toEqual({ items: [seen], unseen: 0 });

    // Keep: the Handoff to the local checkout, then the decision recorded.
    const preview = await app.ok<{ fingerprint: string }>('weft/worktree/handoff/preview', {
      threadId: run.threadId,
      direction: 'toLocal',
    });
    await app.ok('weft/worktree/handoff', {
      threadId: run.threadId,
      direction: 'toLocal',
      fingerprint: preview.fingerprint,
      resolutions: [],
      move: false,
    });
    expect(await readFile(repo.path('a.txt'), 'utf8')).toBe('a changed by the automation\n');
    const kept = { ...seen, run: { ...seen.run, decision: 'kept' } };
    expect(await app.ok('weft/automations/inbox/keep', { id, runId: run.runId })).toEqual({ item: kept });
    expect(await app.ok('weft/automations/inbox/list', {})).toEqual({ items: [kept], unseen: 0 });
  });

  it('Discard removes the run’s worktree, keeps its branch and archives its thread; a run that changed nothing is not told', async () => {
    app = await startWorktreeApp({ 'a.txt': 'a one\n' });
    const { repo } = app;
    const id = await createAutomation(app, 'Quiet');
    app.server.enqueue(answer('nothing to do'));
    const ended = await runNow(app, id);
    const run = ended.automationRun.run;
    expect(ended).toMatchObject({ notify: false, automationRun: { run: { status: 'completed', changedFiles: 0 } } });
    expect(existsSync(run.worktree)).toBe(true);
    const branch = (await gitIn(run.worktree, 'rev-parse', '--abbrev-ref', 'HEAD')).trim();

    const discarded = await app.ok<{ item: Item; worktreeRemoved: boolean }>('weft/automations/inbox/discard', {
      id,
      runId: run.runId,
    });
    expect(discarded).toEqual({
      item: { ...ended.automationRun, run: { ...run, seen: true, decision: 'discarded' } },
      worktreeRemoved: true,
    });
    expect(existsSync(run.worktree)).toBe(false);
    expect((await repo.git('branch', '--list', branch)).trim()).toBe(branch);
    const archived = await app.ok<{ data: { id: string }[] }>('thread/list', { archived: true });
    expect(archived.data.map((t) => t.id)).toEqual([run.threadId]);
    // The project's own files are untouched.
    expect(await readFile(repo.path('a.txt'), 'utf8')).toBe('a one\n');
    // Keeping a discarded run is refused, with what happened.
    const keep = await app.client.call('weft/automations/inbox/keep', { id, runId: run.runId });
    expect(keep.error).toEqual({
      code: -32600,
      message: `run ${run.runId} of "${id}" was discarded (its worktree removed): there is nothing to keep`,
    });
  });
});
