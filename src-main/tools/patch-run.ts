// One patch as a `fileChange` item: prepared and planned (nothing written) → review when policy says
// so (as a whole or hunk by hunk) → written → `turn/diff/updated`. Which paths may be written is judged
// against the thread's cwd and policy, whatever folder the patch's paths are relative to.
import { sendTurnDiff } from './turn-diff-send';
import type { FileChangeItem } from '../../src-preload/protocol';
import { assessPatch } from '../safety/approvals/policy';
import { isPathWritable, resolveForWrite, writableRootsFor } from '../safety/sandbox/writable-roots';
import { abortError, isAbortError } from '../util/abort';
import { errorMessage } from '../util/errors';
import { newItemId } from '../util/ids';
import { commitPreparedPlan, preparePatchText, fileChangesOf, withDeclinedHunks, type PatchPlan } from './apply-patch';
import type { SafetyServices } from './safety-services';
import { parseFileChangeApprovalAnswer } from './server-request-answer';
import type { ToolContext, ToolResult } from './types';

/** A patch review's verdict, from the approval flow (or "accept" when nothing needs asking). */
export interface PatchReview {
  decision: 'accept' | 'acceptForSession' | 'decline' | 'cancel';
  /** Hunks the reviewer declined, with their reasons. */
  declinedHunks: { path: string; hunk: number; comment?: string }[];
  /** Why the patch was refused without asking (policy), for the model. */
  reason?: string;
  /**
   * Paths the person approved (or approved earlier in the session), resolved through symlinks when
   * they approved them: writable at commit time even outside the writable roots.
   */
  approvedRealPaths: string[];
}

/**
 * Prepares, reviews and applies one patch, all or nothing. `baseDir` is the folder relative paths in the
 * patch are resolved against (the thread's cwd, or the workdir of an `exec_command` heredoc).
 */
export async function runPatchItem(
  safety: SafetyServices,
  ctx: ToolContext,
  text: string,
  baseDir: string,
): Promise<ToolResult> {
  const prepared = await preparePatchText(text, { cwd: baseDir });
  if (!prepared.ok) return { output: prepared.output, success: false };
  const item: FileChangeItem = {
    type: 'fileChange',
    id: newItemId(),
    changes: await fileChangesOf(prepared.plan),
    status: 'inProgress',
  };
  const { threadId, turnId } = ctx;
  ctx.emit({ method: 'item/started', params: { threadId, turnId, item } });
  const finish = (status: FileChangeItem['status'], extra: Partial<FileChangeItem>): void => {
    ctx.emit({ method: 'item/completed', params: { threadId, turnId, item: { ...item, status, ...extra } } });
  };

  let review: PatchReview;
  try {
    review = await reviewPatch(safety, ctx, item.id, prepared.plan);
  } catch (error) {
    if (ctx.signal.aborted || isAbortError(error)) finish('declined', { weftOutcome: 'cancelled' });
    else finish('failed', { weftOutcome: 'error', weftError: errorMessage(error) });
    throw error;
  }
  if (review.decision === 'cancel') {
    finish('declined', { weftOutcome: 'cancelled' });
    ctx.cancelTurn();
    throw abortError(ctx.signal);
  }
  if (review.decision === 'decline') {
    finish('declined', { weftOutcome: 'declined' });
    return { output: review.reason ? `patch rejected: ${review.reason}` : 'patch rejected by user', success: false };
  }
  const plan = review.declinedHunks.length > 0 ? withDeclinedHunks(prepared.plan, review.declinedHunks) : prepared.plan;
  if (plan.files.length === 0) {
    finish('declined', { weftOutcome: 'declined' });
    return {
      output: `The user declined every hunk of this patch; nothing was written.\n${describeDeclined(review)}`,
      success: false,
    };
  }
  // The wall time counts the writing only, never the wait for review.
  const started = Date.now();
  await ctx.turnDiff?.beforeChange(plan.files.map((f) => ({ path: f.path, movePath: f.movePath })));
  const outcome = await commitPreparedPlan(plan, { mayWrite: writeCheck(ctx, review, safety.protectedPaths) });
  const elapsed = Date.now() - started;
  if (!outcome.ok) {
    finish('failed', { weftOutcome: 'error', weftError: outcome.output.trim(), weftDurationMs: elapsed });
    return { output: outcome.output, success: false };
  }
  ctx.turnDiff?.afterChange(plan.files.map((f) => ({ path: f.path, kind: f.kind, movePath: f.movePath })));
  const weftDeclined = review.declinedHunks.map(({ path, hunk }) => ({ path, hunk }));
  finish('completed', {
    weftOutcome: 'applied',
    weftDurationMs: elapsed,
    ...(weftDeclined.length > 0 ? { weftDeclined } : {}),
  });
  if (ctx.turnDiff) await sendTurnDiff(ctx, ctx.turnDiff, true);
  const seconds = (elapsed / 1000).toFixed(1);
  const declined = review.declinedHunks.length > 0 ? `\n${describeDeclined(review)}` : '';
  return {
    output: `Exit code: 0\nWall time: ${seconds} seconds\nOutput:\n${outcome.output}${declined}`,
    success: true,
  };
}

