// The decisions a command approval request offers (`availableDecisions`), so every client shows the
// same choices: accept once, for the session, remember a proposed prefix, decline, cancel the turn.
import type { CommandExecutionApprovalDecision } from '../../src-preload/protocol';

export function commandApprovalDecisions(proposedPrefix: readonly string[] | null): CommandExecutionApprovalDecision[] {
  const decisions: CommandExecutionApprovalDecision[] = ['accept', 'acceptForSession'];
  if (proposedPrefix !== null && proposedPrefix.length > 0) {
    decisions.push({ acceptWithExecpolicyAmendment: { execpolicy_amendment: [...proposedPrefix] } });
  }
  decisions.push('decline', 'cancel');
  return decisions;
}
