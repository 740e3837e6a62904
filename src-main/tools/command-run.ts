// One command as a `commandExecution` item: started → approval (when policy says so) → the sandbox is
// chosen → run → on a sandbox denial, the escalation path. The sandbox's writable roots come from the
// thread's cwd and the policy only: the `workdir` the model names is where the command starts, never
// what it may write.
import { commandApprovalDecisions, type CommandExecutionItem } from '../../src-preload/protocol';
import type { SandboxPolicy } from '../../src-preload/protocol';
import { assessCommand, retryAfterDenial, type CommandAssessment } from '../safety/approvals/policy';
import { parseShellScript } from '../safety/approvals/shell-parse';
import { isLikelySandboxDenied } from '../safety/sandbox/denial';
import { forgetBwrapProbe } from '../safety/sandbox/linux-bwrap';
import { identityLauncher } from '../safety/sandbox/launcher';
import { isPathWritable, writableRootsFor } from '../safety/sandbox/writable-roots';
import { abortError, isAbortError } from '../util/abort';
import { errorMessage } from '../util/errors';
import { newItemId } from '../util/ids';
import { parseCommandActions } from './command-actions';
import type { CommandLauncher, ExecResult } from './exec';
import type { SafetyServices } from './safety-services';
import { parseCommandApprovalAnswer, type CommandDecision } from './server-request-answer';
import type { CommandRequest, CommandRunner, ToolContext, ToolResult } from './types';

export type { CommandRequest, CommandRunner };

type Choice =
  | { kind: 'run'; launcher: CommandLauncher; sandboxed: boolean }
  | { kind: 'refused'; output: string; outcome: 'declined' }
  | { kind: 'cancelled' };

export async function runCommandItem(
  safety: SafetyServices,
  ctx: ToolContext,
  command: CommandRequest,
  run: CommandRunner,
): Promise<ToolResult> {
  const base: CommandExecutionItem = {
    type: 'commandExecution',
    id: newItemId(),
    command: command.cmd,
    cwd: command.workdir,
    processId: null,
    status: 'inProgress',
    commandActions: parseCommandActions(command.cmd),
    aggregatedOutput: null,
    exitCode: null,
    durationMs: null,
  };
  const { threadId, turnId } = ctx;
  ctx.emit({ method: 'item/started', params: { threadId, turnId, item: base } });
  /** Milliseconds spent running, summed over attempts; the wait for approval never counts. */
  let runMs = 0;
  let completed = false;
  const complete = (item: CommandExecutionItem): void => {
    if (completed) return;
    completed = true;
    ctx.emit({ method: 'item/completed', params: { threadId, turnId, item: { ...item, durationMs: runMs } } });
  };
  const onOutput = (delta: string): void => {
    ctx.emit({ method: 'item/commandExecution/outputDelta', params: { threadId, turnId, itemId: base.id, delta } });
  };
  const timed = async (launcher: CommandLauncher): Promise<ExecResult> => {
    const t0 = Date.now();
    try {
      return await run(onOutput, launcher);
    } finally {
      runMs += Date.now() - t0;
    }
  };
  const outsideNote = workdirNote(ctx, command.workdir, safety.protectedPaths);
  let result: ExecResult | null = null;
  let note: string | null = null;
  /** Output of a first, sandboxed attempt that was rerun without the sandbox. */
  let firstAttempt = '';
  try {
    const choice = await choose(safety, ctx, base, command);
    if (choice.kind === 'refused') {
      complete({ ...base, status: 'declined', weftOutcome: choice.outcome });
      return { output: choice.output, success: false };
    }
    if (choice.kind === 'cancelled') {
      complete({ ...base, status: 'declined', weftOutcome: 'cancelled' });
      ctx.cancelTurn();
      throw abortError(ctx.signal);
    }
    result = await timed(choice.launcher);
    if (choice.sandboxed && !result.aborted && result.exitCode !== null && result.exitCode !== 0) {
      // bwrap's own refusal (not the command's output): the machine changed since the probe said it works.
      if (/^bwrap: /m.test(result.output)) forgetBwrapProbe();
      const after = await afterSandboxedRun(safety, ctx, base, command, result);
      if (after.kind === 'cancelled') {
        complete({
          ...base,
          status: 'failed',
          weftOutcome: 'cancelled',
          aggregatedOutput: result.output,
          exitCode: result.exitCode,
        });
        ctx.cancelTurn();
        throw abortError(ctx.signal);
      }
      if (after.kind === 'rerun') {
        const marker =
          '\n[Weft: the sandbox blocked this command; running it again without the sandbox, as approved]\n';
        onOutput(marker);
        firstAttempt = result.output + marker;
        result = await timed(identityLauncher);
      } else {
        note = after.note;
      }
    }
  } catch (error) {
    if (ctx.signal.aborted || isAbortError(error)) {
      complete({
        ...base,
        status: 'failed',
        weftOutcome: 'stopped',
        aggregatedOutput: result === null ? null : firstAttempt + result.output,
      });
      throw error;
    }
    complete({
      ...base,
      status: 'failed',
      weftOutcome: 'error',
      weftError: errorMessage(error),
      aggregatedOutput: result === null ? null : firstAttempt + result.output,
    });
    throw error;
  }
  const notes = [note, outsideNote].filter((n): n is string => n !== null);
  const text = notes.length === 0 ? result.text : `${result.text}\n\n${notes.join('\n')}`;
  if (result.notStarted !== undefined) {
    complete({ ...base, status: 'failed', weftOutcome: 'error', weftError: result.notStarted, aggregatedOutput: '' });
    return { output: text, success: false };
  }
  const running = result.exitCode === null && !result.aborted;
  const done: CommandExecutionItem = {
    ...base,
    processId: result.sessionId === null ? null : String(result.sessionId),
    status: !result.aborted && (result.exitCode === null || result.exitCode === 0) ? 'completed' : 'failed',
    aggregatedOutput: firstAttempt + result.output,
    exitCode: result.exitCode,
    ...(result.aborted ? { weftOutcome: 'stopped' as const } : running ? {} : { weftOutcome: 'exited' as const }),
  };
  complete(done);
  return { output: text, success: done.status === 'completed', hookResponse: done.aggregatedOutput ?? '' };
}

