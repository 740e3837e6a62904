import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assessPatch } from '../../../src-main/safety/approvals/policy';
import type { PatchAssessment, PatchAssessmentInput } from '../../../src-main/safety/approvals/policy';
import type { AskForApproval, SandboxPolicy } from '../../../src-preload/protocol';

let base: string;
let ws: string;
let outside: string;
const env = { HOME: '/nonexistent-home' };
const WORKSPACE: SandboxPolicy = { type: 'workspaceWrite', excludeSlashTmp: true, excludeTmpdirEnvVar: true };

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'weft-patch-policy-')));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  await mkdir(join(ws, '.git'), { recursive: true });
  await mkdir(outside);
  await symlink(outside, join(ws, 'escape'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

function assess(paths: string[], overrides: Partial<PatchAssessmentInput> = {}): PatchAssessment {
  return assessPatch({
    paths,
    approvalPolicy: 'on-request',
    sandboxPolicy: WORKSPACE,
    cwd: ws,
    sessionApproved: false,
    env,
    ...overrides,
  });
}

describe('assessPatch matrix', () => {
  const approvals: AskForApproval[] = ['untrusted', 'on-failure', 'on-request', 'never'];
  for (const approvalPolicy of approvals) {
    it(`${approvalPolicy}: inside the workspace`, () => {
      const result = assess([join(ws, 'src', 'a.ts'), join(ws, 'b.ts')], { approvalPolicy });
      expect(result).toEqual(
        approvalPolicy === 'untrusted'
          ? {
              kind: 'ask',
              reason: 'approvals are set to "Ask unless read-only": every edit needs approval',
              grantRoot: null,
            }
          : { kind: 'apply' },
      );
    });

    it(`${approvalPolicy}: outside the workspace`, () => {
      const result = assess([join(ws, 'a.ts'), join(outside, 'x', 'b.ts')], { approvalPolicy });
      const reason = `the patch writes outside the writable folders (or into a protected .git/.weft/.agents): ${join(outside, 'x', 'b.ts')}`;
      if (approvalPolicy === 'never') {
        expect(result).toEqual({
          kind: 'forbidden',
          reason: `${reason}; it needs approval, but approvals are set to "Never ask"`,
        });
      } else if (approvalPolicy === 'untrusted') {
        expect(result.kind).toBe('ask');
      } else {
        expect(result).toEqual({ kind: 'ask', reason, grantRoot: join(outside, 'x') });
      }
    });

    it(`${approvalPolicy}: danger-full-access`, () => {
      const result = assess([join(outside, 'b.ts')], { approvalPolicy, sandboxPolicy: { type: 'dangerFullAccess' } });
      expect(result.kind).toBe(approvalPolicy === 'untrusted' ? 'ask' : 'apply');
    });
  }

  it('read-only: every patch asks', () => {
    expect(assess([join(ws, 'a.ts')], { sandboxPolicy: { type: 'readOnly' } })).toMatchObject({
      kind: 'ask',
      grantRoot: ws,
    });
  });

  it('a symlink out of the workspace is outside; protected paths ask with no folder to grant', () => {
    expect(assess([join(ws, 'escape', 'x.ts')])).toMatchObject({ kind: 'ask', grantRoot: join(ws, 'escape') });
    expect(assess([join(ws, '.git', 'hooks', 'pre-commit')])).toMatchObject({ kind: 'ask', grantRoot: null });
    expect(assess([join(ws, '.weft', 'config.toml')])).toMatchObject({ kind: 'ask', grantRoot: null });
  });

  it('a session approval applies, even under untrusted', () => {
    expect(assess([join(outside, 'x')], { sessionApproved: true, approvalPolicy: 'untrusted' })).toEqual({
      kind: 'apply',
      bySession: true,
    });
  });

  it('an empty patch is refused', () => {
    expect(assess([])).toEqual({ kind: 'forbidden', reason: 'the patch changes no files' });
  });
});
