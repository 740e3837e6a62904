import { ServerRequests, type CommandExecutionItem } from '../../src-preload/protocol';
import { assessCommand, retryAfterDenial, type CommandAssessment } from '../safety/approvals/policy';
import { parseShellScript } from '../safety/approvals/shell-parse';
import { isLikelySandboxDenied } from '../safety/sandbox/denial';
import { identityLauncher } from '../safety/sandbox/launcher';
import { abortError } from '../util/abort';
import type { CommandLauncher, ExecResult } from './exec';
import type { ToolContext } from './types';

export interface GatedCommand {
  cmd: string;
  workdir: string;
  escalationRequested: boolean;
  justification?: string;
  prefixRule?: string[];
}

export type GateOutcome =
  | { kind: 'run'; launcher: CommandLauncher; sandboxed: boolean; sandboxNote: string | null }
  | { kind: 'refused'; output: string };

/**
 * Decides how a command runs: sandboxed, unsandboxed, after asking the user, or not at all. The
 * `commandExecution` item has already started; approval requests refer to it.
 */
export async function gateCommand(ctx: ToolContext, item: CommandExecutionItem, command: GatedCommand): Promise<GateOutcome> {
  const { safety, policy } = ctx;
  if (!safety || !policy) return { kind: 'run', launcher: identityLauncher, sandboxed: false, sandboxNote: null };
  const sandbox = await safety.sandboxFor(policy.sandboxPolicy, command.workdir, ctx.env ?? process.env);
  const argvs = await parseShellScript(command.cmd);
  const sessionKey = { script: command.cmd, cwd: command.workdir, unsandboxed: command.escalationRequested };
  const assessment: CommandAssessment = assessCommand({
    script: command.cmd,
    argvs,
    approvalPolicy: policy.approvalPolicy,
    sandboxPolicy: policy.sandboxPolicy,
    escalationRequested: command.escalationRequested,
    justification: command.justification,
    prefixRule: command.prefixRule,
    sandboxAvailable: sandbox.available,
    sandboxUnavailableReason: sandbox.available ? undefined : `${sandbox.reason} ${sandbox.fix}`,
    rules: safety.rules,
    sessionApproved: safety.sessionApprovals.isCommandApproved(sessionKey),
  });
  const runWith = (choice: 'platform' | 'none'): GateOutcome =>
    choice === 'platform' && sandbox.available
      ? { kind: 'run', launcher: sandbox.launcher, sandboxed: policy.sandboxPolicy.type !== 'dangerFullAccess', sandboxNote: describeSandbox(ctx) }
      : { kind: 'run', launcher: identityLauncher, sandboxed: false, sandboxNote: null };

  switch (assessment.kind) {
    case 'run':
      return runWith(assessment.sandbox);
    case 'forbidden':
      ctx.emit({ method: 'warning', params: { threadId: ctx.threadId, message: `Weft refused to run \`${command.cmd}\`: ${assessment.reason}` } });
      return { kind: 'refused', output: `exec command rejected: ${assessment.reason}` };
    case 'ask': {
      const decision = await askApproval(ctx, item, assessment.reason, assessment.proposedPrefix);
      switch (decision.kind) {
        case 'accept':
          return runWith(assessment.sandboxIfApproved);
        case 'acceptForSession':
          safety.sessionApprovals.approveCommand({ ...sessionKey, unsandboxed: assessment.sandboxIfApproved === 'none' });
          return runWith(assessment.sandboxIfApproved);
        case 'amend':
          await safety.rules.add({ pattern: decision.prefix, decision: 'allow' });
          return runWith(assessment.sandboxIfApproved);
        case 'decline':
          return { kind: 'refused', output: 'exec command rejected by user' };
      }
    }
  }
}

type Decision = { kind: 'accept' } | { kind: 'acceptForSession' } | { kind: 'amend'; prefix: string[] } | { kind: 'decline' };

