// Automations across processes on one WEFT_HOME, through the real `weft` binary and the mock model: a run
// made by `weft automations due` (as a timer starts it) is told to a connected `weft app-server` client
// without it asking, and of two hosts open on one WEFT_HOME only one runs an owed automation, while both
// tell their clients of its end.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireSchedulerLock, type RunLock } from '../../src-main/automations/lock';
import { owedDailySchedule } from '../support/test-schedules';
import { makeGitRepo, type GitRepo } from '../support/git-repo';
import { createGate, startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { evAssistantMessage, evCompleted, evCreated } from '../support/sse';
import { runWeftCli, type WeftRun } from '../support/weft-cli';
import { makeWeftHome, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let repo: GitRepo;
let home: WeftHome;
const clients: StdioRpcClient[] = [];
let held: RunLock | null = null;

const modelConfig = (): string =>
  `model = "mock-model"\nmodel_provider = "mock"\nsandbox_mode = "workspace-write"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`;

beforeEach(async () => {
  server = await startMockResponsesServer();
  repo = await makeGitRepo({ 'a.txt': 'a one\n' });
  home = await makeWeftHome(modelConfig());
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await held?.release();
  held = null;
  await server.close();
  await repo.cleanup();
  await home.cleanup();
});

const weft = (...args: string[]): Promise<WeftRun> => runWeftCli(args, { cwd: repo.dir, weftHome: home.dir });

/** A local daily automation whose time came an hour ago and comes again in 23 hours: one run is owed now. */
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
    '--local',
    '--prompt',
    'say hi',
  );
  expect(added).toEqual({ code: 0, stdout: expect.stringMatching(/^Added [a-z-]+: /) as unknown, stderr: '' });
  const id = /^Added ([a-z-]+):/.exec(added.stdout)?.[1] ?? '';
  const file = join(home.dir, 'automations', `${id}.toml`);
  const text = await readFile(file, 'utf8');
  await writeFile(file, text.replace(/^created_at = .*$/m, `created_at = "${owed.createdAt}"`));
  return id;
}

async function connect(): Promise<StdioRpcClient> {
  const client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, repo.dir);
  clients.push(client);
  await client.initialize();
  // As the app does at start: a client that lists the automations is told of their runs.
  expect((await client.call('weft/automations/list', {})).error).toBeUndefined();
  return client;
}

interface Ended {
  automationRun: { automationId: string; automationName: string; run: { runId: string; status: string } };
  notify: boolean;
}

const endedOf = (client: StdioRpcClient, id: string, from = 0): Promise<Ended> =>
  client.notification(
    'weft/automations/runEnded',
    (p) => (p['automationRun'] as Ended['automationRun']).automationId === id,
    from,
  ) as unknown as Promise<Ended>;

async function runsOf(id: string): Promise<{ runId: string; status: string; trigger: string }[]> {
  const out = await weft('automations', 'runs', id, '--json');
  expect(out.code).toBe(0);
  return JSON.parse(out.stdout) as { runId: string; status: string; trigger: string }[];
}

describe('automations across processes', () => {
  it('tells a connected app-server client of a run that `weft automations due` made in another process', async () => {
    const id = await addOwed('From the timer');
    // Another process holds the scheduler: the app-server only watches.
    held = await acquireSchedulerLock(home.dir);
    expect(held).not.toBeNull();
    const client = await connect();
    const from = client.received.length;
    server.enqueue({ kind: 'sse', events: [evCreated(), evAssistantMessage('hi from the timer'), evCompleted()] });
    expect(await weft('automations', 'due')).toMatchObject({ code: 0, stdout: `${id}: completed\n` });
    const [run, ...more] = await runsOf(id);
    expect(more).toEqual([]);
    const ended = await endedOf(client, id, from);
    expect(ended).toEqual({
      automationRun: expect.objectContaining({
        automationId: id,
        automationName: 'From the timer',
        run: expect.objectContaining({
          runId: run?.runId,
          status: 'completed',
          trigger: 'schedule',
          finalMessage: 'hi from the timer',
        }) as unknown,
      }) as unknown,
      // Nothing changed: the `changes` default does not ask to tell the person, the inbox has it.
      notify: false,
    });
    // Told once: the list the client reads agrees, and no second notification of it came.
    const inbox = (await client.call('weft/automations/inbox/list', {})).result as { unseen: number };
    expect(inbox.unseen).toBe(1);
    const told = client.received.filter(
      (m) =>
        m.method === 'weft/automations/runEnded' &&
        (m.params as Ended | undefined)?.automationRun.run.runId === run?.runId,
    );
    expect(told).toHaveLength(1);
  });

  it('of two hosts on one WEFT_HOME, one runs an owed automation once, and both tell their clients', async () => {
    const id = await addOwed('Owed twice over');
    // The run waits for the gate, so both clients are listening before it ends.
    const gate = createGate();
    server.enqueue({ kind: 'sse-slow', events: [evCreated(), gate, evAssistantMessage('ran once'), evCompleted()] });
    const first = await connect();
    const second = await connect();
    await server.waitForRequest(1);
    gate.release();
    const [a, b] = await Promise.all([endedOf(first, id), endedOf(second, id)]);
    expect(a).toEqual(b);
    expect(a.automationRun.run.status).toBe('completed');
    // Both hosts keep looking (at least once a minute); neither starts a second run of the slot.
    await weft('automations', 'due');
    expect(server.requests).toHaveLength(1);
    expect((await runsOf(id)).map((r) => ({ runId: r.runId, status: r.status, trigger: r.trigger }))).toEqual([
      { runId: a.automationRun.run.runId, status: 'completed', trigger: 'schedule' },
    ]);
  });
});
