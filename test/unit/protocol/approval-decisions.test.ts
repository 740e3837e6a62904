// The answers a command approval offers, one list for the server (`availableDecisions`) and the card that
// falls back to it when a request lists none.
import { describe, expect, it } from 'vitest';
import { commandApprovalDecisions } from '../../../src-preload/protocol';

describe('commandApprovalDecisions', () => {
  it('offers accept, for the session, a proposed prefix to remember, decline and cancel, in that order', () => {
    expect([null, [], ['make', 'test']].map((prefix) => commandApprovalDecisions(prefix))).toEqual([
      ['accept', 'acceptForSession', 'decline', 'cancel'],
      ['accept', 'acceptForSession', 'decline', 'cancel'],
      [
        'accept',
        'acceptForSession',
        { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['make', 'test'] } },
        'decline',
        'cancel',
      ],
    ]);
  });

  it('copies the prefix, so the request does not share it with the caller', () => {
    const prefix = ['make'];
    const [, , remember] = commandApprovalDecisions(prefix);
    prefix.push('install');
    expect(remember).toEqual({ acceptWithExecpolicyAmendment: { execpolicy_amendment: ['make'] } });
  });
});
