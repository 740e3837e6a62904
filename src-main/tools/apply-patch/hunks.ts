// From parsed chunks to planned hunks: locate each chunk in the file, reduce it to its changed lines, and
// group changes that lie close together into the hunks a reviewer accepts or declines.

import type { Pacer } from '../../util/slicer';
import type { Chunk } from './parse';
import { LineSeeker } from './seek';
import type { LineEdit, LineSource } from './text';

/** One reviewable change in a file: old lines oldStart…oldStart+oldCount-1 become newLines. */
export interface PlannedHunk {
  /** 0-based position among the file's hunks as planned; stays the same when other hunks are declined. */
  index: number;
  /** 1-based, as in a unified diff: when a count is 0 its start is the line just before the empty range. */
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  /** Lines without line ends; context lines inside the hunk appear in both. */
  oldLines: string[];
  newLines: string[];
  /** One character per line of the hunk, in diff order: ' ' context, '-' old only, '+' new only. */
  ops: string;
}

/** Lines of context a unified diff shows around a change; changes closer than twice this share a hunk. */
export const DIFF_CONTEXT = 3;

/** A run of removed file lines (from 0-based `start`) replaced by added lines; `chunk` is its 0-based source. */
export interface Change {
  start: number;
  oldLines: string[];
  newLines: string[];
  chunk: number;
}

export type ChunkResolution = { ok: true; changes: Change[] } | { ok: false; chunk: number; reason: string };

/** A chunk could not be placed until the seeker has built the index of this pass (see LineSeeker). */
interface NeedsIndex {
  pass: number;
}

type Placement = null | NeedsIndex | { chunk: number; reason: string };

/**
 * Locates every chunk in `lines` (in order, each search resuming after the previous match, so the whole
 * patch is one pass over the file) and returns the changes sorted by position, or the first chunk that
 * cannot be placed and why (Codex's wording first). Pauses between chunks when `pacer` says so, and builds
 * a search index a chunk needs (a pass over every line) in slices; placing a chunk is a plain function, so
 * that the engine optimises it.
 */
export async function resolveChunks(
  lines: LineSource,
  chunks: readonly Chunk[],
  displayPath: string,
  pacer: Pacer,
): Promise<ChunkResolution> {
  const seeker = new LineSeeker(lines);
  const state: PlacingState = { changes: [], position: 0 };
  for (let c = 0; c < chunks.length; c++) {
    // Placing a chunk takes microseconds: the clock is read every 16 of them.
    if ((c & 15) === 15 && pacer.due()) await pacer.pause();
    let placed = placeChunk(seeker, lines, chunks, c, state, displayPath);
    while (placed !== null && 'pass' in placed) {
      await seeker.buildPaced(placed.pass, pacer);
      placed = placeChunk(seeker, lines, chunks, c, state, displayPath);
    }
    if (placed !== null) return { ok: false, ...placed };
  }
  const { changes } = state;
  // Stable: a pure insertion sorts before a removal starting at the same line; otherwise patch order.
  changes.sort((a, b) => a.start - b.start || Number(b.oldLines.length === 0) - Number(a.oldLines.length === 0));
  for (let k = 1; k < changes.length; k++) {
    const previous = changes[k - 1];
    const current = changes[k];
    if (previous && current && current.start < previous.start + previous.oldLines.length) {
      const [first, second] = previous.chunk < current.chunk ? [previous, current] : [current, previous];
      return {
        ok: false,
        chunk: second.chunk,
        reason: `Hunk ${second.chunk + 1} changes lines of ${displayPath} that hunk ${first.chunk + 1} already changes`,
      };
    }
  }
  return { ok: true, changes };
}

interface PlacingState {
  changes: Change[];
  /** Where the search for the next chunk begins. */
  position: number;
}

/**
 * Places chunk `c`: null once its changes are added to `state`, or why it cannot be placed, or the index
 * to build first (then `state` is untouched and the chunk is placed again).
 */
