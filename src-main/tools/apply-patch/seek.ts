// Finding a chunk's old lines in a file: four passes of increasing leniency, each scanning forward from the
// current position; the first pass with a hit wins (so an exact match further on beats a fuzzy one nearer).

import type { Pacer } from '../../util/slicer';
import type { LineSource } from './text';

type Normalize = (line: string) => string;

const PUNCTUATION = /[\u2010-\u2015\u2212\u2018-\u201b\u201c-\u201f\u00a0\u2002-\u200a\u202f\u205f\u3000]/g;

function normalizePunctuation(ch: string): string {
  const code = ch.charCodeAt(0);
  if ((code >= 0x2010 && code <= 0x2015) || code === 0x2212) return '-';
  if (code >= 0x2018 && code <= 0x201b) return "'";
  if (code >= 0x201c && code <= 0x201f) return '"';
  return ' ';
}

/** The passes after the exact one: trailing whitespace ignored; surrounding whitespace ignored; surrounding
 * whitespace ignored and typographic dashes, quotes and spaces read as their ASCII forms. */
const LENIENT_PASSES: readonly Normalize[] = [
  (line) => line.trimEnd(),
  (line) => line.trim(),
  (line) => line.trim().replace(PUNCTUATION, normalizePunctuation),
];

/** Shorter anchor lines (`}`, blank) occur everywhere; scanning line by line is cheaper than searching. */
const MIN_ANCHOR_LENGTH = 4;

/** The first index to try: an end-of-file chunk may only match at the very end. -1 when nothing fits. */
function firstCandidate(lineCount: number, patternLength: number, start: number, eof: boolean): number {
  if (patternLength > lineCount) return -1;
  const from = eof ? lineCount - patternLength : start;
  return from < start ? -1 : from;
}

/**
 * Index of the first position at or after `start` where `pattern` occurs in `lines`, trying the four passes
 * in order; -1 if none. An empty pattern matches at `start`. With `eof` only the position that puts the
 * pattern's last line on the file's last line is tried.
 */
export function seekSequence(
  lines: readonly string[],
  pattern: readonly string[],
  start: number,
  eof: boolean,
): number {
  if (pattern.length === 0) return start;
  const from = firstCandidate(lines.length, pattern.length, start, eof);
  if (from < 0) return -1;
  const to = eof ? from : lines.length - pattern.length;
  for (const normalize of [(line: string) => line, ...LENIENT_PASSES]) {
    const wanted = pattern.map(normalize);
    for (let i = from; i <= to; i++) {
      let k = 0;
      while (k < wanted.length && normalize(lines[i + k] ?? '') === wanted[k]) k++;
      if (k === wanted.length) return i;
    }
  }
  return -1;
}

interface PassIndex {
  /** The file's lines under this pass's normalisation. */
  normalized: readonly string[];
  /** Normalised line → the ascending positions where it occurs. */
  positions: Map<string, number[]>;
}

/**
 * seekSequence over one file, for many chunks: the same results, but the exact pass compares in place
 * (no line strings), and the lenient passes (and the exact pass, once it has missed) use per-pass indexes
 * built on first need, so a patch of many fuzzy chunks stays near-linear instead of rescanning the rest of
 * the file for each chunk. Chunks are sought in file order, each from where the previous one matched.
 */
export class LineSeeker {
  private readonly indexes: (PassIndex | undefined)[] = [];
  private exactMissed = false;

  constructor(private readonly source: LineSource) {}

  /** Seeks synchronously, building any index it needs in one go. */
  seek(pattern: readonly string[], start: number, eof: boolean): number {
    const search = this.search(pattern, start, eof);
    for (let step = search.next(); ; step = search.next()) {
      if (step.done === true) return step.value;
      for (const _ of this.build(step.value));
    }
  }

  /**
   * seek() without building anything: the position (-1 if none), or the pass whose index must be built
   * (buildPaced) before this search can run.
   */
  trySeek(pattern: readonly string[], start: number, eof: boolean): number | { pass: number } {
    // The common case, an exact match found in place, without the search's generator.
    if (!eof && !this.exactMissed && pattern.length > 0) {
      const from = firstCandidate(this.source.count, pattern.length, start, eof);
      const hit = from < 0 ? -1 : this.seekExact(pattern, from);
      if (hit >= 0) return hit;
    }
    const step = this.search(pattern, start, eof).next();
    return step.done === true ? step.value : { pass: step.value };
  }

