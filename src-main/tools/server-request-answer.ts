// Answers to approval requests, parsed where they enter the core. A client that sends something else
// than a decision gets an error, never a silent decline or accept: a broken client must not look like
// a person who said no (or yes).
import { ServerRequests, describeZodError, type FileChangeRequestApprovalResult } from '../../src-preload/protocol';

/** An approval answer that is not one of the decisions the protocol defines. */
export class MalformedAnswerError extends Error {
  override readonly name = 'MalformedAnswerError';
  constructor(method: string, detail: string) {
    super(`the answer to ${method} is not a valid decision (${detail}), so nothing was run or written`);
  }
}

export type CommandDecision =
  | { kind: 'accept' }
  | { kind: 'acceptForSession' }
  /** Accept and remember `prefix` as an allow rule. */
  | { kind: 'amend'; prefix: string[] }
  /** Accept with network access for this command. */
  | { kind: 'allowNetwork'; host: string }
  | { kind: 'decline' }
  | { kind: 'cancel' };

const COMMAND_METHOD = 'item/commandExecution/requestApproval';
const PATCH_METHOD = 'item/fileChange/requestApproval';

/** The decision in an answer to `item/commandExecution/requestApproval`; throws MalformedAnswerError. */
export function parseCommandApprovalAnswer(raw: unknown): CommandDecision {
  const parsed = ServerRequests[COMMAND_METHOD].result.safeParse(raw);
  if (!parsed.success) throw new MalformedAnswerError(COMMAND_METHOD, describeZodError(parsed.error, 'result'));
  const d = parsed.data.decision;
  if (typeof d === 'string') return { kind: d };
  if ('acceptWithExecpolicyAmendment' in d) {
    const prefix = d.acceptWithExecpolicyAmendment.execpolicy_amendment;
    if (prefix.length === 0) throw new MalformedAnswerError(COMMAND_METHOD, 'execpolicy_amendment is empty');
    return { kind: 'amend', prefix };
  }
  const amendment = d.applyNetworkPolicyAmendment.network_policy_amendment;
  return amendment.action === 'allow' ? { kind: 'allowNetwork', host: amendment.host } : { kind: 'decline' };
}

/** An answer to `item/fileChange/requestApproval`; throws MalformedAnswerError. */
export function parseFileChangeApprovalAnswer(raw: unknown): FileChangeRequestApprovalResult {
  const parsed = ServerRequests[PATCH_METHOD].result.safeParse(raw);
  if (!parsed.success) throw new MalformedAnswerError(PATCH_METHOD, describeZodError(parsed.error, 'result'));
  return parsed.data;
}
