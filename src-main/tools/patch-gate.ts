import { ServerRequests } from '../../src-preload/protocol';
import { assessPatch } from '../safety/approvals/policy';
import { abortError } from '../util/abort';
import type { PatchPlan } from './apply-patch';
import type { PatchReview } from './apply-patch-tool';
import type { ToolContext } from './types';

/**
 * Whether a prepared patch may be written: automatically when every path is inside the writable
 * roots and the policy allows it; otherwise the person reviews it — as a whole or hunk by hunk.
 */
export async function reviewPatch(ctx: ToolContext, request: { itemId: string; plan: PatchPlan }): Promise<PatchReview> {
  const { safety, policy } = ctx;
  if (!safety || !policy) return { decision: 'accept', declinedHunks: [] };
  const paths = request.plan.files.flatMap((f) => (f.movePath ? [f.path, f.movePath] : [f.path]));
  const assessment = assessPatch({
    paths,
    approvalPolicy: policy.approvalPolicy,
    sandboxPolicy: policy.sandboxPolicy,
    cwd: ctx.cwd,
    sessionApproved: safety.sessionApprovals.areFilesApproved(paths),
    env: ctx.env,
  });
  if (assessment.kind === 'apply') return { decision: 'accept', declinedHunks: [] };
  if (assessment.kind === 'forbidden') {
    ctx.emit({ method: 'warning', params: { threadId: ctx.threadId, message: `Weft refused a patch: ${assessment.reason}` } });
    return { decision: 'decline', declinedHunks: [], reason: assessment.reason };
  }
  const raw = await ctx.sendRequest(
    {
      method: 'item/fileChange/requestApproval',
      params: { threadId: ctx.threadId, turnId: ctx.turnId, itemId: request.itemId, reason: assessment.reason, grantRoot: assessment.grantRoot },
    },
    ctx.signal,
  );
  const parsed = ServerRequests['item/fileChange/requestApproval'].result.safeParse(raw);
  if (!parsed.success) return { decision: 'decline', declinedHunks: [] };
  const { decision, weftHunks } = parsed.data;
  if (decision === 'cancel') {
    ctx.cancelTurn?.();
    throw abortError(ctx.signal);
  }
  if (decision === 'acceptForSession') {
    safety.sessionApprovals.approveFiles(paths);
    if (assessment.grantRoot) safety.sessionApprovals.grantRoot(assessment.grantRoot);
  }
  // Hunks the reviewer did not list follow the overall decision.
  const listed = weftHunks ?? [];
  const declinedHunks = listed.filter((h) => h.decision === 'decline').map((h) => ({ path: h.path, hunk: h.hunk, comment: h.comment }));
  if (decision === 'decline') {
    const accepted = listed.filter((h) => h.decision === 'accept');
    if (accepted.length === 0) return { decision: 'decline', declinedHunks: [] };
    // Declined overall but some hunks explicitly accepted: apply just those.
    const acceptedKeys = new Set(accepted.map((h) => `${h.path}\0${h.hunk}`));
    const everyOther = request.plan.files.flatMap((f) =>
      f.hunks.filter((h) => !acceptedKeys.has(`${f.path}\0${h.index}`) && !acceptedKeys.has(`${f.displayPath}\0${h.index}`)).map((h) => ({ path: f.path, hunk: h.index })),
    );
    return { decision: 'accept', declinedHunks: [...declinedHunks, ...everyOther.filter((h) => !declinedHunks.some((d) => d.path === h.path && d.hunk === h.hunk))] };
  }
  return { decision, declinedHunks };
}