function placeChunk(
  seeker: LineSeeker,
  lines: LineSource,
  chunks: readonly Chunk[],
  c: number,
  state: PlacingState,
  displayPath: string,
): Placement {
  const chunk = chunks[c];
  if (chunk === undefined) return null;
  let position = state.position;
  for (const context of chunk.contexts) {
    const found = seeker.trySeek([context], position, false);
    if (typeof found !== 'number') return found;
    if (found < 0) return { chunk: c, reason: `Failed to find context '${context}' in ${displayPath}` };
    position = found + 1;
  }
  if (chunk.oldLines.length === 0) {
    // A pure addition goes at the end of the file, before a final blank line if there is one.
    const end = lines.count > 0 && lines.lineEquals(lines.count - 1, '') ? lines.count - 1 : lines.count;
    if (chunk.newLines.length > 0)
      state.changes.push({ start: end, oldLines: [], newLines: [...chunk.newLines], chunk: c });
    state.position = position;
    return null;
  }
  let { oldLines, newLines, ops } = chunk;
  let found = seeker.trySeek(oldLines, position, chunk.isEndOfFile);
  if (typeof found !== 'number') return found;
  if (found < 0 && oldLines[oldLines.length - 1] === '') {
    // A blank line ending a chunk is often just the separator before the next section.
    const shorterOld = oldLines.slice(0, -1);
    const at = seeker.trySeek(shorterOld, position, chunk.isEndOfFile);
    if (typeof at !== 'number') return at;
    if (at >= 0) {
      found = at;
      oldLines = shorterOld;
      if (newLines[newLines.length - 1] === '') newLines = newLines.slice(0, -1);
      ops = ops?.endsWith(' ') ? ops.slice(0, -1) : undefined;
    }
  }
  if (found < 0) {
    const hint = misplacementHint(seeker, chunk, position);
    if (typeof hint !== 'string') return hint;
    const reason = `Failed to find expected lines in ${displayPath}:\n${chunk.oldLines.join('\n')}`;
    return { chunk: c, reason: reason + hint };
  }
  for (const change of changeRuns(lines, found, oldLines, newLines, ops)) state.changes.push({ ...change, chunk: c });
  state.position = found + oldLines.length;
  return null;
}

/** Where the lines of a chunk that was not found do occur, when that explains the failure. */
function misplacementHint(seeker: LineSeeker, chunk: Chunk, position: number): string | NeedsIndex {
  const anywhere = seeker.trySeek(chunk.oldLines, 0, false);
  if (typeof anywhere !== 'number') return anywhere;
  if (anywhere < 0) return '';
  if (anywhere < position) {
    return (
      `\n(These lines do occur at line ${anywhere + 1}, above line ${position + 1} where the search for this ` +
      `hunk began: hunks must follow the order of the file, and '@@' context lines must come before the ` +
      `lines they locate.)`
    );
  }
  if (chunk.isEndOfFile) {
    return `\n(These lines occur at line ${anywhere + 1}, but the hunk ends with '*** End of File', so they must be the last lines of the file.)`;
  }
  return '';
}

/** The runs of removed/added lines of a chunk matched at `at`; context lines stay as they are in the file. */
function changeRuns(
  lines: LineSource,
  at: number,
  oldLines: readonly string[],
  newLines: readonly string[],
  ops: string | undefined,
): Omit<Change, 'chunk'>[] {
  const kinds =
    ops !== undefined && opsFit(ops, oldLines.length, newLines.length) ? ops : prefixSuffixOps(oldLines, newLines);
  const runs: Omit<Change, 'chunk'>[] = [];
  let run: Omit<Change, 'chunk'> | null = null;
  let oldIndex = 0;
  let newIndex = 0;
  for (const kind of kinds) {
    if (kind === ' ') {
      if (run) runs.push(run);
      run = null;
      oldIndex++;
      newIndex++;
      continue;
    }
    run ??= { start: at + oldIndex, oldLines: [], newLines: [] };
    if (kind === '-') {
      run.oldLines.push(lines.line(at + oldIndex));
      oldIndex++;
    } else {
      run.newLines.push(newLines[newIndex] ?? '');
      newIndex++;
    }
  }
  if (run) runs.push(run);
  return runs;
}

function opsFit(ops: string, oldCount: number, newCount: number): boolean {
  let removed = 0;
  let added = 0;
  let kept = 0;
  for (const kind of ops) {
    if (kind === ' ') kept++;
    else if (kind === '-') removed++;
    else if (kind === '+') added++;
    else return false;
  }
  return kept + removed === oldCount && kept + added === newCount;
}

