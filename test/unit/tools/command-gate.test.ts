// The command gate (tools/command-run.ts through the orchestrator's safety services): which commands run,
// in which sandbox, which are asked about, what each answer does, and what happens after a sandboxed run
// the sandbox probably blocked. No process is started: the runner is a fake that records the launcher.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AskForApproval, SandboxPolicy } from '../../../src-preload/protocol';
import { identityLauncher, type SandboxLauncherResult } from '../../../src-main/safety/sandbox/launcher';
import { runCommandItem, type CommandRequest } from '../../../src-main/tools/command-run';
import type { CommandLauncher, ExecResult } from '../../../src-main/tools/exec';
import { SafetyServices } from '../../../src-main/tools/safety-services';
import type { CoreNotification, ToolContext } from '../../../src-main/tools/types';
import { RuleStore } from '../../../src-main/safety/approvals/rules';

/** The platform sandbox, as far as the gate can tell: a launcher that is not the identity. */
const sandboxLauncher: CommandLauncher = (argv) => ({ argv: ['sandbox', ...argv] });

/** Safety services whose sandbox is always available and never probed. */
class FakeSandboxServices extends SafetyServices {
  override sandboxFor(): Promise<SandboxLauncherResult> {
    return Promise.resolve({ available: true, mechanism: 'bwrap', launcher: sandboxLauncher });
  }
}

const rulesRoot = mkdtempSync(join(tmpdir(), 'weft-gate-rules-'));
let rulesDirs = 0;
afterAll(() => rmSync(rulesRoot, { recursive: true, force: true }));

const workspaceWrite: SandboxPolicy = { type: 'workspaceWrite', writableRoots: [], networkAccess: false };

function result(exitCode: number, output = ''): ExecResult {
  return {
    text: `exit ${exitCode}\n${output}`,
    exitCode,
    sessionId: null,
    output,
    wallTimeMs: 1,
    truncated: false,
    originalTokenCount: null,
    aborted: false,
    pid: 1,
  };
}

interface Gate {
  run(
    cmd: string,
    opts?: { escalate?: boolean; outputs?: ExecResult[] },
  ): Promise<{ output: string; success: boolean }>;
  /** The launcher of each run: 'sandbox' or 'none'. */
  launches: string[];
  asked: Parameters<ToolContext['sendRequest']>[0][];
  emitted: CoreNotification[];
  cancelled: number;
  rules: RuleStore;
}

function gate(
  approvalPolicy: AskForApproval,
  answers: unknown[] = [],
  sandboxPolicy: SandboxPolicy = workspaceWrite,
): Gate {
  const rules = new RuleStore(join(rulesRoot, String(rulesDirs++)));
  const safety = new FakeSandboxServices(rules);
  const g: Gate = {
    run: async () => ({ output: '', success: false }),
    launches: [],
    asked: [],
    emitted: [],
    cancelled: 0,
    rules,
  };
  const ctx: ToolContext = {
    threadId: 't',
    turnId: 'u',
    cwd: '/work',
    signal: new AbortController().signal,
    emit: (n) => void g.emitted.push(n),
    sendRequest: (request) => {
      g.asked.push(request);
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`unexpected request: ${JSON.stringify(request)}`);
      return Promise.resolve(answer);
    },
    policy: { approvalPolicy, sandboxPolicy },
    orchestrator: undefined as never,
    env: { PATH: '/usr/bin:/bin' },
    cancelTurn: () => void g.cancelled++,
  };
  g.run = async (cmd, opts = {}) => {
    const outputs = opts.outputs ?? [result(0)];
    const request: CommandRequest = {
      cmd,
      workdir: '/work',
      escalationRequested: opts.escalate === true,
      ...(opts.escalate === true ? { justification: 'needs the network' } : {}),
    };
    const out = await runCommandItem(safety, ctx, request, async (_onOutput, launcher) => {
      g.launches.push(
        launcher === identityLauncher
          ? 'none'
          : (await launcher(['x'], { cwd: '/work', env: {} })).argv[0] === 'sandbox'
            ? 'sandbox'
            : 'other',
      );
      const next = outputs.shift();
      if (next === undefined) throw new Error(`${cmd} ran more often than expected`);
      return Promise.resolve(next);
    });
    return { output: typeof out.output === 'string' ? out.output : JSON.stringify(out.output), success: out.success };
  };
  return g;
}

const completedStatus = (g: Gate): string[] =>
  g.emitted.flatMap((n) =>
    n.method === 'item/completed' && n.params.item.type === 'commandExecution'
      ? [`${n.params.item.status}/${n.params.item.weftOutcome ?? ''}`]
      : [],
  );

