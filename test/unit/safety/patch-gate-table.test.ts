// The patch gate as a decision table: for each approval policy × sandbox × where the patch writes, whether
// the patch is applied without asking, shown to the person for review, or refused. The table is written out
// row by row (not computed) so a change of policy is a visible change of this file; a last test checks it
// lists every combination exactly once.
import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assessPatch } from '../../../src-main/safety/approvals/policy';
import type { AskForApproval, SandboxPolicy } from '../../../src-preload/protocol';

type Sandbox = 'read-only' | 'workspace-write' | 'full-access';
/**
 * `inside`: a file in the workspace; `outside`: a file in a folder next to it; `symlink`: a path in the
 * workspace through a link that leads outside it; `protected`: the workspace's .git.
 */
type Where = 'inside' | 'outside' | 'symlink' | 'protected';
type Outcome = 'apply' | 'ask' | 'refuse';

const APPROVALS: AskForApproval[] = ['untrusted', 'on-failure', 'on-request', 'never'];
const SANDBOXES: Sandbox[] = ['read-only', 'workspace-write', 'full-access'];
const WHERES: Where[] = ['inside', 'outside', 'symlink', 'protected'];

// prettier-ignore
const TABLE: [AskForApproval, Sandbox, Where, Outcome][] = [
  // "Ask unless read-only": every edit is reviewed, whatever the sandbox.
  ['untrusted',  'read-only',       'inside',    'ask'],
  ['untrusted',  'read-only',       'outside',   'ask'],
  ['untrusted',  'read-only',       'symlink',   'ask'],
  ['untrusted',  'read-only',       'protected', 'ask'],
  ['untrusted',  'workspace-write', 'inside',    'ask'],
  ['untrusted',  'workspace-write', 'outside',   'ask'],
  ['untrusted',  'workspace-write', 'symlink',   'ask'],
  ['untrusted',  'workspace-write', 'protected', 'ask'],
  ['untrusted',  'full-access',     'inside',    'ask'],
  ['untrusted',  'full-access',     'outside',   'ask'],
  ['untrusted',  'full-access',     'symlink',   'ask'],
  ['untrusted',  'full-access',     'protected', 'ask'],
  // "Ask on failure" and "Ask when needed": writes the sandbox allows apply, the others are reviewed.
  ['on-failure', 'read-only',       'inside',    'ask'],
  ['on-failure', 'read-only',       'outside',   'ask'],
  ['on-failure', 'read-only',       'symlink',   'ask'],
  ['on-failure', 'read-only',       'protected', 'ask'],
  ['on-failure', 'workspace-write', 'inside',    'apply'],
  ['on-failure', 'workspace-write', 'outside',   'ask'],
  ['on-failure', 'workspace-write', 'symlink',   'ask'],
  ['on-failure', 'workspace-write', 'protected', 'ask'],
  ['on-failure', 'full-access',     'inside',    'apply'],
  ['on-failure', 'full-access',     'outside',   'apply'],
  ['on-failure', 'full-access',     'symlink',   'apply'],
  ['on-failure', 'full-access',     'protected', 'apply'],
  ['on-request', 'read-only',       'inside',    'ask'],
  ['on-request', 'read-only',       'outside',   'ask'],
  ['on-request', 'read-only',       'symlink',   'ask'],
  ['on-request', 'read-only',       'protected', 'ask'],
  ['on-request', 'workspace-write', 'inside',    'apply'],
  ['on-request', 'workspace-write', 'outside',   'ask'],
  ['on-request', 'workspace-write', 'symlink',   'ask'],
  ['on-request', 'workspace-write', 'protected', 'ask'],
  ['on-request', 'full-access',     'inside',    'apply'],
  ['on-request', 'full-access',     'outside',   'apply'],
  ['on-request', 'full-access',     'symlink',   'apply'],
  ['on-request', 'full-access',     'protected', 'apply'],
  // "Never ask": what the sandbox allows applies; anything that would need a question is refused.
  ['never',      'read-only',       'inside',    'refuse'],
  ['never',      'read-only',       'outside',   'refuse'],
  ['never',      'read-only',       'symlink',   'refuse'],
  ['never',      'read-only',       'protected', 'refuse'],
  ['never',      'workspace-write', 'inside',    'apply'],
  ['never',      'workspace-write', 'outside',   'refuse'],
  ['never',      'workspace-write', 'symlink',   'refuse'],
  ['never',      'workspace-write', 'protected', 'refuse'],
  ['never',      'full-access',     'inside',    'apply'],
  ['never',      'full-access',     'outside',   'apply'],
  ['never',      'full-access',     'symlink',   'apply'],
  ['never',      'full-access',     'protected', 'apply'],
];

