// Sub-agents in `weft exec` (the real binary, the model scripted): a spawned child runs its turn in the
// same process and its answer returns through wait_agent; a child still running when the parent's turn
// ends is interrupted before the run exits, and both threads are saved, the child as the parent's.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callOutputs, scriptAgents, threadOf } from '../support/agents-model';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { evCreated } from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const WEFT = resolve(__dirname, '../../bin/weft.js');

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'alpha\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
});

afterEach(async () => {
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

function exec(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [WEFT, 'exec', ...args], {
      cwd: ws.dir,
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], WEFT_HOME: home.dir, MOCK_API_KEY: 'x' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end();
  });
}

type Json = Record<string, unknown>;

/** Each saved rollout's session_meta and its event types. */
function rollouts(): { meta: Json; events: string[] }[] {
  const files = readdirSync(join(home.dir, 'sessions'), { recursive: true, withFileTypes: true }).filter(
    (e) => e.isFile() && e.name.endsWith('.jsonl'),
  );
  return files.map((f) => {
    const lines = readFileSync(join(f.parentPath, f.name), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; payload: Json });
    return {
      meta: lines[0]?.payload ?? {},
      events: lines.filter((l) => l.type === 'event_msg').map((l) => String(l.payload['type'])),
    };
  });
}

const spawnCall = () => ({ calls: [{ id: 'call_spawn', name: 'spawn_agent', args: { message: 'list the notes' } }] });

describe('weft exec with sub-agents', () => {
  it("runs the child's turn and returns its answer through wait_agent", async () => {
    const model = scriptAgents(server, {
      parent: [
        spawnCall,
        (ctx) => ({ calls: [{ id: 'call_wait', name: 'wait_agent', args: { targets: ctx.agents } }] }),
        () => ({ answer: 'The child listed them.' }),
      ],
      usage: { input_tokens: 10, output_tokens: 1 },
    });
    const run = await exec(['--json', 'delegate the listing']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { method: string; params: Json });
    const parent = model.parentId();
    const childTurn = lines.find((l) => l.method === 'turn/completed' && l.params['threadId'] !== parent);
    const childId = String(childTurn?.params['threadId']);
    expect((childTurn?.params['turn'] as Json)['status']).toBe('completed');
    const last = server.requests.filter((r) => threadOf(r) === parent).at(-1);
    if (last === undefined) throw new Error('the parent made no request');
    expect(callOutputs(last).map((o) => JSON.parse(o.output) as unknown)).toEqual([
      { agent_id: childId, nickname: expect.any(String) },
      { status: { [childId]: { completed: 'ACK: list the notes' } }, timed_out: false },
    ]);
    // The parent's total holds the child's request too.
    const totals = lines
      .filter((l) => l.method === 'thread/tokenUsage/updated' && l.params['threadId'] === parent)
      .map((l) => (l.params['tokenUsage'] as { total: { totalTokens: number } }).total.totalTokens);
    expect(totals.at(-1)).toBe(4 * 11);
    const saved = rollouts();
    expect(saved.map((r) => r.meta['id']).sort()).toEqual([parent, childId].sort());
    const child = saved.find((r) => r.meta['id'] === childId);
    expect(child?.meta).toMatchObject({ parent_thread_id: parent, session_id: parent, source: { subagent: {} } });
  });

  it('interrupts a child still running when the parent is done, before it exits', async () => {
    scriptAgents(server, {
      parent: [spawnCall, () => ({ answer: 'I will not wait.' })],
      // The child's model never finishes.
      child: () => ({ kind: 'sse-hang', events: [evCreated('resp_child')] }),
    });
    const run = await exec(['delegate and go']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('I will not wait.\n');
    expect(run.stderr).toContain('⇄ spawn_agent');
    const child = rollouts().find((r) => r.meta['parent_thread_id'] !== undefined);
    // The child's turn began and was ended as interrupted, on disk.
    expect(child?.events.filter((e) => e === 'task_started' || e === 'turn_aborted')).toEqual([
      'task_started',
      'turn_aborted',
    ]);
  });
});
