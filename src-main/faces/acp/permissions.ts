/**
 * Weft's approval requests as ACP `session/request_permission`: allow once, always allow, reject.
 * "Always" remembers the command prefix Weft proposes as a rule (kept across sessions, listed by
 * `weft rules list`) when there is one, and otherwise allows the same again for the rest of the thread.
 * A cancelled request (the client cancelled the prompt turn) cancels the turn.
 */
import type { PermissionOption, RequestPermissionOutcome, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import type {
  CommandExecutionApprovalDecision,
  CommandExecutionRequestApprovalParams,
  FileChangeApprovalDecision,
  FileChangeRequestApprovalParams,
} from '../../../src-preload/protocol';

const ALLOW_ONCE = 'allow-once';
const ALLOW_ALWAYS = 'allow-always';
const REJECT = 'reject';

export function commandPermission(sessionId: string, params: CommandExecutionRequestApprovalParams): RequestPermissionRequest {
  const prefix = params.proposedExecpolicyAmendment;
  const options: PermissionOption[] = [
    { optionId: ALLOW_ONCE, name: 'Allow once', kind: 'allow_once' },
    { optionId: ALLOW_ALWAYS, name: prefix && prefix.length > 0 ? `Always allow \`${prefix.join(' ')}\`` : 'Allow for this session', kind: 'allow_always' },
    { optionId: REJECT, name: 'Reject', kind: 'reject_once' },
  ];
  return {
    sessionId,
    toolCall: { toolCallId: params.itemId, title: params.command, kind: 'execute', status: 'pending', rawInput: { command: params.command, cwd: params.cwd, reason: params.reason ?? null } },
    options,
  };
}

export function patchPermission(sessionId: string, params: FileChangeRequestApprovalParams): RequestPermissionRequest {
  return {
    sessionId,
    toolCall: { toolCallId: params.itemId, status: 'pending', rawInput: { reason: params.reason ?? null, grantRoot: params.grantRoot ?? null } },
    options: [
      { optionId: ALLOW_ONCE, name: 'Allow once', kind: 'allow_once' },
      { optionId: ALLOW_ALWAYS, name: 'Allow edits for this session', kind: 'allow_always' },
      { optionId: REJECT, name: 'Reject', kind: 'reject_once' },
    ],
  };
}

export function commandDecisionOf(outcome: RequestPermissionOutcome, params: CommandExecutionRequestApprovalParams): CommandExecutionApprovalDecision {
  if (outcome.outcome !== 'selected') return 'cancel';
  switch (outcome.optionId) {
    case ALLOW_ONCE:
      return 'accept';
    case ALLOW_ALWAYS: {
      const prefix = params.proposedExecpolicyAmendment;
      return prefix && prefix.length > 0 ? { acceptWithExecpolicyAmendment: { execpolicy_amendment: prefix } } : 'acceptForSession';
    }
    default:
      return 'decline';
  }
}

export function patchDecisionOf(outcome: RequestPermissionOutcome): FileChangeApprovalDecision {
  if (outcome.outcome !== 'selected') return 'cancel';
  if (outcome.optionId === ALLOW_ONCE) return 'accept';
  if (outcome.optionId === ALLOW_ALWAYS) return 'acceptForSession';
  return 'decline';
}
