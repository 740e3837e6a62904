// `fuzzyFileSearch`: the composer's `@` file picker. Each root's files are listed once (skipping what
// git ignores) and kept; a query is a fuzzy match over that list in memory, so only the first search
// of a root walks the disk. A query first scans every path's lowercase form for the query's letters in
// order (no allocation per file) and keeps the CANDIDATES likeliest paths by a cheap score; fuzzysort
// then ranks only those, so a query matching all 50,000 files costs no more garbage than one matching
// a few. The scan reads each folder once per query word and then only the file names in it: the
// folder part of a path, shared by its files, is where most of a query's letters are usually found.
// Listing also warms the scan and the ranking up on a small made-up tree (`warmUp`), so no query runs
// through the interpreter. A list older than REFRESH_AFTER_MS is answered from as it is and rebuilt in
// the background (in slices, reusing the prepared paths) for the searches after it.
import { readdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import fuzzysort from 'fuzzysort';
import type { FuzzyFileSearchResultEntry } from '../../src-preload/protocol';
import { IgnoreRules } from '../checkpoints/ignore-rules';
import { yieldToLoop } from '../util/slicer';

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

/** The lower-case paths of a root, split into folder (with its `/`) and file name, for the first pass. */
export interface ScanIndex {
  files: readonly Fuzzysort.Prepared[];
  /** The distinct folders, lower case, each with its trailing `/` ('' for the root). */
  dirs: readonly string[];
  /** `dirs[dirOf[i]]` is the folder of `files[i]`. */
  dirOf: Int32Array;
  /** The lower-case file name of `files[i]`. */
  base: readonly string[];
  /** `letterBits` of the lower-case path: a path lacking a query letter is passed over without reading it. */
  bits: Int32Array;
}

/**
 * A root's listing. The scan index is swapped whole when a rebuild lands, and it is always an object made
 * by `prepared` (one shape): the scan loop's property loads stay monomorphic, so the code V8 optimised
 * while warming up is the code that runs the queries.
 */
interface RootIndex {
  scan: ScanIndex & { files: Fuzzysort.Prepared[] };
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
        for (const f of index.scan.files.slice(0, MAX_RESULTS)) out.push(entry(root, f.target, 0, null));
        continue;
      }
      for (const r of fuzzysort.go(needle, candidates(needle, index.scan), { limit: MAX_RESULTS, threshold: 0.05 })) {
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
        scan: prepared(files, new Map()),
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
          index.scan = prepared(files, new Map(index.scan.files.map((f) => [f.target, f])));
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

/** Prepared targets (reusing those of an earlier listing) and their lower-case folders and names. */
export function prepared(
  files: readonly string[],
  earlier: ReadonlyMap<string, Fuzzysort.Prepared>,
): ScanIndex & { files: Fuzzysort.Prepared[] } {
  const index = scanIndex(files, earlier);
  warmUp();
  return index;
}

function scanIndex(
  files: readonly string[],
  earlier: ReadonlyMap<string, Fuzzysort.Prepared>,
): ScanIndex & { files: Fuzzysort.Prepared[] } {
  const targets = files.map((f) => earlier.get(f) ?? fuzzysort.prepare(f));
  const dirIds = new Map<string, number>();
  const dirs: string[] = [];
  const dirOf = new Int32Array(files.length);
  const base: string[] = [];
  const bits = new Int32Array(files.length);
  for (let i = 0; i < files.length; i++) {
    const lower = (files[i] ?? '').toLowerCase();
    const cut = lower.lastIndexOf('/') + 1;
    const dir = lower.slice(0, cut);
    let id = dirIds.get(dir);
    if (id === undefined) {
      id = dirs.length;
      dirs.push(dir);
      dirIds.set(dir, id);
    }
    dirOf[i] = id;
    base.push(lower.slice(cut));
    bits[i] = letterBits(lower);
  }
  return { files: targets, dirs, dirOf, base, bits };
}

/** Paths and queries that take every branch of the scan: one and two words, crossing a `/`, a full heap. */
const WARM_PATHS = [
  'src/parser/parse.ts',
  'src/pars/er.ts',
  'test/parser.test.ts',
  'docs/README.md',
  ...Array.from({ length: 600 }, (_, i) => `pkg${i % 40}/lib_${i}/file_${i}.ts`),
];
const WARM_QUERIES = ['p', 'parser', 'pars er', 'src/p', 'file_1', 'lib 3', 'e.t', 'readme', 'zzq'];
const WARM_ROUNDS = 6;

/**
 * Runs the scan and the ranking over a small made-up tree until V8 has optimised them, so that no
 * query a person types runs 50,000 paths through the interpreter (about 20 ms against 1.5 ms
 * optimised). The made-up index has the same shape as every real one, so the optimised code stays
 * valid for them.
 */
function warmUp(): void {
  const index = scanIndex(WARM_PATHS, new Map());
  for (let round = 0; round < WARM_ROUNDS; round++) {
    for (const q of WARM_QUERIES) fuzzysort.go(q, candidates(q, index), { limit: MAX_RESULTS, threshold: 0.05 });
  }
}

/**
 * The paths worth ranking for `needle`: those holding each of its words' letters in order (what
 * fuzzysort can match at all), best CANDIDATES by `roughScore`. Scanning allocates nothing per path;
 * the kept ones sit in a min-heap of CANDIDATES slots.
 */
export function candidates(needle: string, index: ScanIndex): Fuzzysort.Prepared[] {
  const words = needle
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  if (words.length === 0) return [];
  const wanted = letterBits(words.join(''));
  // The folders are walked only when some path has the query's letters at all (most queries typed rule
  // out most paths).
  const first = firstWithBits(index.bits, wanted);
  if (first < 0) return [];
  const folders: FolderStates[] = [];
  for (const word of words) folders.push(folderStates(word, index.dirs));
  const heapScore = new Int32Array(CANDIDATES);
  const heapIndex = new Int32Array(CANDIDATES);
  const size = scan(index, words, folders, wanted, first, heapScore, heapIndex);
  const out: Fuzzysort.Prepared[] = [];
  for (let k = 0; k < size; k++) {
    const file = index.files[heapIndex[k] ?? 0];
    if (file !== undefined) out.push(file);
  }
  return out;
}

function firstWithBits(bits: Int32Array, wanted: number): number {
  for (let i = 0; i < bits.length; i++) if (((bits[i] ?? 0) & wanted) === wanted) return i;
  return -1;
}

/** The scan proper, from path `from` on: fills the heap (`heapScore`, `heapIndex`) and returns its size. */
function scan(
  index: ScanIndex,
  words: readonly string[],
  folders: readonly FolderStates[],
  wanted: number,
  from: number,
  heapScore: Int32Array,
  heapIndex: Int32Array,
): number {
  const { files, bits, dirOf, base, dirs } = index;
  let size = 0;
  for (let i = from; i < files.length; i++) {
    if (((bits[i] ?? 0) & wanted) !== wanted) continue;
    const dir = dirOf[i] ?? 0;
    const name = base[i] ?? '';
    const dirLength = (dirs[dir] ?? '').length;
    let score = 0;
    for (let w = 0; w < words.length; w++) {
      const folder = folders[w];
      const s = folder === undefined ? NO_MATCH : nameScore(words[w] ?? '', folder, dir, dirLength, name);
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
  return size;
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
 * Where `roughScore`'s walk over one word stands at the end of each folder, and what the folder holds.
 * Typed arrays and flat lists only (no per-folder objects or nulls), so the scan reads one shape.
 */
interface FolderStates {
  /** Letters of the word found in the folder, in order. */
  taken: Int32Array;
  /** Separate runs of letters so far. */
  runs: Int32Array;
  /** Index in the folder of the last letter found (-2: none). */
  last: Int32Array;
  /** 1 when the whole word is in the folder. */
  whole: Uint8Array;
  /**
   * The lengths j of word prefixes a folder ends with (a whole word may run on into the name): those of
   * folder d are `tails[tailFrom[d]]` up to `tails[tailFrom[d + 1]]`.
   */
  tailFrom: Int32Array;
  tails: Int32Array;
  /** `suffixes[j]` is the word from its j-th letter: what a name must start with after a tail of length j. */
  suffixes: string[];
}

function folderStates(word: string, dirs: readonly string[]): FolderStates {
  const n = dirs.length;
  const taken = new Int32Array(n);
  const runsOf = new Int32Array(n);
  const lastOf = new Int32Array(n);
  const whole = new Uint8Array(n);
  const tailFrom = new Int32Array(n + 1);
  const tails: number[] = [];
  const prefixes: string[] = [];
  const suffixes: string[] = [];
  for (let j = 0; j <= word.length; j++) {
    prefixes.push(word.slice(0, j));
    suffixes.push(word.slice(j));
  }
  for (let d = 0; d < n; d++) {
    const dir = dirs[d] ?? '';
    let runs = 0;
    let from = 0;
    let last = -2;
    let w = 0;
    for (; w < word.length; w++) {
      const at = dir.indexOf(word[w] ?? '', from);
      if (at < 0) break;
      if (at !== last + 1) runs++;
      last = at;
      from = at + 1;
    }
    taken[d] = w;
    runsOf[d] = runs;
    lastOf[d] = last;
    whole[d] = dir.includes(word) ? 1 : 0;
    tailFrom[d] = tails.length;
    for (let j = 1; j < word.length; j++) {
      if (dir.endsWith(prefixes[j] ?? '')) tails.push(j);
    }
  }
  tailFrom[n] = tails.length;
  return { taken, runs: runsOf, last: lastOf, whole, tailFrom, tails: Int32Array.from(tails), suffixes };
}

/**
 * `roughScore(word, folder + name)`, from the folder's precomputed walk: the walk goes on in the name
 * (the letters the folder lacked), and the whole word is looked for in the name, the folder, and across
 * the two. Equal to `roughScore` for every path (the unit tests compare them).
 */
function nameScore(word: string, folder: FolderStates, dir: number, dirLength: number, name: string): number {
  let runs = folder.runs[dir] ?? 0;
  let last = folder.last[dir] ?? -2;
  let from = 0;
  for (let w = folder.taken[dir] ?? 0; w < word.length; w++) {
    const at = name.indexOf(word[w] ?? '', from);
    if (at < 0) return NO_MATCH;
    if (dirLength + at !== last + 1) runs++;
    last = dirLength + at;
    from = at + 1;
  }
  let score = -runs * 16 - (dirLength + name.length);
  if (name.includes(word)) score += 4096;
  else if (folder.whole[dir] === 1 || crosses(folder, dir, name)) score += 2048;
  return score;
}

/** `nameScore` of one lower-case path on its own (to check it against `roughScore`). */
export function splitScore(word: string, path: string): number {
  const cut = path.lastIndexOf('/') + 1;
  return nameScore(word, folderStates(word, [path.slice(0, cut)]), 0, cut, path.slice(cut));
}

/** Whether the word starts at the end of the folder (one of its tails) and ends at the start of the name. */
function crosses(folder: FolderStates, dir: number, name: string): boolean {
  const end = folder.tailFrom[dir + 1] ?? 0;
  for (let t = folder.tailFrom[dir] ?? 0; t < end; t++) {
    if (name.startsWith(folder.suffixes[folder.tails[t] ?? 0] ?? '')) return true;
  }
  return false;
}

/**
 * NO_MATCH when `word`'s letters are not all in `path` in order; otherwise a score that favours the
 * word whole (in the file name most), few separate runs of letters, and short paths. Small integers
 * only, so the scan stays free of allocation.
 */
export function roughScore(word: string, path: string): number {
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
        await yieldToLoop();
      }
      for (const e of entries) {
        const rel = dir === '' ? e.name : `${dir}/${e.name}`;
        if (e.isDirectory()) {
          if (SKIP_DIRS.has(e.name) || (await rules.ignored(rel, true))) continue;
          next.push(rel);
        } else if ((e.isFile() || e.isSymbolicLink()) && !(await rules.ignored(rel, false))) {
          files.push(rel);
        }
      }
    }
    level = next;
  }
  return files.slice(0, MAX_FILES);
}
