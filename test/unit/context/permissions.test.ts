import { describe, expect, it } from 'vitest';
import type { AskForApproval, SandboxPolicy } from '../../../src-preload/protocol';
import { permissionsInstructions } from '../../../src-main/context/permissions';

const APPROVALS: AskForApproval[] = ['untrusted', 'on-failure', 'on-request', 'never'];
const SANDBOXES: { label: string; sandboxPolicy: SandboxPolicy; writableRoots: string[]; networkAccess: boolean }[] = [
  { label: 'read-only, network off', sandboxPolicy: { type: 'readOnly' }, writableRoots: [], networkAccess: false },
  {
    label: 'workspace-write, network off',
    sandboxPolicy: { type: 'workspaceWrite' },
    writableRoots: ['/w/repo', '/tmp'],
    networkAccess: false,
  },
  {
    label: 'workspace-write, network on',
    sandboxPolicy: { type: 'workspaceWrite', networkAccess: true },
    writableRoots: ['/w/repo'],
    networkAccess: true,
  },
  { label: 'full access', sandboxPolicy: { type: 'dangerFullAccess' }, writableRoots: [], networkAccess: true },
];

describe('permissionsInstructions', () => {
  for (const sandbox of SANDBOXES) {
    for (const approvalPolicy of APPROVALS) {
      it(`${sandbox.label} × ${approvalPolicy}`, () => {
        const text = permissionsInstructions({ ...sandbox, approvalPolicy });
        expect(text.startsWith('<permissions instructions>\n')).toBe(true);
        expect(text.endsWith('\n</permissions instructions>')).toBe(true);
        expect(text).toMatchSnapshot();
      });
    }
  }

  it('lists every writable root under workspace-write', () => {
    const text = permissionsInstructions({
      sandboxPolicy: { type: 'workspaceWrite' },
      approvalPolicy: 'on-request',
      writableRoots: ['/a', '/b c'],
      networkAccess: false,
    });
    expect(text).toContain('write only inside these folders:\n- /a\n- /b c\nNetwork: off.');
  });

  it('offers escalation only where it can be granted', () => {
    const offers = (approvalPolicy: AskForApproval, sandboxPolicy: SandboxPolicy = { type: 'readOnly' }): boolean =>
      permissionsInstructions({ sandboxPolicy, approvalPolicy, writableRoots: [], networkAccess: false }).includes(
        'run it with `sandbox_permissions: "require_escalated"` and a `justification`',
      );
    expect(offers('on-request')).toBe(true);
    expect(offers('on-request', { type: 'dangerFullAccess' })).toBe(false);
    expect(offers('never')).toBe(false);
    expect(
      permissionsInstructions({
        sandboxPolicy: { type: 'readOnly' },
        approvalPolicy: 'never',
        writableRoots: [],
        networkAccess: false,
      }),
    ).toContain('nothing can be escalated');
  });
});
