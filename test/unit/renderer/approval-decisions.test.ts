// The command approval card offers the answers the request lists (`availableDecisions`), in its order.
import { describe, expect, it } from 'vitest';
import type { CommandExecutionRequestApprovalParams } from '../../../src-preload/protocol';
import { offeredDecisions } from '../../../src-renderer/views/approvals/CommandApproval';

const base: CommandExecutionRequestApprovalParams = {
  threadId: 't',
  turnId: 'u',
  itemId: 'i',
  startedAtMs: 0,
  command: 'make',
  cwd: '/w',
};

describe('offeredDecisions', () => {
  it('follows availableDecisions when the request lists them', () => {
    const availableDecisions = [
      'accept',
      { applyNetworkPolicyAmendment: { network_policy_amendment: { host: 'example.com', action: 'allow' as const } } },
      'decline',
    ] as const;
    expect(
      offeredDecisions({ ...base, availableDecisions: [...availableDecisions], proposedExecpolicyAmendment: ['make'] }),
    ).toEqual([...availableDecisions]);
  });

  it('offers every answer when the request lists none', () => {
    expect(offeredDecisions(base)).toEqual(['accept', 'acceptForSession', 'decline', 'cancel']);
    expect(offeredDecisions({ ...base, proposedExecpolicyAmendment: ['make', 'test'] })).toEqual([
      'accept',
      'acceptForSession',
      { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['make', 'test'] } },
      'decline',
      'cancel',
    ]);
  });
});