/** Policy, rules, session memory and the sandbox decide how the command runs, asking when they say so. */
async function choose(
  safety: SafetyServices,
  ctx: ToolContext,
  item: CommandExecutionItem,
  command: CommandRequest,
): Promise<Choice> {
  const { policy } = ctx;
  // The thread's cwd, not the workdir: the model must not choose the sandbox's writable roots.
  const sandbox = await safety.sandboxFor(policy.sandboxPolicy, ctx.cwd, ctx.env);
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
  const runWith = async (choice: 'platform' | 'none', networkFor: string | null = null): Promise<Choice> => {
    if (choice === 'none' || !sandbox.available) return { kind: 'run', launcher: identityLauncher, sandboxed: false };
    const restricted = policy.sandboxPolicy.type !== 'dangerFullAccess';
    if (
      networkFor !== null &&
      policy.sandboxPolicy.type !== 'dangerFullAccess' &&
      policy.sandboxPolicy.networkAccess !== true
    ) {
      const withNetwork: SandboxPolicy = { ...policy.sandboxPolicy, networkAccess: true };
      const widened = await safety.sandboxFor(withNetwork, ctx.cwd, ctx.env);
      if (widened.available) return { kind: 'run', launcher: widened.launcher, sandboxed: restricted };
    }
    return { kind: 'run', launcher: sandbox.launcher, sandboxed: restricted };
  };

  switch (assessment.kind) {
    case 'run':
      return runWith(assessment.sandbox);
    case 'forbidden':
      ctx.emit({
        method: 'warning',
        params: { threadId: ctx.threadId, message: `Weft refused to run \`${command.cmd}\`: ${assessment.reason}` },
      });
      return { kind: 'refused', output: `exec command rejected: ${assessment.reason}`, outcome: 'declined' };
    case 'ask': {
      const decision = await askApproval(ctx, item, assessment.reason, assessment.proposedPrefix);
      switch (decision.kind) {
        case 'accept':
          return runWith(assessment.sandboxIfApproved);
        case 'allowNetwork':
          return runWith(assessment.sandboxIfApproved, decision.host);
        case 'acceptForSession':
          safety.sessionApprovals.approveCommand({
            ...sessionKey,
            unsandboxed: assessment.sandboxIfApproved === 'none',
          });
          return runWith(assessment.sandboxIfApproved);
        case 'amend':
          await safety.rules.add({ pattern: decision.prefix, decision: 'allow' });
          return runWith(assessment.sandboxIfApproved);
        case 'decline':
          return { kind: 'refused', output: 'exec command rejected by user', outcome: 'declined' };
        case 'cancel':
          return { kind: 'cancelled' };
      }
    }
  }
}

