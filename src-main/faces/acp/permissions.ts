/**
 * Weft's approval requests as ACP `session/request_permission`: allow once, always allow, reject.
 * "Always" remembers the command prefix Weft proposes as a rule (kept across sessions, listed by
 * `weft rules list`) when there is one, and otherwise allows the same again for the rest of the thread.
 * A cancelled request (the client cancelled the prompt turn) cancels the turn. A sub-agent's request names
 * it in the title and in `rawInput.subAgent`.
 */
import type { PermissionOption, RequestPermissionOutcome, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import type {
  CommandExecutionApprovalDecision,
  CommandExecutionRequestApprovalParams,
  FileChangeApprovalDecision,
  FileChangeRequestApprovalParams,
} from '../../../src-preload/protocol';
import { subAgentLabel, type SubAgentAsking } from '../sub-agents';

const ALLOW_ONCE = 'allow-once';
const ALLOW_ALWAYS = 'allow-always';
const REJECT = 'reject';

/**
 * What "always" means for this command: the rule Weft proposes if it offers one, else allowing the same
 * for the session; null when the request offers neither (`availableDecisions`).
 */
function alwaysDecision(params: CommandExecutionRequestApprovalParams): CommandExecutionApprovalDecision | null {
  const available = params.availableDecisions;
  const prefix = params.proposedExecpolicyAmendment;
  const offered = available
    ? available.find((d) => typeof d === 'object' && 'acceptWithExecpolicyAmendment' in d)
    : prefix && prefix.length > 0
      ? { acceptWithExecpolicyAmendment: { execpolicy_amendment: prefix } }
      : undefined;
  if (offered) return offered;
  return !available || available.includes('acceptForSession') ? 'acceptForSession' : null;
}

/** What "allow once" means: `accept`, or the network rule for this command when that is what is offered. */
function onceDecision(params: CommandExecutionRequestApprovalParams): CommandExecutionApprovalDecision {
  const available = params.availableDecisions;
  if (!available || available.includes('accept')) return 'accept';
  const network = available.find(
    (d) =>
      typeof d === 'object' &&
      'applyNetworkPolicyAmendment' in d &&
      d.applyNetworkPolicyAmendment.network_policy_amendment.action === 'allow',
  );
  return network ?? 'accept';
}

export function commandPermission(
  sessionId: string,
  params: CommandExecutionRequestApprovalParams,
  from: SubAgentAsking | null = null,
): RequestPermissionRequest {
  const always = alwaysDecision(params);
  const options: PermissionOption[] = [{ optionId: ALLOW_ONCE, name: 'Allow once', kind: 'allow_once' }];
  if (always !== null) {
    const name =
      typeof always === 'object' && 'acceptWithExecpolicyAmendment' in always
        ? `Always allow \`${always.acceptWithExecpolicyAmendment.execpolicy_amendment.join(' ')}\``
        : 'Allow for this session';
    options.push({ optionId: ALLOW_ALWAYS, name, kind: 'allow_always' });
  }
  options.push({ optionId: REJECT, name: 'Reject', kind: 'reject_once' });
  return {
    sessionId,
    toolCall: {
      toolCallId: params.itemId,
      title: from === null ? params.command : `${subAgentLabel(from)}: ${params.command}`,
      kind: 'execute',
      status: 'pending',
      rawInput: { command: params.command, cwd: params.cwd, reason: params.reason ?? null, ...askedBy(from) },
    },
    options,
  };
}

export function patchPermission(
  sessionId: string,
  params: FileChangeRequestApprovalParams,
  from: SubAgentAsking | null = null,
): RequestPermissionRequest {
  return {
    sessionId,
    toolCall: {
      toolCallId: params.itemId,
      status: 'pending',
      // A sub-agent's edit is a tool call the client has not been shown: it gets a title saying whose it is.
      ...(from === null ? {} : { title: `${subAgentLabel(from)}: edit files`, kind: 'edit' as const }),
      rawInput: { reason: params.reason ?? null, grantRoot: params.grantRoot ?? null, ...askedBy(from) },
    },
    options: [
      { optionId: ALLOW_ONCE, name: 'Allow once', kind: 'allow_once' },
      { optionId: ALLOW_ALWAYS, name: 'Allow edits for this session', kind: 'allow_always' },
      { optionId: REJECT, name: 'Reject', kind: 'reject_once' },
    ],
  };
}

/** The sub-agent that asks, in the tool call's raw input; nothing for the session's own thread. */
function askedBy(from: SubAgentAsking | null): { subAgent?: { threadId: string; nickname: string | null } } {
  return from === null ? {} : { subAgent: { threadId: from.threadId, nickname: from.nickname } };
}

export function commandDecisionOf(
  outcome: RequestPermissionOutcome,
  params: CommandExecutionRequestApprovalParams,
): CommandExecutionApprovalDecision {
  if (outcome.outcome !== 'selected') return 'cancel';
  switch (outcome.optionId) {
    case ALLOW_ONCE:
      return onceDecision(params);
    case ALLOW_ALWAYS:
      return alwaysDecision(params) ?? 'decline';
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
