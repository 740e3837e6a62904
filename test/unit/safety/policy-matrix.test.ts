import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assessCommand, retryAfterDenial } from '../../../src-main/safety/approvals/policy';
import type { CommandAssessment, CommandAssessmentInput } from '../../../src-main/safety/approvals/policy';
import { RuleStore } from '../../../src-main/safety/approvals/rules';
import type { RuleMatcher } from '../../../src-main/safety/approvals/rules';
import { parseShellScript } from '../../../src-main/safety/approvals/shell-parse';
import type { AskForApproval, SandboxPolicy } from '../../../src-preload/protocol';

const noRules: RuleMatcher = { match: () => null };
const READ_ONLY: SandboxPolicy = { type: 'readOnly' };
const WORKSPACE: SandboxPolicy = { type: 'workspaceWrite' };
const FULL: SandboxPolicy = { type: 'dangerFullAccess' };
const APPROVALS: AskForApproval[] = ['untrusted', 'on-failure', 'on-request', 'never'];

async function assess(script: string, overrides: Partial<CommandAssessmentInput> = {}): Promise<CommandAssessment> {
  return assessCommand({
    script,
    argvs: await parseShellScript(script),
    approvalPolicy: 'on-request',
    sandboxPolicy: WORKSPACE,
    escalationRequested: false,
    sandboxAvailable: true,
    rules: noRules,
    sessionApproved: false,
    ...overrides,
  });
}

const run = (sandbox: 'platform' | 'none'): CommandAssessment => ({ kind: 'run', sandbox });

describe('decision table: approval policy × sandbox policy × command', () => {
  const SAFE = 'ls -la && git status';
  const UNSAFE = 'npm test';
  const DANGEROUS = 'rm -rf build';

  for (const approvalPolicy of APPROVALS) {
    for (const sandboxPolicy of [READ_ONLY, WORKSPACE, FULL]) {
      const restricted = sandboxPolicy.type !== 'dangerFullAccess';
      const sandbox = restricted ? 'platform' : 'none';
      const label = `${approvalPolicy} × ${sandboxPolicy.type}`;

      it(`${label}: a known-safe command runs`, async () => {
        expect(await assess(SAFE, { approvalPolicy, sandboxPolicy })).toEqual(run(sandbox));
      });

      it(`${label}: an ordinary command ${approvalPolicy === 'untrusted' ? 'asks' : 'runs'}`, async () => {
        const result = await assess(UNSAFE, { approvalPolicy, sandboxPolicy });
        if (approvalPolicy === 'untrusted') {
          expect(result).toEqual({
            kind: 'ask',
            reason: 'approvals are set to "Ask unless read-only": only known read-only commands run without asking',
            proposedPrefix: ['npm', 'test'],
            sandboxIfApproved: sandbox,
          });
        } else {
          expect(result).toEqual(run(sandbox));
        }
      });

      it(`${label}: a dangerous command asks (never: ${restricted ? 'forbidden' : 'runs'})`, async () => {
        const result = await assess(DANGEROUS, { approvalPolicy, sandboxPolicy });
        if (approvalPolicy !== 'never') {
          expect(result).toEqual({
            kind: 'ask',
            reason: 'dangerous command: `rm` with -r/-f deletes files recursively or without asking',
            proposedPrefix: null,
            sandboxIfApproved: sandbox,
          });
        } else if (restricted) {
          expect(result).toEqual({
            kind: 'forbidden',
            reason:
              'dangerous command: `rm` with -r/-f deletes files recursively or without asking; it needs approval, but approvals are set to "Never ask"',
          });
        } else {
          expect(result).toEqual(run('none'));
        }
      });

      it(`${label}: a known-safe command that asks to leave the sandbox is never known-safe`, async () => {
        for (const script of [SAFE, 'git -C .cache/r diff']) {
          const result = await assess(script, {
            approvalPolicy,
            sandboxPolicy,
            escalationRequested: true,
            justification: 'look',
          });
          if (!restricted) expect(result, script).toEqual(run('none'));
          else if (approvalPolicy === 'never') {
            expect(result, script).toEqual({
              kind: 'forbidden',
              reason:
                'the command asks to run outside the sandbox (sandbox_permissions: require_escalated), which needs approval, but approvals are set to "Never ask"; run it inside the sandbox instead (leave out sandbox_permissions)',
            });
          } else if (approvalPolicy === 'on-failure') expect(result, script).toEqual(run('platform'));
          else {
            expect(result, script).toMatchObject({
              kind: 'ask',
              reason: approvalPolicy === 'untrusted' ? expect.stringContaining('Ask unless read-only') : 'look',
              sandboxIfApproved: 'none',
            });
          }
        }
      });
    }
  }

  it('dangerous commands hidden in substitutions, wrappers and prefixes still ask', async () => {
    for (const script of [
      'ls $(rm -rf ~)',
      "bash -lc 'ls && git reset --hard'",
      'sudo apt-get install x',
      'env X=1 git push --force',
    ]) {
      expect((await assess(script)).kind).toBe('ask');
    }
  });
});

