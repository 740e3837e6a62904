import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServerRequest } from '../../src-preload/protocol';
import { RuleStore } from '../../src-main/safety/approvals/rules';
import { paramsOf, startAgent, type AgentHarness, type AgentOptions } from '../support/agent';
import {
  assertAllToolOutputsAnswered,
  startMockResponsesServer,
  type MockResponsesServer,
} from '../support/mock-responses-server';
import { evCompleted, evCreated, evFunctionCall, answerTurn } from '../support/sse';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';

// These run commands under the real OS sandbox (bubblewrap); `.ci/run` installs it.
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
  sandbox: 'read-only' | 'workspace-write' | 'danger-full-access',
  answers: (r: ServerRequest) => unknown,
  extra: Partial<AgentOptions> = {},
): AgentHarness {
  return startAgent({
    baseUrl: server.url,
    cwd: ws.dir,
    config: { approval_policy: policy, sandbox_mode: sandbox, sandbox_workspace_write: NO_TMP },
    sendRequest: async (r) => answers(r),
    rules: new RuleStore(rulesDir),
    ...extra,
  });
}

function outputOf(n: number, i = 0): string {
  return String(assertAllToolOutputsAnswered(server.requests[n - 1]?.body)[i]?.output);
}

const approvals = (a: AgentHarness) =>
  a.serverRequests.filter((r) => r.method === 'item/commandExecution/requestApproval');