let base: string;
let ws: string;
let outside: string;
const env = { HOME: '/nonexistent-home', TMPDIR: '/nonexistent-tmp' };

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'weft-patch-gate-')));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  await mkdir(join(ws, '.git'), { recursive: true });
  await mkdir(outside);
  await symlink(outside, join(ws, 'escape'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

function sandboxPolicy(sandbox: Sandbox): SandboxPolicy {
  switch (sandbox) {
    case 'read-only':
      return { type: 'readOnly' };
    case 'workspace-write':
      return { type: 'workspaceWrite', excludeSlashTmp: true, excludeTmpdirEnvVar: true };
    case 'full-access':
      return { type: 'dangerFullAccess' };
  }
}

function pathFor(where: Where): string {
  switch (where) {
    case 'inside':
      return join(ws, 'src', 'a.ts');
    case 'outside':
      return join(outside, 'b.ts');
    case 'symlink':
      return join(ws, 'escape', 'c.ts');
    case 'protected':
      return join(ws, '.git', 'hooks', 'pre-commit');
  }
}

describe('patch gate decision table', () => {
  for (const [approvalPolicy, sandbox, where, outcome] of TABLE) {
    it(`${approvalPolicy} × ${sandbox} × ${where} → ${outcome}`, () => {
      const path = pathFor(where);
      const result = assessPatch({
        paths: [path],
        approvalPolicy,
        sandboxPolicy: sandboxPolicy(sandbox),
        cwd: ws,
        sessionApproved: false,
        env,
      });
      switch (outcome) {
        case 'apply':
          expect(result).toEqual({ kind: 'apply' });
          break;
        case 'ask':
          expect(result.kind).toBe('ask');
          // Review asks say why: the policy, or the path that is out of bounds.
          if (result.kind === 'ask' && approvalPolicy !== 'untrusted') expect(result.reason).toContain(path);
          break;
        case 'refuse':
          expect(result.kind).toBe('forbidden');
          if (result.kind === 'forbidden') {
            expect(result.reason).toContain(path);
            expect(result.reason).toContain('"Never ask"');
          }
          break;
      }
    });
  }

  it('lists every combination exactly once', () => {
    const seen = TABLE.map(([a, s, w]) => `${a}|${s}|${w}`);
    const all = APPROVALS.flatMap((a) => SANDBOXES.flatMap((s) => WHERES.map((w) => `${a}|${s}|${w}`)));
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...all].sort());
  });

  it('a patch mixing an allowed and a disallowed path is decided by the disallowed one', () => {
    for (const approvalPolicy of APPROVALS) {
      const result = assessPatch({
        paths: [pathFor('inside'), pathFor('outside')],
        approvalPolicy,
        sandboxPolicy: sandboxPolicy('workspace-write'),
        cwd: ws,
        sessionApproved: false,
        env,
      });
      expect(result.kind).toBe(approvalPolicy === 'never' ? 'forbidden' : 'ask');
    }
  });

  it('files the person approved for the session apply under every policy and sandbox', () => {
    for (const approvalPolicy of APPROVALS)
      for (const sandbox of SANDBOXES)
        for (const where of WHERES) {
          const result = assessPatch({
            paths: [pathFor(where)],
            approvalPolicy,
            sandboxPolicy: sandboxPolicy(sandbox),
            cwd: ws,
            sessionApproved: true,
            env,
          });
          expect(result).toEqual({ kind: 'apply', bySession: true });
        }
  });
});
