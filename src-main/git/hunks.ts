// Unified diffs as git prints them, split into a file header and hunks, and patches rebuilt from a
// chosen subset of hunks (for `git apply`).
import type { GitHunk } from '../../src-preload/protocol';

export interface ParsedHunk extends GitHunk {
  /** The hunk's text: its `@@` line and body, each line ending in `\n`. */
  text: string;
}

export interface ParsedFileDiff {
  /** Everything before the first hunk (`diff --git`, `index`, `---`, `+++`…). */
  header: string;
  hunks: ParsedHunk[];
  binary: boolean;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Splits one file's unified diff. Lines keep their endings; a diff without hunks has an empty list. */
export function parseFileDiff(diff: string): ParsedFileDiff {
  const lines = diff.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  let header = '';
  const hunks: ParsedHunk[] = [];
  let current: ParsedHunk | null = null;
  let binary = false;
  for (const line of lines) {
    const m = HUNK_HEADER.exec(line);
    if (m) {
      current = {
        index: hunks.length,
        header: line.replace(/\n$/, ''),
        oldStart: Number(m[1]),
        oldLines: m[2] === undefined ? 1 : Number(m[2]),
        newStart: Number(m[3]),
        newLines: m[4] === undefined ? 1 : Number(m[4]),
        text: line.endsWith('\n') ? line : `${line}\n`,
      };
      hunks.push(current);
    } else if (current) {
      current.text += line.endsWith('\n') ? line : `${line}\n`;
    } else {
      if (line.startsWith('Binary files ') || line.startsWith('GIT binary patch')) binary = true;
      header += line.endsWith('\n') ? line : `${line}\n`;
    }
  }
  return { header, hunks, binary };
}

/** A patch holding the header and only the hunks at `indices`; throws when an index is not there. */
export function patchWithHunks(parsed: ParsedFileDiff, indices: readonly number[]): string {
  const wanted = new Set(indices);
  for (const i of wanted) {
    if (parsed.hunks[i] === undefined) throw new Error(`the diff has no hunk ${i} (it has ${parsed.hunks.length})`);
  }
  // Hunks left out shift the later ones; `git apply` finds them by their context, so the header numbers
  // of the old side (which stay right) are what matters.
  return parsed.header + parsed.hunks.filter((h) => wanted.has(h.index)).map((h) => h.text).join('');
}

/** "+3 −1" for a list. */
export function lineSummary(patch: string): string {
  let added = 0;
  let removed = 0;
  for (const line of patch.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++')) added++;
    else if (line.startsWith('-') && !line.startsWith('---')) removed++;
  }
  return `+${added} −${removed}`;
}