describe('approvals and the sandbox through the agent loop', () => {
  it('on-request runs commands sandboxed without asking: workspace writes work, outside writes are denied and explained', async () => {
    server.enqueueMany([
      call('w', { cmd: 'echo in > inside.txt && echo ok' }),
      call('o', { cmd: `echo out > ${outside}/x.txt` }),
      answerTurn('done'),
    ]);
    agent = start('on-request', 'workspace-write', () => ({ decision: 'accept' }));
    await agent.runTurn('write');
    expect(await ws.read('inside.txt')).toBe('in\n');
    expect(existsSync(join(outside, 'x.txt'))).toBe(false);
    expect(outputOf(3, 0)).toContain('Process exited with code 0');
    expect(outputOf(3, 1)).toMatch(/Read-only file system|Permission denied/);
    expect(outputOf(3, 1)).toContain(
      `Note: this command ran in Weft's workspace-write sandbox: files may be written only under ${ws.dir}`,
    );
    expect(outputOf(3, 1)).toContain('sandbox_permissions: "require_escalated"');
    expect(agent.serverRequests).toEqual([]);
  });

  it('on-request asks when the model requests escalation; accept runs it outside the sandbox', async () => {
    server.enqueueMany([
      call('e', {
        cmd: `touch ${outside}/x.txt`,
        sandbox_permissions: 'require_escalated',
        justification: 'Write the report outside the repo?',
        prefix_rule: ['touch'],
      }),
      answerTurn('done'),
    ]);
    const statuses: unknown[] = [];
    agent = start('on-request', 'workspace-write', () => {
      statuses.push(agent?.session.status);
      return { decision: 'accept' };
    });
    const events = await agent.runTurn('escalate');
    expect(approvals(agent)).toEqual([
      {
        method: 'item/commandExecution/requestApproval',
        params: expect.objectContaining({
          reason: 'Write the report outside the repo?',
          command: `touch ${outside}/x.txt`,
          cwd: ws.dir,
          proposedExecpolicyAmendment: ['touch'],
        }),
      },
    ]);
    expect(statuses).toEqual([
      {
        type: 'active',
        activeFlags: ['waitingOnApproval'],
        weftStep: { type: 'command', command: `touch ${outside}/x.txt` },
      },
    ]);
    expect(existsSync(join(outside, 'x.txt'))).toBe(true);
    // The approval request names the item that is already started, and the item completes after it.
    const started = paramsOf(events, 'item/started').find((p) => p.item.type === 'commandExecution');
    expect(approvals(agent)[0]?.params).toMatchObject({ itemId: started?.item.id });
  });

  it('decline tells the model and marks the item declined; cancel interrupts the turn', async () => {
    server.enqueueMany([
      call('d', { cmd: 'touch x', sandbox_permissions: 'require_escalated', justification: 'ok?' }),
      answerTurn('fine'),
    ]);
    agent = start('on-request', 'workspace-write', () => ({ decision: 'decline' }));
    const events = await agent.runTurn('decline');
    expect(outputOf(2)).toBe('exec command rejected by user');
    expect(paramsOf(events, 'item/completed').find((p) => p.item.type === 'commandExecution')?.item).toMatchObject({
      status: 'declined',
    });
    expect(existsSync(ws.path('x'))).toBe(false);

    server.enqueueMany([call('c', { cmd: 'touch y', sandbox_permissions: 'require_escalated', justification: 'ok?' })]);
    const cancelled = start('on-request', 'workspace-write', () => ({ decision: 'cancel' }));
    const cancelEvents = await cancelled.runTurn('cancel');
    await cancelled.close();
    expect(paramsOf(cancelEvents, 'turn/completed')[0]?.turn.status).toBe('interrupted');
    expect(existsSync(ws.path('y'))).toBe(false);
  });

  it('acceptForSession is not asked again for the same command in the thread', async () => {
    const esc = {
      cmd: `echo hi >> ${outside}/log.txt`,
      sandbox_permissions: 'require_escalated',
      justification: 'append?',
    };
    server.enqueueMany([call('1', esc), call('2', esc), answerTurn('done')]);
    agent = start('on-request', 'workspace-write', () => ({ decision: 'acceptForSession' }));
    await agent.runTurn('twice');
    expect(approvals(agent)).toHaveLength(1);
    expect(await readFile(join(outside, 'log.txt'), 'utf8')).toBe('hi\nhi\n');
  });

  it('"always allow" remembers the prefix as a rule on disk', async () => {
    server.enqueueMany([
      call('1', {
        cmd: `touch ${outside}/a`,
        sandbox_permissions: 'require_escalated',
        justification: 'touch?',
        prefix_rule: ['touch'],
      }),
      answerTurn('done'),
    ]);
    agent = start('on-request', 'workspace-write', () => ({
      decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['touch'] } },
    }));
    await agent.runTurn('remember');
    const stored = new RuleStore(rulesDir);
    await stored.load();
    expect(stored.list().map((r) => [r.pattern, r.decision])).toEqual([[['touch'], 'allow']]);
    expect(existsSync(join(outside, 'a'))).toBe(true);
  });

  it('untrusted runs known-safe commands and asks for everything else', async () => {
    server.enqueueMany([
      call('1', { cmd: 'ls -la && git status' }),
      call('2', { cmd: 'touch made.txt' }),
      answerTurn('done'),
    ]);
    agent = start('untrusted', 'workspace-write', () => ({ decision: 'accept' }));
    await agent.runTurn('mixed');
    expect(approvals(agent).map((r) => r.params)).toEqual([
      expect.objectContaining({ command: 'touch made.txt', reason: expect.stringContaining('Ask unless read-only') }),
    ]);
    expect(existsSync(ws.path('made.txt'))).toBe(true);
  });

  it('on-failure offers to rerun a sandbox-denied command without the sandbox', async () => {
    server.enqueueMany([call('1', { cmd: `echo x > ${outside}/f.txt` }), answerTurn('done')]);
    agent = start('on-failure', 'workspace-write', () => ({ decision: 'accept' }));
    const events = await agent.runTurn('retry');
    expect(approvals(agent).map((r) => r.params.reason)).toEqual(['command failed; retry without sandbox?']);
    expect(await readFile(join(outside, 'f.txt'), 'utf8')).toBe('x\n');
    const item = paramsOf(events, 'item/completed').find((p) => p.item.type === 'commandExecution')?.item;
    expect(item).toMatchObject({ status: 'completed', exitCode: 0 });
  });

  it('never refuses dangerous commands under a restricted sandbox without asking, and runs them with full access', async () => {
    server.enqueueMany([call('1', { cmd: 'rm -rf a.txt' }), answerTurn('done')]);
    agent = start('never', 'workspace-write', () => ({ decision: 'accept' }));
    await agent.runTurn('danger');
    expect(outputOf(2)).toMatch(/^exec command rejected: dangerous command: .*approvals are set to "Never ask"/);
    expect(agent.serverRequests).toEqual([]);
    expect(existsSync(ws.path('a.txt'))).toBe(true);
    await agent.close();

    server.enqueueMany([call('2', { cmd: 'rm -rf a.txt' }), answerTurn('done')]);
    agent = start('never', 'danger-full-access', () => ({ decision: 'accept' }));
    await agent.runTurn('danger');
    expect(existsSync(ws.path('a.txt'))).toBe(false);
  });

  it('a forbidden rule is never overridden', async () => {
    const rules = new RuleStore(rulesDir);
    await rules.add({ pattern: ['git', 'push'], decision: 'forbidden', justification: 'never push from the agent' });
    server.enqueueMany([call('1', { cmd: 'git push origin main' }), answerTurn('done')]);
    agent = start('never', 'danger-full-access', () => ({ decision: 'accept' }), { rules });
    await agent.runTurn('push');
    expect(outputOf(2)).toMatch(/^exec command rejected: `git push` is forbidden by rule .*never push from the agent/);
  });

  it('an interrupt while waiting on an approval resolves it and ends the turn', async () => {
    server.enqueueMany([call('1', { cmd: 'touch z', sandbox_permissions: 'require_escalated', justification: 'ok?' })]);
    let signalSeen: AbortSignal | null = null;
    agent = start('on-request', 'workspace-write', () => null, {
      sendRequest: (_r, signal) => {
        signalSeen = signal;
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ decision: 'cancel' })));
      },
    });
    const waiting = agent.next(
      'thread/status/changed',
      (n) => n.params.status.type === 'active' && n.params.status.activeFlags.includes('waitingOnApproval'),
    );
    const completed = agent.next('turn/completed');
    await agent.session.startTurn([{ type: 'text', text: 'wait' }]);
    await waiting;
    await agent.session.interrupt();
    expect((await completed).params.turn.status).toBe('interrupted');
    expect((signalSeen as AbortSignal | null)?.aborted).toBe(true);
    expect(existsSync(ws.path('z'))).toBe(false);
  });
});