  /** Builds the index of `pass` (a pass over every line of the file) in slices between pauses. */
  async buildPaced(pass: number, pacer: Pacer): Promise<void> {
    for (const _ of this.build(pass)) if (pacer.due()) await pacer.pause();
  }

  /** The search; it yields the pass whose index must be built before it goes on, and returns the match. */
  private *search(pattern: readonly string[], start: number, eof: boolean): Generator<number, number, void> {
    if (pattern.length === 0) return start;
    const from = firstCandidate(this.source.count, pattern.length, start, eof);
    if (from < 0) return -1;
    if (eof) {
      if (this.exactAt(pattern, from)) return from;
      for (const normalize of LENIENT_PASSES) {
        let k = 0;
        while (k < pattern.length && normalize(this.source.line(from + k)) === normalize(pattern[k] ?? '')) k++;
        if (k === pattern.length) return from;
      }
      return -1;
    }
    if (!this.exactMissed) {
      const hit = this.seekExact(pattern, from);
      if (hit >= 0) return hit;
      this.exactMissed = true;
    } else {
      if (this.indexes[0] === undefined) yield 0;
      const hit = this.seekIndexed(0, (line) => line, pattern, from);
      if (hit >= 0) return hit;
    }
    for (let pass = 0; pass < LENIENT_PASSES.length; pass++) {
      const normalize = LENIENT_PASSES[pass];
      if (normalize === undefined) continue;
      if (this.indexes[pass + 1] === undefined) yield pass + 1;
      const hit = this.seekIndexed(pass + 1, normalize, pattern, from);
      if (hit >= 0) return hit;
    }
    return -1;
  }

  /** The exact pass, driven by the pattern's longest line: find it, then check the lines around it. */
  private seekExact(pattern: readonly string[], from: number): number {
    let anchor = 0;
    for (let k = 1; k < pattern.length; k++) if ((pattern[k] ?? '').length > (pattern[anchor] ?? '').length) anchor = k;
    const anchorLine = pattern[anchor] ?? '';
    const last = this.source.count - pattern.length;
    if (anchorLine.length < MIN_ANCHOR_LENGTH) {
      for (let i = from; i <= last; i++) if (this.exactAt(pattern, i)) return i;
      return -1;
    }
    for (let line = from + anchor; ;) {
      const hit = this.source.findLine(anchorLine, line);
      if (hit < 0 || hit - anchor > last) return -1;
      if (this.exactAt(pattern, hit - anchor)) return hit - anchor;
      line = hit + 1;
    }
  }

  private exactAt(pattern: readonly string[], at: number): boolean {
    for (let k = 0; k < pattern.length; k++) if (!this.source.lineEquals(at + k, pattern[k] ?? '')) return false;
    return true;
  }

  private seekIndexed(pass: number, normalize: Normalize, pattern: readonly string[], from: number): number {
    const index = this.indexes[pass];
    if (index === undefined) return -1;
    const wanted = pattern.map(normalize);
    const candidates = index.positions.get(wanted[0] ?? '');
    if (candidates === undefined) return -1;
    const last = this.source.count - pattern.length;
    for (let c = lowerBound(candidates, from); c < candidates.length; c++) {
      const at = candidates[c] ?? Infinity;
      if (at > last) return -1;
      let k = 1;
      while (k < wanted.length && index.normalized[at + k] === wanted[k]) k++;
      if (k === wanted.length) return at;
    }
    return -1;
  }

  /** Builds the index of `pass` (0: exact), yielding every few thousand lines. */
  private *build(pass: number): Generator<void, void, void> {
    if (this.indexes[pass] !== undefined) return;
    const normalize = pass === 0 ? (line: string) => line : (LENIENT_PASSES[pass - 1] ?? ((line: string) => line));
    const count = this.source.count;
    const normalized = new Array<string>(count);
    const positions = new Map<string, number[]>();
    for (let i = 0; i < count; i++) {
      const line = normalize(this.source.line(i));
      normalized[i] = line;
      const list = positions.get(line);
      if (list) list.push(i);
      else positions.set(line, [i]);
      if ((i & 2047) === 2047) yield;
    }
    this.indexes[pass] = { normalized, positions };
  }
}

/** First index in the ascending `sorted` whose value is >= `value`. */
function lowerBound(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] ?? Infinity) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