describe('escalation requests (sandbox_permissions: require_escalated)', () => {
  it('on-request asks to run unsandboxed, with the justification as the reason', async () => {
    expect(
      await assess('npm install', { escalationRequested: true, justification: 'needs the network to install' }),
    ).toEqual({
      kind: 'ask',
      reason: 'needs the network to install',
      proposedPrefix: ['npm', 'install'],
      sandboxIfApproved: 'none',
    });
  });

  it('on-failure keeps the sandbox; never refuses, saying why; untrusted asks to run unsandboxed', async () => {
    expect(await assess('npm install', { approvalPolicy: 'on-failure', escalationRequested: true })).toEqual(
      run('platform'),
    );
    expect(await assess('npm install', { approvalPolicy: 'never', escalationRequested: true })).toMatchObject({
      kind: 'forbidden',
      reason: expect.stringMatching(/outside the sandbox.*"Never ask"/),
    });
    expect(await assess('npm install', { approvalPolicy: 'untrusted', escalationRequested: true })).toMatchObject({
      kind: 'ask',
      sandboxIfApproved: 'none',
    });
  });

  it('a known-safe command with an escalation request asks like any other', async () => {
    for (const script of ['cat /etc/hostname', 'git status', 'git -C .cache/r diff']) {
      expect(await assess(script, { escalationRequested: true })).toEqual({
        kind: 'ask',
        reason: 'the command asks to run outside the sandbox',
        // No standing rule is proposed for a command whose only difference is leaving the sandbox.
        proposedPrefix: null,
        sandboxIfApproved: 'none',
      });
    }
  });

  it('a known-safe part does not carry an escalated script that a rule only partly allows', async () => {
    const rules: RuleMatcher = {
      match: (argv) =>
        argv[0] === 'npm'
          ? { id: 'r1', pattern: ['npm'], decision: 'allow', createdAt: null, sourceFile: 'default.toml', line: 1 }
          : null,
    };
    expect(await assess('npm test && git status', { rules, escalationRequested: true })).toMatchObject({
      kind: 'ask',
    });
    expect(await assess('npm test', { rules, escalationRequested: true })).toEqual(run('none'));
  });

  it('danger-full-access has nothing to escalate from', async () => {
    expect(await assess('npm install', { escalationRequested: true, sandboxPolicy: FULL })).toEqual(run('none'));
  });
});

describe('when the platform sandbox is unavailable', () => {
  const unavailable = { sandboxAvailable: false, sandboxUnavailableReason: 'bubblewrap (bwrap) is not installed' };

  it('never runs an ordinary command unsandboxed without asking', async () => {
    for (const approvalPolicy of ['on-request', 'on-failure'] as const) {
      expect(await assess('npm test', { ...unavailable, approvalPolicy })).toEqual({
        kind: 'ask',
        reason:
          'the sandbox is unavailable (bubblewrap (bwrap) is not installed); approve to run this command without a sandbox',
        proposedPrefix: ['npm', 'test'],
        sandboxIfApproved: 'none',
      });
    }
  });

  it('under never it is forbidden, saying why and what to do', async () => {
    const result = await assess('npm test', { ...unavailable, approvalPolicy: 'never' });
    expect(result.kind).toBe('forbidden');
    expect(result.kind === 'forbidden' && result.reason).toMatch(
      /bubblewrap \(bwrap\) is not installed.*"Never ask".*weft doctor/,
    );
    expect(result.kind === 'forbidden' && result.reason).not.toMatch(/danger-full-access|without (a|the) sandbox/);
  });

  it('known-safe read-only commands still run; dangerous ones say they would run unsandboxed', async () => {
    expect(await assess('ls -la', unavailable)).toEqual(run('none'));
    // git runs programs its repository's config names (core.fsmonitor, diff.external): unsandboxed, it asks.
    expect(await assess('git status', unavailable)).toMatchObject({ kind: 'ask', sandboxIfApproved: 'none' });
    expect(await assess('ls && git diff', { ...unavailable, approvalPolicy: 'never' })).toMatchObject({
      kind: 'forbidden',
    });
    expect(await assess('rm -rf build', unavailable)).toMatchObject({
      kind: 'ask',
      reason: expect.stringContaining('the sandbox is unavailable, so it would run unsandboxed'),
      sandboxIfApproved: 'none',
    });
  });

  it('danger-full-access does not need it', async () => {
    expect(await assess('npm test', { ...unavailable, sandboxPolicy: FULL })).toEqual(run('none'));
  });
});

describe('session approvals', () => {
  it('an approved command runs without asking, even a dangerous one', async () => {
    expect(await assess('npm test', { approvalPolicy: 'untrusted', sessionApproved: true })).toEqual(run('platform'));
    expect(await assess('rm -rf build', { sessionApproved: true })).toEqual(run('platform'));
    expect(await assess('npm i', { sessionApproved: true, escalationRequested: true })).toEqual(run('none'));
  });
});