/**
 * Whether a prepared patch may be written: automatically when every path is inside the writable
 * roots and the policy allows it; otherwise the person reviews it — as a whole or hunk by hunk.
 */
async function reviewPatch(
  safety: SafetyServices,
  ctx: ToolContext,
  itemId: string,
  plan: PatchPlan,
): Promise<PatchReview> {
  const { policy } = ctx;
  const paths = plan.files.flatMap((f) => (f.movePath ? [f.path, f.movePath] : [f.path]));
  const assessment = assessPatch({
    paths,
    approvalPolicy: policy.approvalPolicy,
    sandboxPolicy: policy.sandboxPolicy,
    cwd: ctx.cwd,
    sessionApproved: safety.sessionApprovals.areFilesApproved(paths),
    env: ctx.env,
    protectedPaths: safety.protectedPaths,
  });
  const approvedRealPaths = (): string[] => paths.map((p) => resolveForWrite(p)).filter((p): p is string => p !== null);
  if (assessment.kind === 'apply') {
    return {
      decision: 'accept',
      declinedHunks: [],
      approvedRealPaths: assessment.bySession ? approvedRealPaths() : [],
    };
  }
  if (assessment.kind === 'forbidden') {
    ctx.emit({
      method: 'warning',
      params: { threadId: ctx.threadId, message: `Weft refused a patch: ${assessment.reason}` },
    });
    return { decision: 'decline', declinedHunks: [], reason: assessment.reason, approvedRealPaths: [] };
  }
  const raw = await ctx.sendRequest(
    {
      method: 'item/fileChange/requestApproval',
      params: {
        threadId: ctx.threadId,
        turnId: ctx.turnId,
        itemId,
        reason: assessment.reason,
        grantRoot: assessment.grantRoot,
      },
    },
    ctx.signal,
  );
  const { decision, weftHunks } = parseFileChangeApprovalAnswer(raw);
  if (decision === 'cancel') return { decision: 'cancel', declinedHunks: [], approvedRealPaths: [] };
  const approved = approvedRealPaths();
  if (decision === 'acceptForSession') {
    safety.sessionApprovals.approveFiles(paths);
    if (assessment.grantRoot) safety.sessionApprovals.grantRoot(assessment.grantRoot);
  }
  // Hunks the reviewer did not list follow the overall decision.
  const listed = weftHunks ?? [];
  const declinedHunks = listed
    .filter((h) => h.decision === 'decline')
    .map((h) => ({ path: h.path, hunk: h.hunk, comment: h.comment }));
  if (decision === 'decline') {
    const accepted = listed.filter((h) => h.decision === 'accept');
    if (accepted.length === 0) return { decision: 'decline', declinedHunks: [], approvedRealPaths: [] };
    // Declined overall but some hunks explicitly accepted: apply just those.
    const acceptedKeys = new Set(accepted.map((h) => `${h.path}\0${h.hunk}`));
    const everyOther = plan.files.flatMap((f) =>
      f.hunks
        .filter((h) => !acceptedKeys.has(`${f.path}\0${h.index}`) && !acceptedKeys.has(`${f.displayPath}\0${h.index}`))
        .map((h) => ({ path: f.path, hunk: h.index })),
    );
    return {
      decision: 'accept',
      declinedHunks: [
        ...declinedHunks,
        ...everyOther.filter((h) => !declinedHunks.some((d) => d.path === h.path && d.hunk === h.hunk)),
      ],
      approvedRealPaths: approved,
    };
  }
  return { decision, declinedHunks, approvedRealPaths: approved };
}

/**
 * The check made again at write time on each resolved path: a folder swapped for a symlink after the
 * review must not carry a write outside what the policy or the person allowed.
 */
function writeCheck(
  ctx: ToolContext,
  review: PatchReview,
  protectedPaths: readonly string[],
): (realPath: string) => string | null {
  const policy = ctx.policy.sandboxPolicy;
  if (policy.type === 'dangerFullAccess') return () => null;
  const roots = writableRootsFor(policy, ctx.cwd, ctx.env, protectedPaths);
  const approved = new Set(review.approvedRealPaths);
  return (real) =>
    isPathWritable(real, roots) || approved.has(real)
      ? null
      : 'it resolves outside the writable folders (a symlink changed after the patch was checked)';
}

/** Tells the model exactly which hunks the person declined, and why, so it can adapt. */
function describeDeclined(review: PatchReview): string {
  const lines = [
    'The user reviewed the patch hunk by hunk and declined these hunks (they were NOT applied; the rest was):',
  ];
  for (const h of review.declinedHunks) {
    lines.push(`- ${h.path}, hunk ${h.hunk + 1}${h.comment ? `: "${h.comment}"` : ' (no comment)'}`);
  }
  return lines.join('\n');
}
