/**
 * Undoing one hunk of a landed turn: the turn's changes to a file (before the turn → after it) are cut
 * into hunks as the turn's diff writes them (3 lines of context, changes at most 6 lines apart share a
 * hunk), and one hunk's lines are put back in the file as it is now. The lines the hunk changed are
 * found in the file now through a line diff of what the agent left and what is there (edits elsewhere
 * move them, nothing more); when someone changed those lines since, nothing is written (a conflict).
 * Pure: bytes in, bytes out.
 */
import { diffBytes, type ChangeBlock, type LineDiff } from '../util/line-diff';
import type { ByteLines } from '../util/line-diff/byte-lines';
import type { Pacer } from '../util/slicer';

/** A hunk as its `@@ -oldStart,oldLines +newStart,newLines @@` header numbers it (git's rules). */
export interface HunkRange {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
}

export interface TurnHunk {
  range: HunkRange;
  /** The changes the hunk holds, in lines of the two versions (0-based). */
  blocks: readonly ChangeBlock[];
}

const CONTEXT = 3;

/** A range's start as git writes it: an empty range starts at the line before it (0 for an empty file). */
const headerStart = (from: number, count: number): number => (count === 0 ? from : from + 1);

/** The hunks of `diff` as a unified diff with 3 lines of context writes them. */
export function hunksOf(diff: LineDiff): TurnHunk[] {
  const hunks: TurnHunk[] = [];
  const { blocks } = diff;
  let k = 0;
  while (k < blocks.length) {
    let last = k;
    for (;;) {
      const here = blocks[last];
      const next = blocks[last + 1];
      if (here === undefined || next === undefined || next.oldStart - (here.oldStart + here.oldCount) > 2 * CONTEXT)
        break;
      last++;
    }
    const group = blocks.slice(k, last + 1);
    k = last + 1;
    const first = group[0];
    const final = group[group.length - 1];
    if (first === undefined || final === undefined) continue;
    const oldFrom = Math.max(0, first.oldStart - CONTEXT);
    const oldTo = Math.min(diff.old.count, final.oldStart + final.oldCount + CONTEXT);
    const newFrom = first.newStart - (first.oldStart - oldFrom);
    const newTo = final.newStart + final.newCount + (oldTo - (final.oldStart + final.oldCount));
    hunks.push({
      range: {
        oldStart: headerStart(oldFrom, oldTo - oldFrom),
        oldLines: oldTo - oldFrom,
        newStart: headerStart(newFrom, newTo - newFrom),
        newLines: newTo - newFrom,
      },
      blocks: group,
    });
  }
  return hunks;
}

export function sameRange(a: HunkRange, b: HunkRange): boolean {
  return (
    a.oldStart === b.oldStart && a.oldLines === b.oldLines && a.newStart === b.newStart && a.newLines === b.newLines
  );
}

/** `@@ -1,5 +1,5 @@`, as the diff shows it. */
export function rangeText(range: HunkRange): string {
  const side = (start: number, count: number): string => (count === 1 ? `${start}` : `${start},${count}`);
  return `@@ -${side(range.oldStart, range.oldLines)} +${side(range.newStart, range.newLines)} @@`;
}

/**
 * The file now with the hunk's lines put back as they were before the turn; null when the lines the
 * hunk changed are not as the agent left them (someone changed them since, or the hunk is undone
 * already). `turn` is the diff before the turn → after it; `hunk` one of its hunks.
 */
export async function withHunkUndone(
  turn: LineDiff,
  hunk: TurnHunk,
  current: Buffer,
  pacer: Pacer,
): Promise<Buffer | null> {
  const first = hunk.blocks[0];
  const final = hunk.blocks[hunk.blocks.length - 1];
  if (first === undefined || final === undefined) return null;
  // The lines the hunk changed, in the file the agent left and in the file before the turn.
  const agentFrom = first.newStart;
  const agentTo = final.newStart + final.newCount;
  const baseFrom = first.oldStart;
  const baseTo = final.oldStart + final.oldCount;
  const since = await diffBytes(turn.new.bytes, current, pacer);
  // An edit since that lies wholly before the lines moves them; one wholly after leaves them; any other
  // touches them. Where the turn only removed lines (an empty range), an insertion at that very place
  // touches it too: the lines would not go back where they were.
  const empty = agentFrom === agentTo;
  let shift = 0;
  for (const block of since.blocks) {
    const from = block.oldStart;
    const to = block.oldStart + block.oldCount;
    if (to <= agentFrom && (!empty || from < agentFrom)) {
      shift += block.newCount - block.oldCount;
      continue;
    }
    if (from >= agentTo && (!empty || to > agentTo)) break;
    return null;
  }
  const now = since.new;
  const at = agentFrom + shift;
  const count = agentTo - agentFrom;
  if (!sameLines(turn.new, agentFrom, now, at, count)) return null;
  const base = turn.old;
  return Buffer.concat([
    now.bytes.subarray(0, now.start(at)),
    base.bytes.subarray(base.start(baseFrom), base.start(baseTo)),
    now.bytes.subarray(now.start(at + count)),
  ]);
}

function sameLines(a: ByteLines, aFrom: number, b: ByteLines, bFrom: number, count: number): boolean {
  return count === 0 || (bFrom + count <= b.count && a.sameRun(aFrom, b, bFrom, count));
}