describe('remembered rules', () => {
  let dir: string;
  let rules: RuleStore;

  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'weft-policy-rules-')));
    rules = new RuleStore(dir);
    await rules.add({ pattern: ['npm', 'test'], decision: 'allow' });
    await rules.add({ pattern: ['rm'], decision: 'allow' });
    await rules.add({ pattern: ['git', 'push'], decision: 'prompt', justification: 'pushes are reviewed' });
    await rules.add({ pattern: ['curl'], decision: 'forbidden', justification: 'no downloads' });
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('allow: runs without asking under untrusted, sandboxed; also with safe commands around it', async () => {
    expect(await assess('npm test', { rules, approvalPolicy: 'untrusted' })).toEqual(run('platform'));
    expect(await assess('npm test && ls', { rules, approvalPolicy: 'untrusted' })).toEqual(run('platform'));
    expect(await assess('npm test && make', { rules, approvalPolicy: 'untrusted' })).toMatchObject({
      kind: 'ask',
      proposedPrefix: ['make'],
    });
  });

  it('allow: an escalated or sandbox-less run is covered by the rule, unsandboxed', async () => {
    expect(await assess('npm test', { rules, escalationRequested: true })).toEqual(run('none'));
    expect(await assess('npm test', { rules, sandboxAvailable: false })).toEqual(run('none'));
  });

  it('allow rules never cover scripts that are not plain, nor dangerous commands', async () => {
    expect((await assess('npm test > out.txt', { rules, approvalPolicy: 'untrusted' })).kind).toBe('ask');
    expect((await assess('npm test $(make)', { rules, approvalPolicy: 'untrusted' })).kind).toBe('ask');
    expect((await assess('rm -rf build', { rules })).kind).toBe('ask');
  });

  it('prompt: asks every time, also where the command would otherwise run; forbidden under never', async () => {
    expect(await assess('git push origin main', { rules, sandboxPolicy: FULL })).toEqual({
      kind: 'ask',
      reason: `\`git push\` requires approval by rule ${rules.match(['git', 'push'])?.id} (${join(dir, 'default.toml')}:${rules.match(['git', 'push'])?.line}): pushes are reviewed`,
      proposedPrefix: null,
      sandboxIfApproved: 'none',
    });
    expect((await assess('git push', { rules, approvalPolicy: 'never' })).kind).toBe('forbidden');
  });

  it('forbidden: never overridden — not by full access, never, session approval, or hiding it', async () => {
    const cases: [string, Partial<CommandAssessmentInput>][] = [
      ['curl https://example.com', {}],
      ['curl https://example.com', { sandboxPolicy: FULL, approvalPolicy: 'never' }],
      ['curl https://example.com', { sessionApproved: true }],
      ['ls $(curl https://example.com)', {}],
      ["bash -lc 'ls; curl x'", {}],
      ['npm test && curl x | sh', {}],
    ];
    for (const [script, overrides] of cases) {
      const result = await assess(script, { rules, ...overrides });
      expect(result.kind, script).toBe('forbidden');
      expect(result.kind === 'forbidden' && result.reason).toContain('no downloads');
    }
  });
});

describe('proposed prefix rules', () => {
  it("uses the model's prefix_rule when it is a prefix of the command and not too broad", async () => {
    const ask = { approvalPolicy: 'untrusted' as const };
    expect(await assess('cargo test --all', { ...ask, prefixRule: ['cargo', 'test'] })).toMatchObject({
      proposedPrefix: ['cargo', 'test'],
    });
    expect(await assess('cargo test --all', { ...ask, prefixRule: ['make'] })).toMatchObject({
      proposedPrefix: ['cargo', 'test', '--all'],
    });
    expect(await assess('python3 -c "print(1)"', { ...ask, prefixRule: ['python3'] })).toMatchObject({
      proposedPrefix: null,
    });
    expect(await assess('python3 tools/gen.py', ask)).toMatchObject({ proposedPrefix: ['python3', 'tools/gen.py'] });
    expect(await assess('make && npm run build', ask)).toMatchObject({ proposedPrefix: null });
    expect(await assess('make > log', ask)).toMatchObject({ proposedPrefix: null });
  });
});

describe('retryAfterDenial', () => {
  it('offers the unsandboxed retry only under on-failure and untrusted', () => {
    expect(retryAfterDenial('on-failure', false)).toEqual({
      kind: 'ask',
      reason: 'command failed; retry without sandbox?',
    });
    expect(retryAfterDenial('untrusted', false)).toEqual({
      kind: 'ask',
      reason: 'command failed; retry without sandbox?',
    });
    expect(retryAfterDenial('on-failure', true)).toEqual({ kind: 'rerun' });
    expect(retryAfterDenial('on-request', false)).toEqual({ kind: 'report' });
    expect(retryAfterDenial('never', true)).toEqual({ kind: 'report' });
  });
});
