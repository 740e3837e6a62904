import { describe, expect, it } from 'vitest';
import { SessionApprovals } from '../../../src-main/safety/approvals/session-memory';

describe('SessionApprovals', () => {
  it('remembers the exact command in the same cwd only', () => {
    const memory = new SessionApprovals();
    memory.approveCommand({ script: 'npm test', cwd: '/w' });
    expect(memory.isCommandApproved({ script: 'npm test', cwd: '/w' })).toBe(true);
    expect(memory.isCommandApproved({ script: 'npm test', cwd: '/w/' })).toBe(true);
    expect(memory.isCommandApproved({ script: 'npm test ', cwd: '/w' })).toBe(false);
    expect(memory.isCommandApproved({ script: 'npm test', cwd: '/other' })).toBe(false);
  });

  it('a sandboxed approval does not cover running unsandboxed; the reverse does', () => {
    const memory = new SessionApprovals();
    memory.approveCommand({ script: 'make', cwd: '/w' });
    expect(memory.isCommandApproved({ script: 'make', cwd: '/w', unsandboxed: true })).toBe(false);
    memory.approveCommand({ script: 'make', cwd: '/w', unsandboxed: true });
    expect(memory.isCommandApproved({ script: 'make', cwd: '/w', unsandboxed: true })).toBe(true);
    memory.approveCommand({ script: 'make', cwd: '/w' });
    expect(memory.isCommandApproved({ script: 'make', cwd: '/w', unsandboxed: true })).toBe(true);
  });

  it('remembers approved files and granted folders', () => {
    const memory = new SessionApprovals();
    memory.approveFiles(['/x/a.txt', '/x/b.txt']);
    expect(memory.areFilesApproved(['/x/a.txt', '/x/b.txt'])).toBe(true);
    expect(memory.areFilesApproved(['/x/b.txt'])).toBe(true);
    expect(memory.areFilesApproved(['/x/a.txt', '/x/c.txt'])).toBe(false);
    expect(memory.areFilesApproved([])).toBe(false);
    memory.grantRoot('/y');
    expect(memory.areFilesApproved(['/y/deep/new.txt', '/x/a.txt'])).toBe(true);
    expect(memory.areFilesApproved(['/yy/a.txt'])).toBe(false);
    memory.clear();
    expect(memory.areFilesApproved(['/x/a.txt'])).toBe(false);
  });
});
