// A line diff of two versions of a file given as bytes, written as git-style unified hunks: the cost follows
// the size of the change rather than the size of the file (see align.ts), the work gives the event loop
// back as it goes (a Pacer), and the text is cut to what a message may carry (DiffText).
import { HunkLines, type DiffText, type HunkText } from '../diff-cut';
import type { Pacer } from '../slicer';
import { alignLines, type ChangeBlock } from './align';
import { ByteLines } from './byte-lines';

export type { ChangeBlock } from './align';

export interface LineDiff {
  readonly old: ByteLines;
  readonly new: ByteLines;
  /** The changes in order; the lines between them are equal. */
  readonly blocks: readonly ChangeBlock[];
}

const NO_NEWLINE = '\\ No newline at end of file';

/** The changes that turn `oldBytes` into `newBytes`, line by line. */
export async function diffBytes(oldBytes: Buffer, newBytes: Buffer, pacer: Pacer): Promise<LineDiff> {
  const old = await ByteLines.of(oldBytes, pacer);
  const now = await ByteLines.of(newBytes, pacer);
  return { old, new: now, blocks: await alignLines(old, now, pacer) };
}

/** The changes each hunk holds: changes at most `2 * context` equal lines apart share one. */
function* hunkGroups(
  blocks: readonly ChangeBlock[],
  context: number,
): Generator<{ group: readonly ChangeBlock[]; added: number; removed: number }> {
  let k = 0;
  while (k < blocks.length) {
    let last = k;
    while (last + 1 < blocks.length) {
      const here = blocks[last];
      const next = blocks[last + 1];
      if (here === undefined || next === undefined || next.oldStart - (here.oldStart + here.oldCount) > 2 * context)
        break;
      last++;
    }
    const group = blocks.slice(k, last + 1);
    k = last + 1;
    let added = 0;
    let removed = 0;
    for (const block of group) {
      added += block.newCount;
      removed += block.oldCount;
    }
    yield { group, added, removed };
  }
}

/** Counts the hunks `writeHunks` would add, for a diff whose text is no longer kept (`out.open` is false). */
export function countHunks(blocks: readonly ChangeBlock[], out: DiffText, context = 3): void {
  for (const { added, removed } of hunkGroups(blocks, context)) out.countHunk(added, removed);
}

/** The diff of two versions whose changes are known already (from an earlier `diffBytes` of the same bytes). */
export async function diffKnown(
  oldBytes: Buffer,
  newBytes: Buffer,
  blocks: readonly ChangeBlock[],
  pacer: Pacer,
): Promise<LineDiff> {
  return { old: await ByteLines.of(oldBytes, pacer), new: await ByteLines.of(newBytes, pacer), blocks };
}

/**
 * The diff of a file that did not exist before, from its first bytes and the count of all its lines: one
 * hunk of added lines, rendered from `head` (which must hold enough to fill what can be shown; see
 * scanNewFile), counted from `lines`.
 */
export async function diffCreated(head: Buffer, lines: number, pacer: Pacer): Promise<LineDiff> {
  return {
    old: await ByteLines.of(Buffer.alloc(0), pacer),
    new: await ByteLines.of(head, pacer),
    blocks: lines > 0 ? [{ oldStart: 0, oldCount: 0, newStart: 0, newCount: lines }] : [],
  };
}

/** A hunk range as git writes it: an empty range starts at the line before it (0 for an empty file). */
function range(start: number, count: number): string {
  if (count === 0) return `${Math.max(0, start - 1)},0`;
  return count === 1 ? `${start}` : `${start},${count}`;
}

/**
 * Adds the diff's hunks to `out`, each with `context` equal lines around its changes (changes at most
 * twice that far apart share a hunk), as git and jsdiff write them.
 */
export async function writeHunks(diff: LineDiff, out: DiffText, pacer: Pacer, context = 3): Promise<void> {
  const { old, new: now, blocks } = diff;
  for (const { group, added, removed } of hunkGroups(blocks, context)) {
    if (!out.open) {
      out.countHunk(added, removed);
      continue;
    }
    const first = group[0];
    const final = group[group.length - 1];
    if (first === undefined || final === undefined) continue;
    const oldFrom = Math.max(0, first.oldStart - context);
    const oldTo = Math.min(old.count, final.oldStart + final.oldCount + context);
    const newFrom = first.newStart - (first.oldStart - oldFrom);
    const newTo = final.newStart + final.newCount + (oldTo - (final.oldStart + final.oldCount));
    const header = (oldCount: number, newCount: number): string =>
      `@@ -${range(oldFrom + 1, oldCount)} +${range(newFrom + 1, newCount)} @@`;
    const render = (budget: number): HunkText => {
      const lines = new HunkLines(budget);
      const oldLine = (index: number, prefix: ' ' | '-'): void => {
        lines.push(prefix + old.text(index));
        if (index === old.count - 1 && old.unterminated) lines.push(NO_NEWLINE);
      };
      let at = oldFrom;
      for (const block of group) {
        for (; at < block.oldStart && !lines.full; at++) oldLine(at, ' ');
        for (let r = 0; r < block.oldCount && !lines.full; r++) oldLine(block.oldStart + r, '-');
        for (let n = 0; n < block.newCount && !lines.full; n++) {
          const index = block.newStart + n;
          lines.push(`+${now.text(index)}`);
          if (index === now.count - 1 && now.unterminated) lines.push(NO_NEWLINE);
        }
        if (lines.full) break;
        at = block.oldStart + block.oldCount;
      }
      for (; at < oldTo && !lines.full; at++) oldLine(at, ' ');
      return lines.text(header(oldTo - oldFrom, newTo - newFrom));
    };
    out.hunk(added, removed, render, header);
    if (pacer.due()) await pacer.pause();
  }
}
