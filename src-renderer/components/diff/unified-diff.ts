// Unified diffs as the core writes them (one file per fileChange entry; `diff --git` sections in a turn
// diff): parsing, applying a chosen subset of hunks to the original text, and rebuilding both sides from
// the hunks alone when the original file cannot be read. Pure.

export interface DiffLine {
  kind: ' ' | '-' | '+';
  text: string;
}

export interface Hunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  /** The `@@ … @@` line, including any section heading after it. */
  header: string;
  lines: DiffLine[];
  /** The old / new side's last line in this hunk has no final line break (`\ No newline at end of file`). */
  oldNoEol: boolean;
  newNoEol: boolean;
}

export interface FileDiff {
  /** Paths from the `---` / `+++` lines without `a/` `b/`; null for `/dev/null`. */
  oldPath: string | null;
  newPath: string | null;
  hunks: Hunk[];
  binary: boolean;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

function stripPrefix(path: string): string | null {
  const trimmed = path.split('\t')[0]?.trim() ?? '';
  if (trimmed === '/dev/null') return null;
  return trimmed.replace(/^[ab]\//, '');
}

/** Parses the diff of one file. Lines before the first `---` (e.g. `diff --git`, `index`) are skipped. */
export function parseFileDiff(text: string): FileDiff {
  const result: FileDiff = { oldPath: null, newPath: null, hunks: [], binary: false };
  let hunk: Hunk | null = null;
  let last: DiffLine['kind'] | null = null;
  for (const line of text.split('\n')) {
    const header = HUNK_HEADER.exec(line);
    if (header !== null) {
      hunk = {
        oldStart: Number(header[1]),
        oldCount: header[2] === undefined ? 1 : Number(header[2]),
        newStart: Number(header[3]),
        newCount: header[4] === undefined ? 1 : Number(header[4]),
        header: line,
        lines: [],
        oldNoEol: false,
        newNoEol: false,
      };
      result.hunks.push(hunk);
      last = null;
      continue;
    }
    if (hunk === null) {
      if (line.startsWith('--- ')) result.oldPath = stripPrefix(line.slice(4));
      else if (line.startsWith('+++ ')) result.newPath = stripPrefix(line.slice(4));
      else if (line.startsWith('Binary files ')) result.binary = true;
      continue;
    }
    const kind = line[0];
    if (kind === ' ' || kind === '-' || kind === '+') {
      hunk.lines.push({ kind, text: line.slice(1) });
      last = kind;
    } else if (line.startsWith('\\')) {
      if (last === '-' || last === ' ') hunk.oldNoEol = true;
      if (last === '+' || last === ' ') hunk.newNoEol = true;
    } else if (line === '') {
      // The split leaves an empty string after the final line break; a real empty context line is ' '.
    } else {
      hunk = null;
    }
  }
  return result;
}

/** One file's section of a multi-file (git-style) diff, such as a turn's aggregated diff. */
export interface DiffSection {
  path: string;
  text: string;
}

export function splitDiffByFile(text: string): DiffSection[] {
  const sections: DiffSection[] = [];
  let current: string[] | null = null;
  const push = (): void => {
    if (current === null) return;
    const body = current.join('\n');
    const parsed = parseFileDiff(body);
    const path = parsed.newPath ?? parsed.oldPath ?? /^diff --git a\/(.*?) b\//.exec(current[0] ?? '')?.[1] ?? 'file';
    sections.push({ path, text: body });
  };
  for (const line of text.split('\n')) {
    const starts =
      line.startsWith('diff --git ') ||
      (line.startsWith('--- ') && (current === null || current.some((l) => l.startsWith('@@'))));
    if (starts) {
      push();
      current = [line];
    } else if (current !== null) {
      current.push(line);
    }
  }
  push();
  return sections;
}

export function hunkStats(hunks: readonly Hunk[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.kind === '+') added += 1;
      else if (line.kind === '-') removed += 1;
    }
  }
  return { added, removed };
}

interface SplitText {
  lines: string[];
  finalNewline: boolean;
}

function splitText(text: string): SplitText {
  if (text === '') return { lines: [], finalNewline: false };
  const lines = text.split('\n');
  const finalNewline = lines[lines.length - 1] === '';
  if (finalNewline) lines.pop();
  return { lines, finalNewline };
}

function joinText(lines: readonly string[], finalNewline: boolean): string {
  if (lines.length === 0) return '';
  return lines.join('\n') + (finalNewline ? '\n' : '');
}

/** 0-based index of the first old line a hunk covers (for an empty old range: where it inserts). */
function oldIndex(hunk: Hunk): number {
  return hunk.oldCount === 0 ? hunk.oldStart : hunk.oldStart - 1;
}

/**
 * `original` with the hunks for which `include(index)` is true applied (all by default). Returns null when
 * the original does not match a hunk's old side (the file changed since the diff was made).
 */
export function applyHunks(
  original: string,
  hunks: readonly Hunk[],
  include: (index: number) => boolean = () => true,
): string | null {
  const source = splitText(original);
  const out: string[] = [];
  let cursor = 0;
  let finalNewline = source.finalNewline;
  for (const [index, hunk] of hunks.entries()) {
    if (!include(index)) continue;
    const start = oldIndex(hunk);
    if (start < cursor || start > source.lines.length) return null;
    out.push(...source.lines.slice(cursor, start));
    let position = start;
    for (const line of hunk.lines) {
      if (line.kind === '+') {
        out.push(line.text);
        continue;
      }
      if (source.lines[position] !== line.text) return null;
      if (line.kind === ' ') out.push(line.text);
      position += 1;
    }
    cursor = position;
    if (position === source.lines.length) finalNewline = !hunk.newNoEol;
  }
  out.push(...source.lines.slice(cursor));
  return joinText(out, out.length > 0 && finalNewline);
}

