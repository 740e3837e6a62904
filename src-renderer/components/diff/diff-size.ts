// How big a diff is, and whether it is too big to put in a Monaco diff without being asked: Monaco lays out
// and diffs every line it is given, and tens of thousands of lines take seconds and hundreds of MB. Such a
// diff is summarised (files, hunks, lines added and removed) with a way to open it anyway. Pure.
import { WEFT_DIFF_MAX_CHARS, type WeftDiffCut } from '../../../src-preload/protocol';
import type { Hunk } from './hunks';

/** Past this many lines of hunks (context included), a diff is summarised until opened. */
export const BIG_DIFF_LINES = 5_000;

export interface DiffSize {
  files: number;
  /** Hunks of the whole diff, and how many of them the text at hand holds. */
  hunks: number;
  shownHunks: number;
  added: number;
  removed: number;
  /** Lines of the hunks at hand. */
  lines: number;
  /** The text at hand is the beginning of a longer diff (the server cut it). */
  cut: boolean;
}

/** The size of a diff from its parsed hunks, or from the server's totals when it was cut. */
export function diffSize(hunks: readonly Hunk[], cut: WeftDiffCut | null | undefined, files = 1): DiffSize {
  let added = 0;
  let removed = 0;
  let lines = 0;
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      const kind = line[0];
      if (kind === '\\') continue; // "\ No newline at end of file" belongs to the line before
      lines += 1;
      if (kind === '+') added += 1;
      else if (kind === '-') removed += 1;
    }
  }
  if (cut === null || cut === undefined)
    return { files, hunks: hunks.length, shownHunks: hunks.length, added, removed, lines, cut: false };
  return {
    files: cut.files,
    hunks: cut.hunks,
    shownHunks: cut.shownHunks,
    added: cut.added,
    removed: cut.removed,
    lines,
    cut: true,
  };
}

export function isBigDiff(size: DiffSize): boolean {
  return size.cut || size.lines > BIG_DIFF_LINES;
}

const count = (n: number, one: string, many: string): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** "1 file, 10,000 hunks, +10,000 −10,000 lines" and, for a cut diff, what of it is at hand. */
export function describeDiffSize(size: DiffSize): { totals: string; shown: string | null } {
  const totals = `${size.files > 1 ? `${count(size.files, 'file', 'files')}, ` : ''}${count(size.hunks, 'hunk', 'hunks')}, +${size.added.toLocaleString('en-US')} −${size.removed.toLocaleString('en-US')} lines`;
  const shown = size.cut
    ? `Only the first ${count(size.shownHunks, 'hunk', 'hunks')} came with it (a diff is cut at ${WEFT_DIFF_MAX_CHARS / 1024 / 1024} MiB).`
    : null;
  return { totals, shown };
}