function prefixSuffixOps(oldLines: readonly string[], newLines: readonly string[]): string {
  let prefix = 0;
  while (prefix < oldLines.length && prefix < newLines.length && oldLines[prefix] === newLines[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < oldLines.length - prefix &&
    suffix < newLines.length - prefix &&
    oldLines[oldLines.length - 1 - suffix] === newLines[newLines.length - 1 - suffix]
  ) {
    suffix++;
  }
  return (
    ' '.repeat(prefix) +
    '-'.repeat(oldLines.length - prefix - suffix) +
    '+'.repeat(newLines.length - prefix - suffix) +
    ' '.repeat(suffix)
  );
}

/**
 * When a file lacks a final line break and a change inserts after its last line, that last line gains a
 * line break: make the change replace it, so the diff shows it and declining the change restores it.
 */
export function coverUnterminatedEnd(lines: LineSource, changes: Change[]): void {
  const last = lines.count - 1;
  if (last < 0 || changes.some((c) => c.start <= last && last < c.start + c.oldLines.length)) return;
  const append = changes.find((c) => c.start === lines.count);
  if (!append) return;
  const lastLine = lines.line(last);
  append.start = last;
  append.oldLines = [lastLine];
  append.newLines = [lastLine, ...append.newLines];
}

/** Groups sorted, non-overlapping changes into hunks, merging changes at most 2 × DIFF_CONTEXT lines apart. */
export function groupChanges(lines: LineSource, changes: readonly Change[]): PlannedHunk[] {
  const steps = groupSteps(lines, changes);
  for (let step = steps.next(); ; step = steps.next()) if (step.done === true) return step.value;
}

/** groupChanges, pausing between changes when `pacer` says so. */
export async function groupChangesPaced(
  lines: LineSource,
  changes: readonly Change[],
  pacer: Pacer,
): Promise<PlannedHunk[]> {
  const steps = groupSteps(lines, changes);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done === true) return step.value;
    if (pacer.due()) await pacer.pause();
  }
}

interface Group {
  start: number;
  end: number;
  oldLines: string[];
  newLines: string[];
  ops: string[];
}

function* groupSteps(lines: LineSource, changes: readonly Change[]): Generator<void, PlannedHunk[], void> {
  const groups: Group[] = [];
  for (let k = 0; k < changes.length; k++) {
    const change = changes[k];
    if (change !== undefined) addChange(groups, change, lines);
    if ((k & 255) === 255) yield;
  }
  const hunks = groups.map((g, index) => {
    const oldCount = g.oldLines.length;
    return {
      index,
      oldStart: oldCount === 0 ? g.start : g.start + 1,
      oldCount,
      newStart: 0,
      newCount: g.newLines.length,
      oldLines: g.oldLines,
      newLines: g.newLines,
      ops: g.ops.join(''),
    };
  });
  yield;
  return withNewStarts(hunks);
}

/** Adds a change to the last group when it is close enough, else as a group of its own. */
function addChange(groups: Group[], change: Change, lines: LineSource): void {
  const end = change.start + change.oldLines.length;
  let group = groups[groups.length - 1];
  if (group && change.start - group.end <= 2 * DIFF_CONTEXT) {
    for (let k = group.end; k < change.start; k++) {
      const line = lines.line(k);
      group.oldLines.push(line);
      group.newLines.push(line);
      group.ops.push(' ');
    }
    group.end = end;
  } else {
    group = { start: change.start, end, oldLines: [], newLines: [], ops: [] };
    groups.push(group);
  }
  for (const line of change.oldLines) group.oldLines.push(line);
  for (const line of change.newLines) group.newLines.push(line);
  group.ops.push('-'.repeat(change.oldLines.length), '+'.repeat(change.newLines.length));
}

/** 0-based index of the first old line a hunk replaces (for an insertion: the line it goes before). */
export function hunkStart(hunk: PlannedHunk): number {
  return hunk.oldCount === 0 ? hunk.oldStart : hunk.oldStart - 1;
}

/** The hunks with newStart recomputed for the new file they produce together (hunks sorted by oldStart). */
export function withNewStarts(hunks: readonly PlannedHunk[]): PlannedHunk[] {
  let delta = 0;
  return hunks.map((hunk) => {
    const newStart0 = hunkStart(hunk) + delta;
    delta += hunk.newCount - hunk.oldCount;
    return { ...hunk, newStart: hunk.newCount === 0 ? newStart0 : newStart0 + 1 };
  });
}

export function editsFromHunks(hunks: readonly PlannedHunk[]): LineEdit[] {
  return hunks.map((hunk) => ({ start: hunkStart(hunk), oldCount: hunk.oldCount, newLines: hunk.newLines }));
}
