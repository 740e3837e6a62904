// Containment through the agent loop: what the model names (a workdir, a patch path) never widens what
// the sandbox lets it write. These run commands under the real OS sandbox (bubblewrap).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServerRequest } from '../../src-preload/protocol';
import { RuleStore } from '../../src-main/safety/approvals/rules';
import { probeBwrap } from '../../src-main/safety/sandbox/linux-bwrap';
import { paramsOf, startAgent, type AgentHarness, type AgentOptions } from '../support/agent';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';

const probe = process.platform === 'linux' ? await probeBwrap() : { ok: false as const, reason: 'not Linux' };

let server: MockResponsesServer;
let ws: TempWorkspace;
/** A folder outside the workspace and outside /tmp, so no writable root covers it. */
let outside: string;
let rulesDir: string;
let agent: AgentHarness | undefined;

const NO_TMP = { exclude_slash_tmp: true, exclude_tmpdir_env_var: true };

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'a.txt': 'a\n' });
  outside = await mkdtemp(join(homedir(), '.weft-test-outside-'));
  rulesDir = await mkdtemp(join(homedir(), '.weft-test-rules-'));
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server.close();
  await ws.cleanup();
  await rm(outside, { recursive: true, force: true });
  await rm(rulesDir, { recursive: true, force: true });
});

const call = (id: string, args: object) => ({
  kind: 'sse' as const,
  events: [evCreated(), evFunctionCall(id, 'exec_command', args), evCompleted()],
});

function start(
  policy: 'untrusted' | 'on-failure' | 'on-request' | 'never',
  answers: (r: ServerRequest) => unknown,
  extra: Partial<AgentOptions> = {},
): AgentHarness {
  return startAgent({
    baseUrl: server.url,
    cwd: ws.dir,
    config: { approval_policy: policy, sandbox_mode: 'workspace-write', sandbox_workspace_write: NO_TMP },
    sendRequest: async (r) => answers(r),
    rules: new RuleStore(rulesDir),
    ...extra,
  });
}

function outputOf(n: number, i = 0): string {
  return String(assertAllToolOutputsAnswered(server.requests[n - 1]?.body)[i]?.output);
}

describe.skipIf(!probe.ok)('the model cannot choose what the sandbox lets it write', () => {
  for (const policy of ['never', 'on-request'] as const) {
    it(`a workdir outside the writable roots runs read-only (${policy})`, async () => {
      server.enqueueMany([
        call('o', { cmd: 'touch x && echo wrote', workdir: outside }),
        call('r', { cmd: 'cat victim.txt', workdir: outside }),
        answerTurn('done'),
      ]);
      await writeFile(join(outside, 'victim.txt'), 'original\n');
      agent = start(policy, () => ({ decision: 'accept' }));
      const events = await agent.runTurn('write outside');
      expect(existsSync(join(outside, 'x'))).toBe(false);
      // Weft never creates anything (such as a protective `.weft`) in a folder the model names.
      expect((await readdir(outside)).sort()).toEqual(['victim.txt']);
      expect(outputOf(3, 0)).toMatch(/Read-only file system|Permission denied/);
      expect(outputOf(3, 0)).toContain(
        `the workdir ${outside} is outside the writable folders, so the command ran read-only there`,
      );
      // Reading there still works.
      expect(outputOf(3, 1)).toContain('original');
      expect(agent.serverRequests).toEqual([]);
      const started = paramsOf(events, 'item/started').filter((p) => p.item.type === 'commandExecution');
      expect(started.map((p) => (p.item.type === 'commandExecution' ? p.item.cwd : null))).toEqual([outside, outside]);
    });
  }

  it('a workdir inside the workspace stays writable, and relative workdirs resolve against the thread cwd', async () => {
    await mkdir(ws.path('sub'));
    server.enqueueMany([call('i', { cmd: 'touch made', workdir: 'sub' }), answerTurn('done')]);
    agent = start('never', () => ({ decision: 'accept' }));
    await agent.runTurn('write inside');
    expect(existsSync(ws.path('sub/made'))).toBe(true);
    expect(outputOf(2)).toContain('Process exited with code 0');
  });

  it('workdirs such as /, .git and ../ cannot widen the writable roots', async () => {
    await mkdir(ws.path('.git'));
    server.enqueueMany([
      call('1', { cmd: 'touch hooks-planted', workdir: '.git' }),
      call('2', { cmd: `touch ${outside}/escaped`, workdir: '/' }),
      call('3', { cmd: `touch ${outside.split('/').pop() ?? ''}/escaped2`, workdir: '..' }),
      answerTurn('done'),
    ]);
    agent = start('never', () => ({ decision: 'accept' }));
    await agent.runTurn('escape');
    expect(existsSync(ws.path('.git/hooks-planted'))).toBe(false);
    expect(await readdir(outside)).toEqual([]);
  });

  it('an apply_patch heredoc with an outside workdir is judged against the thread cwd, not the workdir', async () => {
    const patch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: planted.txt\n+x\n*** End Patch\nEOF";
    server.enqueueMany([call('p', { cmd: patch, workdir: outside }), answerTurn('done')]);
    agent = start('never', () => ({ decision: 'accept' }));
    await agent.runTurn('patch outside');
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
    expect(outputOf(2)).toContain('approvals are set to "Never ask"');
  });
});

