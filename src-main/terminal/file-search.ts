// `fuzzyFileSearch`: the composer's `@` file picker. Each root's files are listed once (skipping what
// git ignores) and kept; a query is a fuzzy match over that list in memory, so only the first search
// of a root walks the disk. A query first scans every path's lowercase form for the query's letters in
// order (no allocation per file) and keeps the CANDIDATES likeliest paths by a cheap score; fuzzysort
// then ranks only those, so a query matching all 50,000 files costs no more garbage than one matching
// a few. A list older than REFRESH_AFTER_MS is answered from as it is and rebuilt in the background
// (in slices, reusing the prepared paths) for the searches after it.
import { readdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import fuzzysort from 'fuzzysort';
import type { FuzzyFileSearchResultEntry } from '../../src-preload/protocol';
import { IgnoreRules } from '../checkpoints/ignore-rules';

/** At most this many matches are returned: a picker shows a few, and fewer is faster. */
export const MAX_RESULTS = 50;
/** Files listed per root at most; a larger tree is cut (the folders nearest the root come first). */
export const MAX_FILES = 200_000;
const REFRESH_AFTER_MS = 15_000;
/** Paths handed to fuzzysort for ranking per root and query. */
const CANDIDATES = 256;
/** Directory entries handled between two yields to the event loop while listing. */
const LIST_SLICE = 2_000;
/** Folders that are never searched, ignored or not: version control and dependency stores. */
const SKIP_DIRS = new Set(['.git', 'node_modules', '.hg', '.svn']);

interface RootIndex {
  files: Fuzzysort.Prepared[];
  /** `files[i].target` in lower case, for the allocation-free first pass. */
  lower: string[];
  /** `letterBits(lower[i])`: a path lacking a query letter is passed over without reading it. */
  bits: Int32Array;
  builtAt: number;
  rebuilding: Promise<void> | null;
}

export interface FileSearchOptions {
  now?: () => number;
}

export class FileSearch {
  private readonly roots = new Map<string, Promise<RootIndex>>();
  private readonly latest = new Map<string, number>();
  private sequence = 0;

  constructor(private readonly options: FileSearchOptions = {}) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /**
   * Matches for `query` in every root, best first. With a `cancellationToken`, a newer search under the
   * same token makes this one answer `[]` (the picker moved on).
   */
  async search(
    query: string,
    roots: readonly string[],
    cancellationToken?: string | null,
  ): Promise<FuzzyFileSearchResultEntry[]> {
    const ticket = ++this.sequence;
    if (cancellationToken) this.latest.set(cancellationToken, ticket);
    const indexes = await Promise.all(roots.map(async (root) => ({ root, index: await this.index(resolve(root)) })));
    if (cancellationToken && this.latest.get(cancellationToken) !== ticket) return [];
    const needle = query.trim();
    const out: FuzzyFileSearchResultEntry[] = [];
    for (const { root, index } of indexes) {
      if (needle === '') {
        for (const f of index.files.slice(0, MAX_RESULTS)) out.push(entry(root, f.target, 0, null));
        continue;
      }
      for (const r of fuzzysort.go(needle, candidates(needle, index), { limit: MAX_RESULTS, threshold: 0.05 })) {
        out.push(entry(root, r.target, Math.round(r.score * 10_000), [...r.indexes]));
      }
    }
    out.sort((a, b) => b.score - a.score || a.path.length - b.path.length || a.path.localeCompare(b.path));
    return out.slice(0, MAX_RESULTS);
  }

  private async index(root: string): Promise<RootIndex> {
    let pending = this.roots.get(root);
    if (!pending) {
      pending = listFiles(root).then((files) => ({
        ...prepared(files, new Map()),
        builtAt: this.now(),
        rebuilding: null,
      }));
      this.roots.set(root, pending);
      pending.catch(() => this.roots.delete(root));
    }
    const index = await pending;
    if (this.now() - index.builtAt > REFRESH_AFTER_MS && index.rebuilding === null) {
      index.rebuilding = listFiles(root)
        .then((files) => {
          const fresh = prepared(files, new Map(index.files.map((f) => [f.target, f])));
          index.files = fresh.files;
          index.lower = fresh.lower;
          index.bits = fresh.bits;
          index.builtAt = this.now();
        })
        .catch(() => undefined)
        .finally(() => {
          index.rebuilding = null;
        });
    }
    return index;
  }
}

/** Prepared targets (reusing those of an earlier listing) and their lower-case forms. */
export function prepared(
  files: readonly string[],
  earlier: ReadonlyMap<string, Fuzzysort.Prepared>,
): { files: Fuzzysort.Prepared[]; lower: string[]; bits: Int32Array } {
  const targets = files.map((f) => earlier.get(f) ?? fuzzysort.prepare(f));
  const lower = files.map((f) => f.toLowerCase());
  const bits = new Int32Array(lower.length);
  for (let i = 0; i < lower.length; i++) bits[i] = letterBits(lower[i] ?? '');
  const index = { files: targets, lower, bits };
  // The first query should not pay for running the scan in the interpreter: run it now, while listing.
  for (const warm of ['s', 'e.t', 'a/b']) fuzzysort.go(warm, candidates(warm, index), { limit: 1 });
  return index;
}

/**
 * The paths worth ranking for `needle`: those holding each of its words' letters in order (what
 * fuzzysort can match at all), best CANDIDATES by `roughScore`. Scanning allocates nothing per path;
 * the kept ones sit in a min-heap of CANDIDATES slots.
 */
export function candidates(
  needle: string,
  index: { files: readonly Fuzzysort.Prepared[]; lower: readonly string[]; bits: Int32Array },
): Fuzzysort.Prepared[] {
  const words = needle
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  if (words.length === 0) return [];
  const wanted = letterBits(words.join(''));
  const heapScore = new Int32Array(CANDIDATES);
  const heapIndex = new Int32Array(CANDIDATES);
  let size = 0;
  for (let i = 0; i < index.lower.length; i++) {
    if (((index.bits[i] ?? 0) & wanted) !== wanted) continue;
    const path = index.lower[i] ?? '';
    let score = 0;
    for (const word of words) {
      const s = roughScore(word, path);
      if (s === NO_MATCH) {
        score = NO_MATCH;
        break;
      }
      score += s;
    }
    if (score === NO_MATCH) continue;
    if (size < CANDIDATES) {
      // Sift up.
      let at = size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if ((heapScore[parent] ?? 0) <= score) break;
        heapScore[at] = heapScore[parent] ?? 0;
        heapIndex[at] = heapIndex[parent] ?? 0;
        at = parent;
      }
      heapScore[at] = score;
      heapIndex[at] = i;
    } else if (score > (heapScore[0] ?? 0)) {
      // Replace the weakest and sift down.
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= size) break;
        const right = left + 1;
        const child = right < size && (heapScore[right] ?? 0) < (heapScore[left] ?? 0) ? right : left;
        if ((heapScore[child] ?? 0) >= score) break;
        heapScore[at] = heapScore[child] ?? 0;
        heapIndex[at] = heapIndex[child] ?? 0;
        at = child;
      }
      heapScore[at] = score;
      heapIndex[at] = i;
    }
  }
  const out: Fuzzysort.Prepared[] = [];
  for (let k = 0; k < size; k++) {
    const file = index.files[heapIndex[k] ?? 0];
    if (file !== undefined) out.push(file);
  }
  return out;
}

