/**
 * A patch's files as ACP diffs (`{path, oldText, newText}`, absolute paths). While a patch is live
 * the whole file is given: its text on disk with the patch applied (or, if it already landed, undone),
 * so the editor shows the change in place. When that is not possible (a replayed thread, whose files
 * may have changed since; a diff cut to WEFT_DIFF_MAX_CHARS) the diff carries the patch's hunks alone.
 */
import { isAbsolute, resolve } from 'node:path';
import { applyPatch, reversePatch, type StructuredPatch } from 'diff';
import { parseFileDiff } from '../../../src-preload/diff/unified-diff';
import type { FileUpdateChange } from '../../../src-preload/protocol';

export interface FileDiff {
  path: string;
  oldText: string | null;
  newText: string;
}

export async function fileChangeDiffs(
  changes: readonly FileUpdateChange[],
  cwd: string,
  readText: (path: string) => Promise<string | null>,
  options: { live: boolean },
): Promise<FileDiff[]> {
  const diffs: FileDiff[] = [];
  for (const change of changes) {
    const path = isAbsolute(change.path) ? change.path : resolve(cwd, change.path);
    const patch = parseOne(change.diff);
    const fragments = patch ? hunkTexts(patch) : { oldText: '', newText: '' };
    switch (change.kind.type) {
      case 'add':
        diffs.push({ path, oldText: null, newText: fragments.newText });
        break;
      case 'delete':
        diffs.push({ path, oldText: fragments.oldText, newText: '' });
        break;
      case 'update': {
        // A cut diff (`weftDiffCut`) holds only the first hunks: applied to the file it would show a
        // change that was never made, so its hunks alone are given.
        const whole =
          options.live && patch && change.weftDiffCut === undefined ? await wholeFile(path, patch, readText) : null;
        diffs.push({ path, ...(whole ?? fragments) });
        break;
      }
    }
  }
  return diffs;
}

function parseOne(diff: string): StructuredPatch | null {
  const file = parseFileDiff(diff);
  return file.problem === undefined ? file : null;
}

/** The file before and after, if the patch fits the file on disk one way or the other. */
async function wholeFile(
  path: string,
  patch: StructuredPatch,
  readText: (path: string) => Promise<string | null>,
): Promise<{ oldText: string; newText: string } | null> {
  const current = await readText(path);
  if (current === null || patch.hunks.length === 0) return null;
  const applied = applyPatch(current, patch);
  if (applied !== false) return { oldText: current, newText: applied };
  const undone = applyPatch(current, reversePatch(patch));
  if (undone !== false) return { oldText: undone, newText: current };
  return null;
}

/** The old and new sides of the hunks: context and removed lines, context and added lines. */
function hunkTexts(patch: StructuredPatch): { oldText: string; newText: string } {
  const oldLines: string[] = [];
  const newLines: string[] = [];
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      const mark = line[0];
      const text = line.slice(1);
      if (mark === ' ' || mark === '-') oldLines.push(text);
      if (mark === ' ' || mark === '+') newLines.push(text);
    }
  }
  const join = (lines: string[]): string => (lines.length === 0 ? '' : `${lines.join('\n')}\n`);
  return { oldText: join(oldLines), newText: join(newLines) };
}
