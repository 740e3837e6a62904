import { z } from 'zod';
import type { FileChangeItem, FileUpdateChange } from '../../src-preload/protocol';
import { newItemId } from '../util/ids';
import { commitPreparedPlan, preparePatchText, unifiedDiffForFile, withDeclinedHunks, type PatchPlan } from './apply-patch';
import { APPLY_PATCH_FUNCTION_DESCRIPTION, APPLY_PATCH_LARK_GRAMMAR } from './apply-patch-grammar';
import { functionTool, type ToolContext, type ToolHandler, type ToolResult } from './types';

/** How a patch is handed to the model: a freeform grammar tool (OpenAI models) or a JSON function. */
export type ApplyPatchToolType = 'freeform' | 'function';

export function applyPatchTool(type: ApplyPatchToolType): ToolHandler {
  if (type === 'freeform') {
    return {
      kind: 'custom',
      name: 'apply_patch',
      parallel: false,
      spec: {
        type: 'custom',
        name: 'apply_patch',
        description: 'Use the `apply_patch` tool to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.',
        format: { type: 'grammar', syntax: 'lark', definition: APPLY_PATCH_LARK_GRAMMAR },
      },
      handle: (input, _call, ctx) => runApplyPatch(input, ctx),
    };
  }
  const Args = z.object({ input: z.string() });
  return functionTool({
    name: 'apply_patch',
    parallel: false,
    args: Args,
    spec: {
      type: 'function',
      name: 'apply_patch',
      description: APPLY_PATCH_FUNCTION_DESCRIPTION,
      strict: false,
      parameters: {
        type: 'object',
        properties: { input: { type: 'string', description: 'The entire contents of the apply_patch command' } },
        required: ['input'],
        additionalProperties: false,
      },
    },
    handle: (args: z.output<typeof Args>, _call, ctx) => runApplyPatch(args.input, ctx),
  });
}

/** A patch review's verdict, from the approval flow (or "accept" when nothing needs asking). */
export interface PatchReview {
  decision: 'accept' | 'acceptForSession' | 'decline' | 'cancel';
  /** Hunks the reviewer declined, with their reasons. */
  declinedHunks: { path: string; hunk: number; comment?: string }[];
  /** Why the patch was refused without asking (policy), for the model. */
  reason?: string;
}

/**
 * Prepares, reviews and applies one patch, all or nothing, as a `fileChange` item:
 * `item/started` (with every file's diff) → review → write → `item/completed` → `turn/diff/updated`.
 */
export async function runApplyPatch(text: string, ctx: ToolContext): Promise<ToolResult> {
  const prepared = await preparePatchText(text, { cwd: ctx.cwd, isWritable: ctx.patchWritable });
  if (!prepared.ok) return { output: prepared.output, success: false };
  const item: FileChangeItem = { type: 'fileChange', id: newItemId(), changes: changesOf(prepared.plan), status: 'inProgress' };
  const { threadId, turnId } = ctx;
  ctx.emit({ method: 'item/started', params: { threadId, turnId, item } });
  const finish = (status: FileChangeItem['status'], declined: PatchReview['declinedHunks'] = []): void => {
    const weftDeclined = declined.map(({ path, hunk }) => ({ path, hunk }));
    ctx.emit({ method: 'item/completed', params: { threadId, turnId, item: { ...item, status, ...(weftDeclined.length > 0 ? { weftDeclined } : {}) } } });
  };

  let review: PatchReview;
  try {
    review = ctx.reviewPatch ? await ctx.reviewPatch({ itemId: item.id, plan: prepared.plan }) : { decision: 'accept', declinedHunks: [] };
  } catch (error) {
    finish('declined');
    throw error;
  }
  if (review.decision === 'decline' || review.decision === 'cancel') {
    finish('declined');
    return { output: review.reason ? `patch rejected: ${review.reason}` : 'patch rejected by user', success: false };
  }
  // Wall time counts the write only, not the review.
  const started = Date.now();
  const plan = review.declinedHunks.length > 0 ? withDeclinedHunks(prepared.plan, review.declinedHunks) : prepared.plan;
  if (plan.files.length === 0) {
    finish('declined');
    return { output: `The user declined every hunk of this patch; nothing was written.\n${describeDeclined(review)}`, success: false };
  }
  await ctx.turnDiff?.beforeChange(plan.files.map((f) => ({ path: f.path, movePath: f.movePath })));
  const outcome = await commitPreparedPlan(plan);
  if (!outcome.ok) {
    finish('failed');
    return { output: outcome.output, success: false };
  }
  ctx.turnDiff?.afterChange(plan.files.map((f) => ({ path: f.path, kind: f.kind, movePath: f.movePath })));
  finish('completed', review.declinedHunks);
  if (ctx.turnDiff) ctx.emit({ method: 'turn/diff/updated', params: { threadId, turnId, diff: await ctx.turnDiff.diff() } });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const declined = review.declinedHunks.length > 0 ? `\n${describeDeclined(review)}` : '';
  return { output: `Exit code: 0\nWall time: ${seconds} seconds\nOutput:\n${outcome.output}${declined}`, success: true };
}

function changesOf(plan: PatchPlan): FileUpdateChange[] {
  return plan.files.map((f) => ({
    path: f.path,
    kind: f.kind === 'update' ? { type: 'update', move_path: f.movePath } : { type: f.kind },
    diff: unifiedDiffForFile(f),
  }));
}

/** Tells the model exactly which hunks the person declined, and why, so it can adapt. */
function describeDeclined(review: PatchReview): string {
  const lines = ['The user reviewed the patch hunk by hunk and declined these hunks (they were NOT applied; the rest was):'];
  for (const h of review.declinedHunks) {
    lines.push(`- ${h.path}, hunk ${h.hunk + 1}${h.comment ? `: "${h.comment}"` : ' (no comment)'}`);
  }
  return lines.join('\n');
}