describe('approval answers and honest outcomes', () => {
  const escalate = (id: string, cmd: string) =>
    call(id, {
      cmd,
      login: false,
      sandbox_permissions: 'require_escalated',
      justification: 'ok?',
      prefix_rule: ['touch'],
    });
  const commandItems = (events: Awaited<ReturnType<AgentHarness['runTurn']>>) =>
    paramsOf(events, 'item/completed').flatMap((p) => (p.item.type === 'commandExecution' ? [p.item] : []));

  it('offers availableDecisions; the run time excludes the wait for approval', async () => {
    const HUMAN_MS = 3000;
    server.enqueueMany([escalate('1', 'touch made'), answerTurn('done')]);
    agent = start(
      'on-request',
      () => new Promise((resolve) => setTimeout(() => resolve({ decision: 'accept' }), HUMAN_MS)),
    );
    const events = await agent.runTurn('run');
    expect(agent.serverRequests[0]?.params).toMatchObject({
      availableDecisions: [
        'accept',
        'acceptForSession',
        { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['touch'] } },
        'decline',
        'cancel',
      ],
    });
    const [item] = commandItems(events);
    expect(item).toMatchObject({ status: 'completed', exitCode: 0, weftOutcome: 'exited' });
    expect(item?.durationMs).toBeLessThan(HUMAN_MS);
    const wall = Number(/Wall time: ([\d.]+) seconds/.exec(outputOf(2))?.[1]);
    expect(wall).toBeLessThan(HUMAN_MS / 1000);
    expect(existsSync(ws.path('made'))).toBe(true);
  });

  it("a patch's duration and wall time exclude the wait for its review", async () => {
    const HUMAN_MS = 1500;
    server.enqueueMany([
      {
        kind: 'sse' as const,
        events: [
          evCreated(),
          evFunctionCall('1', 'apply_patch', {
            input: '*** Begin Patch\n*** Add File: reviewed.txt\n+r\n*** End Patch',
          }),
          evCompleted(),
        ],
      },
      answerTurn('done'),
    ]);
    agent = start(
      'untrusted',
      () => new Promise((resolve) => setTimeout(() => resolve({ decision: 'accept' }), HUMAN_MS)),
      { model: 'gpt-oss-mock' },
    );
    const events = await agent.runTurn('patch');
    expect(agent.serverRequests.map((r) => r.method)).toEqual(['item/fileChange/requestApproval']);
    const [patch] = paramsOf(events, 'item/completed').flatMap((p) => (p.item.type === 'fileChange' ? [p.item] : []));
    expect(patch).toMatchObject({ status: 'completed', weftOutcome: 'applied' });
    expect(patch?.weftDurationMs).toBeLessThan(HUMAN_MS);
    const wall = Number(/Wall time: ([\d.]+) seconds/.exec(outputOf(2))?.[1]);
    expect(wall).toBeLessThan(HUMAN_MS / 1000);
    expect(await ws.read('reviewed.txt')).toBe('r\n');
  });

  it('a malformed answer is an error, never a decline or an accept', async () => {
    server.enqueueMany([escalate('1', 'touch never'), answerTurn('done')]);
    agent = start('on-request', () => ({ decision: 'yes please' }));
    const events = await agent.runTurn('run');
    expect(existsSync(ws.path('never'))).toBe(false);
    expect(outputOf(2)).toMatch(
      /^execution error: the answer to item\/commandExecution\/requestApproval is not a valid decision \(result\.decision: .*\), so nothing was run or written$/,
    );
    expect(commandItems(events)[0]).toMatchObject({
      status: 'failed',
      weftOutcome: 'error',
      weftError: expect.stringContaining('not a valid decision'),
    });
  });

  it('declined, cancelled and could-not-run commands say so', async () => {
    server.enqueueMany([
      escalate('1', 'touch a'),
      call('2', { cmd: 'true', workdir: join(ws.dir, 'missing') }),
      answerTurn('done'),
    ]);
    agent = start('on-request', () => ({ decision: 'decline' }));
    const items = commandItems(await agent.runTurn('run'));
    expect(items.map((i) => [i.status, i.weftOutcome])).toEqual([
      ['declined', 'declined'],
      ['failed', 'error'],
    ]);
    expect(items[1]?.weftError).toContain('does not exist');
    await agent.close();

    server.enqueueMany([escalate('3', 'touch b')]);
    agent = start('on-request', () => ({ decision: 'cancel' }));
    const cancelled = await agent.runTurn('run');
    expect(commandItems(cancelled).map((i) => [i.status, i.weftOutcome])).toEqual([['declined', 'cancelled']]);
    expect(paramsOf(cancelled, 'turn/completed')[0]?.turn.status).toBe('interrupted');
  });

  it('accepts applyNetworkPolicyAmendment: allow runs the command, deny declines it', async () => {
    const network = (action: 'allow' | 'deny') => ({
      decision: { applyNetworkPolicyAmendment: { network_policy_amendment: { host: 'example.com', action } } },
    });
    server.enqueueMany([escalate('1', 'touch allowed'), answerTurn('done')]);
    agent = start('on-request', () => network('allow'));
    await agent.runTurn('run');
    expect(existsSync(ws.path('allowed'))).toBe(true);
    await agent.close();
    server.enqueueMany([escalate('2', 'touch denied'), answerTurn('done')]);
    agent = start('on-request', () => network('deny'));
    await agent.runTurn('run');
    expect(existsSync(ws.path('denied'))).toBe(false);
    expect(outputOf(4)).toBe('exec command rejected by user');
  });

  it('patches say whether they were applied or declined, and how long the writing took', async () => {
    const patchCall = (id: string, input: string) => ({
      kind: 'sse' as const,
      events: [evCreated(), evFunctionCall(id, 'apply_patch', { input }), evCompleted()],
    });
    server.enqueueMany([
      patchCall('1', '*** Begin Patch\n*** Add File: p.txt\n+p\n*** End Patch'),
      patchCall('2', `*** Begin Patch\n*** Add File: ${outside}/q.txt\n+q\n*** End Patch`),
      answerTurn('done'),
    ]);
    agent = start('on-request', () => ({ decision: 'decline' }), { model: 'gpt-oss-mock' });
    const events = await agent.runTurn('patch');
    const patches = paramsOf(events, 'item/completed').flatMap((p) => (p.item.type === 'fileChange' ? [p.item] : []));
    expect(patches.map((p) => [p.status, p.weftOutcome])).toEqual([
      ['completed', 'applied'],
      ['declined', 'declined'],
    ]);
    expect(patches[0]?.weftDurationMs).toBeGreaterThanOrEqual(0);
    expect(await ws.read('p.txt')).toBe('p\n');
  });
});