/**
 * Both sides rebuilt from the hunks alone, each line at its real line number; the lines no hunk shows are
 * blank on both sides (an editor that folds unchanged regions hides them).
 */
export function sidesFromHunks(hunks: readonly Hunk[]): { original: string; modified: string } {
  const original: string[] = [];
  const modified: string[] = [];
  const place = (side: string[], at: number, lines: string[]): void => {
    while (side.length < at) side.push('');
    side.push(...lines);
  };
  for (const hunk of hunks) {
    place(
      original,
      oldIndex(hunk),
      hunk.lines.filter((l) => l.kind !== '+').map((l) => l.text),
    );
    place(
      modified,
      hunk.newCount === 0 ? hunk.newStart : hunk.newStart - 1,
      hunk.lines.filter((l) => l.kind !== '-').map((l) => l.text),
    );
  }
  return { original: joinText(original, original.length > 0), modified: joinText(modified, modified.length > 0) };
}

/** 1-based new-side line range a hunk occupies once every hunk is applied; empty when it only deletes. */
export function newRange(hunk: Hunk): { start: number; end: number } {
  return { start: hunk.newStart, end: hunk.newStart + Math.max(hunk.newCount, 1) - 1 };
}

/** 1-based first old line a hunk covers (for an empty old range: the line after the insertion point). */
function oldFirst(hunk: Hunk): number {
  return hunk.oldCount === 0 ? hunk.oldStart + 1 : hunk.oldStart;
}

function newFirst(hunk: Hunk): number {
  return hunk.newCount === 0 ? hunk.newStart + 1 : hunk.newStart;
}

/**
 * The hunks that remain when the ones at `declined` indexes are dropped, with their new-side line numbers
 * as they are once only the remaining hunks are applied.
 */
export function keptHunks(hunks: readonly Hunk[], declined: ReadonlySet<number>): Hunk[] {
  const kept: Hunk[] = [];
  let delta = 0;
  hunks.forEach((hunk, index) => {
    if (declined.has(index)) return;
    const first = oldFirst(hunk) + delta;
    kept.push({ ...hunk, newStart: hunk.newCount === 0 ? first - 1 : first });
    delta += hunk.newCount - hunk.oldCount;
  });
  return kept;
}

/** Both sides of a diff holding only the hunks' lines, with each line's real number and the gaps between. */
export interface CompactSides {
  original: string;
  modified: string;
  /** Real line number of each line of `original` / `modified` (index 0 = line 1); missing = none. */
  originalNumbers: number[];
  modifiedNumbers: number[];
  /** Unchanged lines left out between two hunks: `hidden` of them, after this line of `modified` (1-based). */
  gaps: { afterModifiedLine: number; hidden: number }[];
}

/**
 * The hunks laid end to end (no blank filler for the lines between them), for a diff view that marks each
 * gap instead. A new or deleted file has one empty side (the diff view shows the other side alone).
 */
export function compactSides(hunks: readonly Hunk[]): CompactSides {
  const original: string[] = [];
  const modified: string[] = [];
  const originalNumbers: number[] = [];
  const modifiedNumbers: number[] = [];
  const gaps: CompactSides['gaps'] = [];
  let previousEnd: number | null = null;
  for (const hunk of hunks) {
    const first = oldFirst(hunk);
    if (previousEnd !== null && first > previousEnd)
      gaps.push({ afterModifiedLine: modified.length, hidden: first - previousEnd });
    let oldLine = first;
    let newLine = newFirst(hunk);
    for (const line of hunk.lines) {
      if (line.kind !== '+') {
        original.push(line.text);
        originalNumbers.push(oldLine++);
      }
      if (line.kind !== '-') {
        modified.push(line.text);
        modifiedNumbers.push(newLine++);
      }
    }
    previousEnd = first + hunk.oldCount;
  }
  return { original: original.join('\n'), modified: modified.join('\n'), originalNumbers, modifiedNumbers, gaps };
}

/**
 * The new-side line right after which a hunk's last change sits (0 = before the first line): where
 * something about the hunk can be shown under its changes, above its trailing context.
 */
export function lastChangeLine(hunk: Hunk): number {
  let line = newFirst(hunk) - 1;
  let last = line;
  for (const entry of hunk.lines) {
    if (entry.kind === '+') {
      line += 1;
      last = line;
    } else if (entry.kind === ' ') {
      line += 1;
    } else {
      last = Math.max(last, line);
    }
  }
  return last;
}

/**
 * For each hunk, the line of `compactSides(hunks).modified` right after which its last change sits
 * (0 = before the first line): where its controls go in a compact diff.
 */
export function compactChangeEnds(hunks: readonly Hunk[]): number[] {
  const ends: number[] = [];
  let offset = 0;
  for (const hunk of hunks) {
    let shown = 0;
    let last = 0;
    for (const entry of hunk.lines) {
      if (entry.kind === '+') {
        shown += 1;
        last = shown;
      } else if (entry.kind === ' ') shown += 1;
      else last = Math.max(last, shown);
    }
    ends.push(offset + last);
    offset += shown;
  }
  return ends;
}
