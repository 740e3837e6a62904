// apply_patch from text to disk: parse, plan every hunk, check the paths may be written, then commit. All
// or nothing: any failure leaves every file as it was and explains itself in words meant for the model.

import { resolve } from 'node:path';
import { Slicer, UNPACED } from '../../util/slicer';
import { PatchCommitError, commitPlan, type CommitOptions } from './apply';
import { extractApplyPatchInvocation } from './intercept';
import { PatchParseError, parsePatchPaced } from './parse';
import { PatchApplyError, planPatch } from './plan';
import type { PatchPlan } from './plan';

export type { CommitOptions } from './apply';
export { fileChangesOf } from './diff';
export { extractApplyPatchInvocation } from './intercept';
export { planPatch, withDeclinedHunks } from './plan';
export type { Chunk, FileHunk } from './parse';
export type { PatchPlan } from './plan';

export interface ApplyPatchOptions {
  /** Directory that relative paths in the patch are resolved against. */
  cwd: string;
  /** Returns why the absolute path may not be written (e.g. outside the writable roots), or null if it may. */
  isWritable?: (absPath: string) => string | null;
  /** Asked again at write time about each resolved path (see CommitOptions). */
  mayWrite?: (realPath: string) => string | null;
  /**
   * The process serves nothing else (`weft apply-patch`): the work is not paced and files are read and
   * written without the thread pool (see PlanOptions and CommitOptions).
   */
  blocking?: boolean;
}

/** Past this size a patch's text took a while to receive and decode. */
const BIG_PATCH_CHARS = 256 * 1024;

export type ApplyPatchOutcome = { ok: true; output: string; plan: PatchPlan } | { ok: false; output: string };
export type PreparePatchOutcome = { ok: true; plan: PatchPlan } | { ok: false; output: string };

/** `Success. Updated the following files:` then `A`, `M` (a move shows its destination), `D` lines, each
 * group in patch order, paths as written in the patch. */
export function summarizeSuccess(plan: PatchPlan): string {
  const lines = ['Success. Updated the following files:'];
  for (const file of plan.files) if (file.kind === 'add') lines.push(`A ${file.displayPath}`);
  for (const file of plan.files)
    if (file.kind === 'update') lines.push(`M ${file.displayMovePath ?? file.displayPath}`);
  for (const file of plan.files) if (file.kind === 'delete') lines.push(`D ${file.displayPath}`);
  return lines.join('\n') + '\n';
}

function failureText(error: unknown): string {
  if (error instanceof PatchParseError || error instanceof PatchApplyError || error instanceof PatchCommitError) {
    return error.message;
  }
  const detail = error instanceof Error ? error.message : String(error);
  return `apply_patch failed unexpectedly: ${detail}`;
}

/**
 * Everything before writing: unwraps an `apply_patch <<'EOF'` script or a bare heredoc, parses, plans, and
 * asks isWritable about every path the plan would write. Never throws.
 */
export async function preparePatchText(text: string, opts: ApplyPatchOptions): Promise<PreparePatchOutcome> {
  try {
    // A big patch arrives in a big event, whose parsing held the event loop just now: give it back first.
    const blocking = opts.blocking === true;
    const pacer = blocking ? UNPACED : new Slicer();
    if (text.length > BIG_PATCH_CHARS) await pacer.pause();
    let cwd = opts.cwd;
    let body = text;
    const invocation = extractApplyPatchInvocation(text.trim());
    if (invocation) {
      body = invocation.patch;
      if (invocation.workdir !== null) cwd = resolve(cwd, invocation.workdir);
    }
    await pacer.pace();
    const patch = await parsePatchPaced(body, pacer);
    if (patch.hunks.length === 0) return { ok: false, output: 'No files were modified.' };
    const plan = await planPatch(patch, { cwd, pacer, blocking });
    if (opts.isWritable) {
      const refusals: string[] = [];
      for (const file of plan.files) {
        const targets = [{ absPath: file.path, shown: file.displayPath }];
        if (file.movePath !== null)
          targets.push({ absPath: file.movePath, shown: file.displayMovePath ?? file.movePath });
        for (const { absPath, shown } of targets) {
          const reason = opts.isWritable(absPath);
          if (reason !== null) refusals.push(`Refused to write ${shown}: ${reason}`);
        }
      }
      if (refusals.length > 0) return { ok: false, output: `${refusals.join('\n')}\nNo files were changed.` };
    }
    return { ok: true, plan };
  } catch (error) {
    return { ok: false, output: failureText(error) };
  }
}

/** Writes a prepared (and possibly reviewed) plan. Never throws. */
export async function commitPreparedPlan(plan: PatchPlan, options: CommitOptions = {}): Promise<ApplyPatchOutcome> {
  try {
    await commitPlan(plan, options);
    return { ok: true, output: summarizeSuccess(plan), plan };
  } catch (error) {
    return { ok: false, output: failureText(error) };
  }
}

/** Applies a patch all or nothing. Never throws: bad patches, missing files and refusals are outcomes. */
export async function applyPatchText(text: string, opts: ApplyPatchOptions): Promise<ApplyPatchOutcome> {
  const prepared = await preparePatchText(text, opts);
  if (!prepared.ok) return prepared;
  return commitPreparedPlan(prepared.plan, { mayWrite: opts.mayWrite, blocking: opts.blocking });
}