describe('the command gate', () => {
  it('runs a known-safe command in the sandbox without asking, under every policy', async () => {
    for (const policy of ['untrusted', 'on-failure', 'on-request', 'never'] as const) {
      const g = gate(policy);
      await expect(g.run('ls -la')).resolves.toMatchObject({ success: true });
      expect({ policy, launches: g.launches, asked: g.asked.length }).toEqual({
        policy,
        launches: ['sandbox'],
        asked: 0,
      });
    }
  });

  it('asks about a command untrusted does not know, offering the decisions Codex offers, and runs it sandboxed on accept', async () => {
    const g = gate('untrusted', [{ decision: 'accept' }]);
    await g.run('make build');
    expect(g.asked).toHaveLength(1);
    const [request] = g.asked;
    expect(request?.method).toBe('item/commandExecution/requestApproval');
    expect(request?.params).toMatchObject({ command: 'make build', cwd: '/work', threadId: 't', turnId: 'u' });
    expect(g.launches).toEqual(['sandbox']);
    expect(completedStatus(g)).toEqual(['completed/exited']);
  });

  it('runs nothing on decline and tells the model the user rejected it', async () => {
    const g = gate('untrusted', [{ decision: 'decline' }]);
    await expect(g.run('make build')).resolves.toEqual({ output: 'exec command rejected by user', success: false });
    expect(g.launches).toEqual([]);
    expect(completedStatus(g)).toEqual(['declined/declined']);
  });

  it('runs nothing on cancel and cancels the turn', async () => {
    const g = gate('untrusted', [{ decision: 'cancel' }]);
    await expect(g.run('make build')).rejects.toThrow();
    expect(g.launches).toEqual([]);
    expect(g.cancelled).toBe(1);
    expect(completedStatus(g)).toEqual(['declined/cancelled']);
  });

  it('remembers "accept for session" for the same command, and only for it', async () => {
    const g = gate('untrusted', [{ decision: 'acceptForSession' }, { decision: 'decline' }]);
    await g.run('make build');
    await g.run('make build');
    expect(g.asked).toHaveLength(1);
    await g.run('make test');
    expect(g.asked).toHaveLength(2);
    expect(g.launches).toEqual(['sandbox', 'sandbox']);
  });

  it('an accepted amendment becomes an allow rule: the next command with that prefix is not asked about', async () => {
    const g = gate('untrusted', [{ decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['make'] } } }]);
    await g.run('make build');
    await g.run('make test');
    expect(g.asked).toHaveLength(1);
    expect(g.rules.match(['make', 'lint'])?.decision).toBe('allow');
  });

  it('an escalation request runs outside the sandbox once approved (on-request); under never it is refused, unasked', async () => {
    const asking = gate('on-request', [{ decision: 'accept' }]);
    await asking.run('curl https://example.com', { escalate: true });
    expect(asking.asked).toHaveLength(1);
    expect(asking.asked[0]?.params).toMatchObject({ reason: 'needs the network' });
    expect(asking.launches).toEqual(['none']);

    const never = gate('never');
    await never.run('curl https://example.com', { escalate: true });
    expect(never.asked).toEqual([]);
    expect(never.launches).toEqual([]);
  });

  it('a dangerous command is asked about, and refused without asking under never', async () => {
    const asking = gate('on-request', [{ decision: 'decline' }]);
    await asking.run('rm -rf /');
    expect(asking.asked).toHaveLength(1);
    expect(asking.launches).toEqual([]);

    const never = gate('never');
    const out = await never.run('rm -rf /');
    expect(out.success).toBe(false);
    expect(out.output).toMatch(/^exec command rejected: dangerous command: .*approvals are set to "Never ask"/);
    expect(never.launches).toEqual([]);
    expect(never.asked).toEqual([]);
  });

  it('a forbidden rule refuses the command under every policy, with a warning, before asking', async () => {
    for (const policy of ['untrusted', 'on-request', 'never'] as const) {
      const g = gate(policy);
      await g.rules.add({ pattern: ['git', 'push'], decision: 'forbidden' });
      const out = await g.run('git push --force origin main');
      expect(out.success).toBe(false);
      expect(out.output).toMatch(/^exec command rejected: /);
      expect(g.launches).toEqual([]);
      expect(g.asked).toEqual([]);
      expect(g.emitted.some((n) => n.method === 'warning')).toBe(true);
    }
  });

  describe('after a sandboxed run the sandbox probably blocked', () => {
    const denied = (): ExecResult => result(1, 'touch: cannot touch /etc/x: Read-only file system');

    it('on-failure asks, and reruns outside the sandbox on accept', async () => {
      const g = gate('on-failure', [{ decision: 'accept' }]);
      const out = await g.run('touch /etc/x', { outputs: [denied(), result(0)] });
      expect(g.asked).toHaveLength(1);
      expect(g.launches).toEqual(['sandbox', 'none']);
      expect(out.success).toBe(true);
    });

    it('on-failure with a decline keeps the failure and tells the model the sandbox probably blocked it', async () => {
      const g = gate('on-failure', [{ decision: 'decline' }]);
      const out = await g.run('touch /etc/x', { outputs: [denied()] });
      expect(g.launches).toEqual(['sandbox']);
      expect(out.success).toBe(false);
      expect(out.output).toContain('which probably blocked it');
    });

    it('on-request and never report it to the model without asking or rerunning', async () => {
      for (const policy of ['on-request', 'never'] as const) {
        const g = gate(policy);
        const out = await g.run('touch /etc/x', { outputs: [denied()] });
        expect(g.asked).toEqual([]);
        expect(g.launches).toEqual(['sandbox']);
        expect(out.output).toContain(
          policy === 'never' ? 'Approvals are off in this session' : 'sandbox_permissions: "require_escalated"',
        );
      }
    });

    it('a failure that does not look like the sandbox is left alone', async () => {
      const g = gate('on-failure');
      const out = await g.run('false', { outputs: [result(1, 'nothing to see')] });
      expect(g.asked).toEqual([]);
      expect(g.launches).toEqual(['sandbox']);
      expect(out.output).not.toContain('probably blocked');
    });
  });
});
