// Finding a chunk's old lines in a file: four passes of increasing leniency, each scanning forward from the
// current position; the first pass with a hit wins (so an exact match further on beats a fuzzy one nearer).

type Normalize = (line: string) => string;

const PUNCTUATION = /[\u2010-\u2015\u2212\u2018-\u201b\u201c-\u201f\u00a0\u2002-\u200a\u202f\u205f\u3000]/g;

function normalizePunctuation(ch: string): string {
  const code = ch.charCodeAt(0);
  if ((code >= 0x2010 && code <= 0x2015) || code === 0x2212) return '-';
  if (code >= 0x2018 && code <= 0x201b) return "'";
  if (code >= 0x201c && code <= 0x201f) return '"';
  return ' ';
}

/** The passes, in order: exact; trailing whitespace ignored; surrounding whitespace ignored; surrounding
 * whitespace ignored and typographic dashes, quotes and spaces read as their ASCII forms. */
const exact: Normalize = (line) => line;
const PASSES: readonly Normalize[] = [
  exact,
  (line) => line.trimEnd(),
  (line) => line.trim(),
  (line) => line.trim().replace(PUNCTUATION, normalizePunctuation),
];

/** The first index to try: an end-of-file chunk may only match at the very end. -1 when nothing fits. */
function firstCandidate(lineCount: number, patternLength: number, start: number, eof: boolean): number {
  if (patternLength > lineCount) return -1;
  const from = eof ? lineCount - patternLength : start;
  return from < start ? -1 : from;
}

/** Whether lines[at…] equal `wanted` (the pattern, already normalised) under `normalize`. */
function matchesAt(lines: readonly string[], wanted: readonly string[], at: number, normalize: Normalize): boolean {
  for (let k = 0; k < wanted.length; k++) {
    if (normalize(lines[at + k] ?? '') !== wanted[k]) return false;
  }
  return true;
}

/**
 * Index of the first position at or after `start` where `pattern` occurs in `lines`, trying the four passes
 * in order; -1 if none. An empty pattern matches at `start`. With `eof` only the position that puts the
 * pattern's last line on the file's last line is tried.
 */
export function seekSequence(lines: readonly string[], pattern: readonly string[], start: number, eof: boolean): number {
  if (pattern.length === 0) return start;
  const from = firstCandidate(lines.length, pattern.length, start, eof);
  if (from < 0) return -1;
  const to = eof ? from : lines.length - pattern.length;
  for (const normalize of PASSES) {
    const wanted = pattern.map(normalize);
    for (let i = from; i <= to; i++) {
      if (matchesAt(lines, wanted, i, normalize)) return i;
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
 * seekSequence over one file, for many chunks: same results, but the lenient passes (and the exact pass,
 * once it has missed) use per-pass indexes built on first need, so a patch of many fuzzy chunks stays
 * near-linear instead of rescanning the rest of the file for each chunk.
 */
export class LineSeeker {
  private readonly indexes: (PassIndex | undefined)[] = [];
  private exactMissed = false;

  constructor(private readonly lines: readonly string[]) {}

  seek(pattern: readonly string[], start: number, eof: boolean): number {
    if (pattern.length === 0) return start;
    const from = firstCandidate(this.lines.length, pattern.length, start, eof);
    if (from < 0) return -1;
    if (eof) {
      for (const normalize of PASSES) {
        if (matchesAt(this.lines, pattern.map(normalize), from, normalize)) return from;
      }
      return -1;
    }
    if (!this.exactMissed) {
      const to = this.lines.length - pattern.length;
      for (let i = from; i <= to; i++) {
        if (matchesAt(this.lines, pattern, i, exact)) return i;
      }
      this.exactMissed = true;
    } else {
      const hit = this.seekIndexed(0, pattern, from);
      if (hit >= 0) return hit;
    }
    for (let pass = 1; pass < PASSES.length; pass++) {
      const hit = this.seekIndexed(pass, pattern, from);
      if (hit >= 0) return hit;
    }
    return -1;
  }

  private seekIndexed(pass: number, pattern: readonly string[], from: number): number {
    const normalize = PASSES[pass];
    if (normalize === undefined) return -1;
    const index = this.indexFor(pass, normalize);
    const wanted = pattern.map(normalize);
    const candidates = index.positions.get(wanted[0] ?? '');
    if (candidates === undefined) return -1;
    const last = this.lines.length - pattern.length;
    for (let c = lowerBound(candidates, from); c < candidates.length; c++) {
      const at = candidates[c] ?? Infinity;
      if (at > last) return -1;
      let k = 1;
      while (k < wanted.length && index.normalized[at + k] === wanted[k]) k++;
      if (k === wanted.length) return at;
    }
    return -1;
  }

  private indexFor(pass: number, normalize: Normalize): PassIndex {
    const existing = this.indexes[pass];
    if (existing) return existing;
    const normalized = pass === 0 ? this.lines : this.lines.map(normalize);
    const positions = new Map<string, number[]>();
    normalized.forEach((line, i) => {
      const list = positions.get(line);
      if (list) list.push(i);
      else positions.set(line, [i]);
    });
    const built = { normalized, positions };
    this.indexes[pass] = built;
    return built;
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
