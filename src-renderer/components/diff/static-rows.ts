// A file's hunks as the rows of a diff drawn as plain elements (StaticDiff.tsx): inline (one column, each
// line with its old and new number) or side by side (a removed line beside the added line that replaced
// it, a filler beside a line with no partner), a fold row for the unchanged lines between two hunks, and
// within a changed line that has a partner, the words that changed. Pure.
import { diffWordsWithSpace } from 'diff';
import { hunkLine, type Hunk } from './hunks';

export type LineKind = 'context' | 'added' | 'removed';

/** Character ranges [start, end) of a line's text that changed against its partner. */
export type Ranges = readonly (readonly [number, number])[];

export interface DiffLine {
  kind: LineKind;
  text: string;
  /** The line's number on its side (old for removed and context lines in the left column). */
  oldNumber: number | null;
  newNumber: number | null;
  /** The words that changed against the line it replaced (or that replaced it); none when unpaired. */
  changes: Ranges;
  /**
   * Where the line is in its side's text as the hunks give it (`sidesText`): the old side for a removed
   * line, the new side for an added or unchanged one. Its colours are read from there.
   */
  side: 'original' | 'modified';
  index: number;
}

export type InlineRow = { type: 'line'; line: DiffLine } | { type: 'gap'; hidden: number };
export type SplitRow =
  { type: 'pair'; left: DiffLine | null; right: DiffLine | null } | { type: 'gap'; hidden: number };

/** Longest line for which the changed words are found (a minified line is marked whole). */
const WORD_DIFF_MAX_CHARS = 1000;
/** Below this share of a pair's characters in common, the lines are not alike: no words are marked. */
const ALIKE_SHARE = 0.4;

/**
 * The ranges of `before` and `after` that differ, word by word; both empty when the lines have too little
 * in common for the marks to help (a rewritten line is marked as a whole by its colour alone).
 */
export function wordChanges(before: string, after: string): { removed: Ranges; added: Ranges } {
  const none = { removed: [], added: [] };
  if (before.length > WORD_DIFF_MAX_CHARS || after.length > WORD_DIFF_MAX_CHARS) return none;
  const removed: [number, number][] = [];
  const added: [number, number][] = [];
  let inBefore = 0;
  let inAfter = 0;
  let common = 0;
  for (const part of diffWordsWithSpace(before, after)) {
    const length = part.value.length;
    if (part.removed) {
      removed.push([inBefore, inBefore + length]);
      inBefore += length;
    } else if (part.added) {
      added.push([inAfter, inAfter + length]);
      inAfter += length;
    } else {
      common += length;
      inBefore += length;
      inAfter += length;
    }
  }
  const longer = Math.max(before.length, after.length);
  if (longer === 0 || common / longer < ALIKE_SHARE) return none;
  return { removed, added };
}

/** Lines counted so far on each side of the hunks' text. */
interface Counts {
  original: number;
  modified: number;
}

/** One hunk's lines with their numbers; each run of removed lines paired, line by line, with the added run after it. */
function hunkLines(hunk: Hunk, counts: Counts): DiffLine[] {
  const lines: DiffLine[] = [];
  let oldLine = hunk.oldStart;
  let newLine = hunk.newStart;
  let removedRun: DiffLine[] = [];
  let addedSeen = 0;
  for (const raw of hunk.lines) {
    const parsed = hunkLine(raw);
    if (parsed === null) continue;
    if (parsed.kind === '-') {
      if (addedSeen > 0) {
        removedRun = [];
        addedSeen = 0;
      }
      const line: DiffLine = {
        kind: 'removed',
        text: parsed.text,
        oldNumber: oldLine++,
        newNumber: null,
        changes: [],
        side: 'original',
        index: counts.original++,
      };
      removedRun.push(line);
      lines.push(line);
    } else if (parsed.kind === '+') {
      const line: DiffLine = {
        kind: 'added',
        text: parsed.text,
        oldNumber: null,
        newNumber: newLine++,
        changes: [],
        side: 'modified',
        index: counts.modified++,
      };
      const partner = removedRun[addedSeen];
      addedSeen += 1;
      if (partner !== undefined) {
        const { removed, added } = wordChanges(partner.text, line.text);
        partner.changes = removed;
        line.changes = added;
      }
      lines.push(line);
    } else {
      removedRun = [];
      addedSeen = 0;
      counts.original += 1;
      lines.push({
        kind: 'context',
        text: parsed.text,
        oldNumber: oldLine++,
        newNumber: newLine++,
        changes: [],
        side: 'modified',
        index: counts.modified++,
      });
    }
  }
  return lines;
}

/** The unchanged lines left out between two hunks (0 when they touch). */
function hiddenBetween(previous: Hunk | undefined, next: Hunk): number {
  if (previous === undefined) return 0;
  return Math.max(0, next.oldStart - (previous.oldStart + previous.oldLines));
}

export function inlineRows(hunks: readonly Hunk[]): InlineRow[] {
  const rows: InlineRow[] = [];
  const counts = { original: 0, modified: 0 };
  hunks.forEach((hunk, index) => {
    const hidden = hiddenBetween(hunks[index - 1], hunk);
    if (hidden > 0) rows.push({ type: 'gap', hidden });
    for (const line of hunkLines(hunk, counts)) rows.push({ type: 'line', line });
  });
  return rows;
}

export function splitRows(hunks: readonly Hunk[]): SplitRow[] {
  const rows: SplitRow[] = [];
  const counts = { original: 0, modified: 0 };
  hunks.forEach((hunk, index) => {
    const hidden = hiddenBetween(hunks[index - 1], hunk);
    if (hidden > 0) rows.push({ type: 'gap', hidden });
    let removed: DiffLine[] = [];
    let added: DiffLine[] = [];
    const flush = (): void => {
      for (let i = 0; i < Math.max(removed.length, added.length); i += 1)
        rows.push({ type: 'pair', left: removed[i] ?? null, right: added[i] ?? null });
      removed = [];
      added = [];
    };
    for (const line of hunkLines(hunk, counts)) {
      if (line.kind === 'removed') {
        if (added.length > 0) flush();
        removed.push(line);
      } else if (line.kind === 'added') added.push(line);
      else {
        flush();
        rows.push({ type: 'pair', left: line, right: line });
      }
    }
    flush();
  });
  return rows;
}

/** Whether every changed line of the hunks is on one side: a new file, a deleted one, or lines only added or only removed. */
export function oneSide(hunks: readonly Hunk[]): 'added' | 'removed' | null {
  let added = false;
  let removed = false;
  let context = false;
  for (const hunk of hunks)
    for (const raw of hunk.lines) {
      const kind = hunkLine(raw)?.kind;
      if (kind === '+') added = true;
      else if (kind === '-') removed = true;
      else if (kind === ' ') context = true;
    }
  if (context || added === removed) return null;
  return added ? 'added' : 'removed';
}

/**
 * Each side's text as the hunks give it (unchanged lines on both, removed lines on the old side, added on
 * the new), one entry per line: what `DiffLine.index` counts, and what is coloured.
 */
export function sidesText(hunks: readonly Hunk[]): { original: string[]; modified: string[] } {
  const original: string[] = [];
  const modified: string[] = [];
  for (const hunk of hunks)
    for (const raw of hunk.lines) {
      const parsed = hunkLine(raw);
      if (parsed === null) continue;
      if (parsed.kind !== '+') original.push(parsed.text);
      if (parsed.kind !== '-') modified.push(parsed.text);
    }
  return { original, modified };
}
