// Unified diffs of planned files, built from the planned hunks (no diff algorithm, so the cost follows the
// patch, not the file): each hunk with up to DIFF_CONTEXT lines of surrounding context. Hunks are planned far
// enough apart that contexts never overlap, so the n-th `@@` of a file's diff is always file.hunks[n]. The
// new side lacks a final line break only where the old side does and no hunk reaches the end, so only old
// lines ever need the no-newline marker. The text is cut to WEFT_DIFF_MAX_CHARS (see DiffText): a patch of
// 10,000 hunks writes the first few thousand and counts the rest.

import type { FileUpdateChange, WeftDiffCut } from '../../../src-preload/protocol';
import { DiffText, HunkLines, type HunkText } from '../../util/diff-cut';
import { Slicer, type Pacer } from '../../util/slicer';
import { DIFF_CONTEXT, hunkStart } from './hunks';
import { plannedOldLines, type PatchPlan, type PlannedFile } from './plan';
import type { TextLines } from './text';

const NO_NEWLINE = '\\ No newline at end of file';

function label(prefix: 'a/' | 'b/', path: string): string {
  const slashed = path.replaceAll('\\', '/');
  return slashed.startsWith('/') ? slashed : prefix + slashed;
}

function range(start0: number, count: number): string {
  return `${count === 0 ? start0 : start0 + 1},${count}`;
}

/**
 * `--- a/<path>` / `+++ b/<path>` (`/dev/null` for the missing side of an add or delete; the destination on
 * the `+++` line of a move) followed by the hunks. Paths are as written in the patch. Empty files and pure
 * renames have headers only; a file that is not text gets a `Binary files … differ` line. Cut to
 * `maxChars` (default WEFT_DIFF_MAX_CHARS), with `cut` giving the totals when it was.
 */
export function unifiedDiffForFile(file: PlannedFile, maxChars?: number): { diff: string; cut?: WeftDiffCut } {
  const steps = diffSteps(file, maxChars);
  for (let step = steps.next(); ; step = steps.next()) if (step.done === true) return step.value;
}

/** unifiedDiffForFile, pausing between hunks when `pacer` says so (1 MiB of text is tens of ms to write). */
async function unifiedDiffPaced(file: PlannedFile, pacer: Pacer): Promise<{ diff: string; cut?: WeftDiffCut }> {
  const steps = diffSteps(file, undefined);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done === true) return step.value;
    if (pacer.due()) await pacer.pause();
  }
}

/** The diff, yielding every 64 hunks. */
function* diffSteps(
  file: PlannedFile,
  maxChars: number | undefined,
): Generator<void, { diff: string; cut?: WeftDiffCut }, void> {
  const out = new DiffText(maxChars);
  const oldLabel = file.kind === 'add' && file.oldContent === null ? '/dev/null' : label('a/', file.displayPath);
  const newLabel = file.kind === 'delete' ? '/dev/null' : label('b/', file.displayMovePath ?? file.displayPath);
  if (file.kind === 'delete' && file.oldContent === null) {
    out.file([`Binary files ${oldLabel} and ${newLabel} differ`]);
    return out.finish();
  }
  out.file([`--- ${oldLabel}`, `+++ ${newLabel}`]);
  // Only the lines of hunks shown are ever read, so a file is split into lines only while text is kept.
  let old: TextLines | null = null;
  const oldLines = (): TextLines => (old ??= plannedOldLines(file));
  let delta = 0;
  for (const [n, hunk] of file.hunks.entries()) {
    if ((n & 63) === 63) yield;
    let added = 0;
    let removed = 0;
    for (const kind of hunk.ops) {
      if (kind === '+') added++;
      else if (kind === '-') removed++;
    }
    const start = hunkStart(hunk);
    const end = start + hunk.oldCount;
    const shift = delta;
    delta += hunk.newCount - hunk.oldCount;
    if (!out.open) {
      out.countHunk(added, removed);
      continue;
    }
    const lines = oldLines();
    const oldLast = lines.finalNewline ? -1 : lines.count - 1;
    const before = Math.max(0, start - DIFF_CONTEXT);
    const after = Math.min(lines.count, end + DIFF_CONTEXT);
    const header = (oldCount: number, newCount: number): string =>
      `@@ -${range(before, oldCount)} +${range(before + shift, newCount)} @@`;
    const render = (budget: number): HunkText => {
      const body = new HunkLines(budget);
      const context = (from: number, to: number): void => {
        for (let k = from; k < to && !body.full; k++) {
          body.push(` ${lines.line(k)}`);
          if (k === oldLast) body.push(NO_NEWLINE);
        }
      };
      context(before, start);
      let oldIndex = start;
      let oldInHunk = 0;
      let newInHunk = 0;
      for (const kind of hunk.ops) {
        if (body.full) break;
        if (kind === '+') {
          body.push(`+${hunk.newLines[newInHunk] ?? ''}`);
          newInHunk++;
          continue;
        }
        body.push(`${kind === ' ' ? ' ' : '-'}${hunk.oldLines[oldInHunk] ?? ''}`);
        if (oldIndex === oldLast) body.push(NO_NEWLINE);
        oldInHunk++;
        oldIndex++;
        if (kind === ' ') newInHunk++;
      }
      context(end, after);
      const oldCount = start - before + hunk.oldCount + (after - end);
      const newCount = start - before + hunk.newCount + (after - end);
      return body.text(header(oldCount, newCount));
    };
    out.hunk(added, removed, render, header);
  }
  return out.finish();
}

/**
 * A plan's files as the `changes` of a `fileChange` item, each diff cut to WEFT_DIFF_MAX_CHARS, pausing
 * between files when `pacer` says so.
 */
export async function fileChangesOf(plan: PatchPlan, pacer: Pacer = new Slicer()): Promise<FileUpdateChange[]> {
  const changes: FileUpdateChange[] = [];
  for (const file of plan.files) {
    await pacer.pace();
    const { diff, cut } = await unifiedDiffPaced(file, pacer);
    changes.push({
      path: file.path,
      kind: file.kind === 'update' ? { type: 'update', move_path: file.movePath } : { type: file.kind },
      diff,
      ...(cut === undefined ? {} : { weftDiffCut: cut }),
    });
  }
  return changes;
}
