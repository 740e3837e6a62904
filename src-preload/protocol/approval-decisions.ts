// The decisions a command approval request offers (`availableDecisions`): accept once, for the session,
// remember a proposed prefix, decline, cancel the turn. One list: the server sends it with every request and
// the approval card falls back to it for a request that lists none, so every client shows the same choices.
import type { CommandExecutionApprovalDecision } from './server-requests';

export function commandApprovalDecisions(proposedPrefix: readonly string[] | null): CommandExecutionApprovalDecision[] {
  const decisions: CommandExecutionApprovalDecision[] = ['accept', 'acceptForSession'];
  if (proposedPrefix !== null && proposedPrefix.length > 0) {
    decisions.push({ acceptWithExecpolicyAmendment: { execpolicy_amendment: [...proposedPrefix] } });
  }
  decisions.push('decline', 'cancel');
  return decisions;
}