/** Asks the person; the answer is parsed here, and a malformed one is an error (MalformedAnswerError). */
async function askApproval(
  ctx: ToolContext,
  item: CommandExecutionItem,
  reason: string,
  proposedPrefix: string[] | null,
): Promise<CommandDecision> {
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
        availableDecisions: commandApprovalDecisions(proposedPrefix),
      },
    },
    ctx.signal,
  );
  return parseCommandApprovalAnswer(raw);
}

/**
 * After a sandboxed run failed: when the sandbox probably caused it, the approval policy decides
 * between telling the model (with an explanation it can act on) and rerunning unsandboxed.
 */
async function afterSandboxedRun(
  safety: SafetyServices,
  ctx: ToolContext,
  item: CommandExecutionItem,
  command: CommandRequest,
  result: ExecResult,
): Promise<{ kind: 'done'; note: string | null } | { kind: 'rerun' } | { kind: 'cancelled' }> {
  const { policy } = ctx;
  const sandboxPolicy = policy.sandboxPolicy;
  const networkDisabled =
    sandboxPolicy.type === 'readOnly' ||
    (sandboxPolicy.type === 'workspaceWrite' && sandboxPolicy.networkAccess !== true);
  if (!isLikelySandboxDenied({ sandboxed: true, exitCode: result.exitCode, output: result.output, networkDisabled }))
    return { kind: 'done', note: null };
  const key = { script: command.cmd, cwd: command.workdir, unsandboxed: true };
  const retry = retryAfterDenial(policy.approvalPolicy, safety.sessionApprovals.isCommandApproved(key));
  switch (retry.kind) {
    case 'report':
      return { kind: 'done', note: denialNote(ctx) };
    case 'rerun':
      return { kind: 'rerun' };
    case 'ask': {
      const decision = await askApproval(ctx, item, retry.reason, null);
      switch (decision.kind) {
        case 'decline':
          return { kind: 'done', note: denialNote(ctx) };
        case 'cancel':
          return { kind: 'cancelled' };
        case 'acceptForSession':
          safety.sessionApprovals.approveCommand(key);
          return { kind: 'rerun' };
        case 'amend':
          await safety.rules.add({ pattern: decision.prefix, decision: 'allow' });
          return { kind: 'rerun' };
        case 'accept':
        case 'allowNetwork':
          return { kind: 'rerun' };
      }
    }
  }
}

/** Why a workdir outside every writable root could not be written, for the model; null when it can. */
function workdirNote(ctx: ToolContext, workdir: string, protectedPaths: readonly string[]): string | null {
  const policy = ctx.policy.sandboxPolicy;
  if (policy.type === 'dangerFullAccess') return null;
  const roots = writableRootsFor(policy, ctx.cwd, ctx.env, protectedPaths);
  if (isPathWritable(workdir, roots)) return null;
  const where =
    roots.length === 0 ? 'nowhere (read-only sandbox)' : `only under ${roots.map((r) => r.root).join(', ')}`;
  return `Note: the workdir ${workdir} is outside the writable folders, so the command ran read-only there; files may be written ${where}.`;
}

/** The sandbox in words, for the model. */
function describeSandbox(ctx: ToolContext): string | null {
  const p = ctx.policy.sandboxPolicy;
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
    ctx.policy.approvalPolicy === 'on-request'
      ? ' If the command truly needs more access, run it again with sandbox_permissions: "require_escalated" and a one-sentence justification; the user will be asked.'
      : ctx.policy.approvalPolicy === 'never'
        ? ' Approvals are off in this session (approval policy "never"), so it cannot be run outside the sandbox: find another way or report it to the user.'
        : '';
  return `Note: this command ran in Weft's ${sandbox}, which probably blocked it.${escalate}`;
}