/** Asks the person; `cancel` interrupts the whole turn. An unreadable answer counts as decline. */
async function askApproval(ctx: ToolContext, item: CommandExecutionItem, reason: string, proposedPrefix: string[] | null): Promise<Decision> {
  const raw = await ctx.sendRequest(
    {
      method: 'item/commandExecution/requestApproval',
      params: {
        threadId: ctx.threadId,
        turnId: ctx.turnId,
        itemId: item.id,
        reason,
        command: item.command,
        cwd: item.cwd,
        commandActions: item.commandActions,
        proposedExecpolicyAmendment: proposedPrefix,
      },
    },
    ctx.signal,
  );
  const parsed = ServerRequests['item/commandExecution/requestApproval'].result.safeParse(raw);
  if (!parsed.success) return { kind: 'decline' };
  const d = parsed.data.decision;
  if (typeof d === 'object') return { kind: 'amend', prefix: d.acceptWithExecpolicyAmendment.execpolicy_amendment };
  switch (d) {
    case 'accept':
      return { kind: 'accept' };
    case 'acceptForSession':
      return { kind: 'acceptForSession' };
    case 'decline':
      return { kind: 'decline' };
    case 'cancel':
      ctx.cancelTurn?.();
      throw abortError(ctx.signal);
  }
}

/**
 * After a sandboxed run failed: when the sandbox probably caused it, the approval policy decides
 * between telling the model (with an explanation it can act on) and rerunning unsandboxed.
 */
export async function afterSandboxedRun(
  ctx: ToolContext,
  item: CommandExecutionItem,
  command: GatedCommand,
  result: ExecResult,
): Promise<{ kind: 'done'; note: string | null } | { kind: 'rerun' }> {
  const { safety, policy } = ctx;
  if (!safety || !policy || result.aborted || result.exitCode === null) return { kind: 'done', note: null };
  const networkDisabled = policy.sandboxPolicy.type === 'readOnly' || (policy.sandboxPolicy.type === 'workspaceWrite' && policy.sandboxPolicy.networkAccess !== true);
  if (!isLikelySandboxDenied({ sandboxed: true, exitCode: result.exitCode, output: result.output, networkDisabled })) return { kind: 'done', note: null };
  const key = { script: command.cmd, cwd: command.workdir, unsandboxed: true };
  const retry = retryAfterDenial(policy.approvalPolicy, safety.sessionApprovals.isCommandApproved(key));
  switch (retry.kind) {
    case 'report':
      return { kind: 'done', note: denialNote(ctx) };
    case 'rerun':
      return { kind: 'rerun' };
    case 'ask': {
      const decision = await askApproval(ctx, item, retry.reason, null);
      if (decision.kind === 'decline') return { kind: 'done', note: denialNote(ctx) };
      if (decision.kind === 'acceptForSession') safety.sessionApprovals.approveCommand(key);
      if (decision.kind === 'amend') await safety.rules.add({ pattern: decision.prefix, decision: 'allow' });
      return { kind: 'rerun' };
    }
  }
}

/** The sandbox in words, for the model. */
function describeSandbox(ctx: ToolContext): string | null {
  const p = ctx.policy?.sandboxPolicy;
  if (!p) return null;
  switch (p.type) {
    case 'dangerFullAccess':
      return null;
    case 'readOnly':
      return `read-only sandbox: no file may be written and the network is ${p.networkAccess === true ? 'on' : 'off'}`;
    case 'workspaceWrite':
      return `workspace-write sandbox: files may be written only under ${[ctx.cwd, ...(p.writableRoots ?? [])].join(', ')} (and temp folders), not in .git/.weft/.agents; the network is ${p.networkAccess === true ? 'on' : 'off'}`;
  }
}

function denialNote(ctx: ToolContext): string {
  const sandbox = describeSandbox(ctx) ?? 'the sandbox';
  const escalate =
    ctx.policy?.approvalPolicy === 'on-request'
      ? ' If the command truly needs more access, run it again with sandbox_permissions: "require_escalated" and a one-sentence justification; the user will be asked.'
      : ctx.policy?.approvalPolicy === 'never'
        ? ' Approvals are off in this session (approval policy "never"), so it cannot be run outside the sandbox: find another way or report it to the user.'
        : '';
  return `Note: this command ran in Weft's ${sandbox}, which probably blocked it.${escalate}`;
}