/** One bit per letter a-z, one for the digits, one for anything else: a superset test of "holds every character". */
function letterBits(text: string): number {
  let bits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 97 && c <= 122) bits |= 1 << (c - 97);
    else if (c >= 48 && c <= 57) bits |= 1 << 26;
    else bits |= 1 << 27;
  }
  return bits;
}

/** `roughScore` of a path that lacks some of the word's letters. */
const NO_MATCH = -(2 ** 30);

/**
 * NO_MATCH when `word`'s letters are not all in `path` in order; otherwise a score that favours the
 * word whole (in the file name most), few separate runs of letters, and short paths. Small integers
 * only, so the scan stays free of allocation.
 */
function roughScore(word: string, path: string): number {
  let runs = 0;
  let from = 0;
  let last = -2;
  for (let w = 0; w < word.length; w++) {
    const at = path.indexOf(word[w] ?? '', from);
    if (at < 0) return NO_MATCH;
    if (at !== last + 1) runs++;
    last = at;
    from = at + 1;
  }
  let score = -runs * 16 - path.length;
  const whole = path.lastIndexOf(word);
  if (whole >= 0) score += whole > path.lastIndexOf('/') ? 4096 : 2048;
  return score;
}

function entry(root: string, path: string, score: number, indices: number[] | null): FuzzyFileSearchResultEntry {
  return { root, path, file_name: basename(path), match_type: 'file', score, indices };
}

/** Every file under `root` that git would not ignore, relative and with `/`, breadth first. */
export async function listFiles(root: string): Promise<string[]> {
  const rules = new IgnoreRules(root);
  const files: string[] = [];
  let level = [''];
  while (level.length > 0 && files.length < MAX_FILES) {
    const next: string[] = [];
    const listed = await Promise.all(
      level.map(async (dir) => {
        try {
          return { dir, entries: await readdir(dir === '' ? root : join(root, dir), { withFileTypes: true }) };
        } catch {
          return { dir, entries: [] };
        }
      }),
    );
    let handled = 0;
    for (const { dir, entries } of listed) {
      handled += entries.length;
      if (handled >= LIST_SLICE) {
        // Searches answered from an older list (and everything else) get a turn meanwhile.
        handled = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      for (const e of entries) {
        const rel = dir === '' ? e.name : `${dir}/${e.name}`;
        if (e.isDirectory()) {
          if (SKIP_DIRS.has(e.name) || rules.ignored(rel, true)) continue;
          next.push(rel);
        } else if ((e.isFile() || e.isSymbolicLink()) && !rules.ignored(rel, false)) {
          files.push(rel);
        }
      }
    }
    level = next;
  }
  return files.slice(0, MAX_FILES);
}
