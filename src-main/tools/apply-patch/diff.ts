// Unified diffs of planned files, built from the planned hunks (no diff algorithm): each hunk with up to
// DIFF_CONTEXT lines of surrounding context. Hunks are planned far enough apart that contexts never overlap,
// so the n-th `@@` of a file's diff is always file.hunks[n]. The new side lacks a final line break only
// where the old side does and no hunk reaches the end, so only old lines ever need the no-newline marker.

import { DIFF_CONTEXT, hunkStart } from './hunks';
import type { PlannedFile } from './plan';
import { splitText } from './text';

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
 * renames have headers only; a file that is not text gets a `Binary files … differ` line.
 */
export function unifiedDiffForFile(file: PlannedFile): string {
  const oldLabel = file.kind === 'add' && file.oldContent === null ? '/dev/null' : label('a/', file.displayPath);
  const newLabel = file.kind === 'delete' ? '/dev/null' : label('b/', file.displayMovePath ?? file.displayPath);
  if (file.kind === 'delete' && file.oldContent === null) return `Binary files ${oldLabel} and ${newLabel} differ\n`;

  const old = splitText(file.oldContent ?? '');
  const oldLast = old.finalNewline ? -1 : old.count - 1;
  const out: string[] = [`--- ${oldLabel}`, `+++ ${newLabel}`];
  let delta = 0;
  for (const hunk of file.hunks) {
    const start = hunkStart(hunk);
    const end = start + hunk.oldCount;
    const before = Math.max(0, start - DIFF_CONTEXT);
    const after = Math.min(old.count, end + DIFF_CONTEXT);
    const oldCount = start - before + hunk.oldCount + (after - end);
    const newCount = start - before + hunk.newCount + (after - end);
    out.push(`@@ -${range(before, oldCount)} +${range(before + delta, newCount)} @@`);
    const context = (from: number, to: number): void => {
      for (let k = from; k < to; k++) {
        out.push(` ${old.line(k)}`);
        if (k === oldLast) out.push(NO_NEWLINE);
      }
    };
    context(before, start);
    let oldIndex = start;
    let oldInHunk = 0;
    let newInHunk = 0;
    for (const kind of hunk.ops) {
      if (kind === '+') {
        out.push(`+${hunk.newLines[newInHunk] ?? ''}`);
        newInHunk++;
        continue;
      }
      out.push(`${kind === ' ' ? ' ' : '-'}${hunk.oldLines[oldInHunk] ?? ''}`);
      if (oldIndex === oldLast) out.push(NO_NEWLINE);
      oldInHunk++;
      oldIndex++;
      if (kind === ' ') newInHunk++;
    }
    context(end, after);
    delta += hunk.newCount - hunk.oldCount;
  }
  return out.join('\n') + '\n';
}
