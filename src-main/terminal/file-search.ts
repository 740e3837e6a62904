// `fuzzyFileSearch`: the composer's `@` file picker. Each root's files are listed once (skipping what
// git ignores) and kept; a query is a fuzzy match over that list in memory (fuzzysort), so only the
// first search of a root walks the disk. A list older than REFRESH_AFTER_MS is answered from as it is
// and rebuilt in the background for the searches after it.
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
/** Folders that are never searched, ignored or not: version control and dependency stores. */
const SKIP_DIRS = new Set(['.git', 'node_modules', '.hg', '.svn']);

interface RootIndex {
  files: Fuzzysort.Prepared[];
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
  async search(query: string, roots: readonly string[], cancellationToken?: string | null): Promise<FuzzyFileSearchResultEntry[]> {
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
      for (const r of fuzzysort.go(needle, index.files, { limit: MAX_RESULTS, threshold: 0.05 })) {
        out.push(entry(root, r.target, Math.round(r.score * 10_000), [...r.indexes]));
      }
    }
    out.sort((a, b) => b.score - a.score || a.path.length - b.path.length || a.path.localeCompare(b.path));
    return out.slice(0, MAX_RESULTS);
  }

  private async index(root: string): Promise<RootIndex> {
    let pending = this.roots.get(root);
    if (!pending) {
      pending = listFiles(root).then((files) => ({ files: prepared(files), builtAt: this.now(), rebuilding: null }));
      this.roots.set(root, pending);
      pending.catch(() => this.roots.delete(root));
    }
    const index = await pending;
    if (this.now() - index.builtAt > REFRESH_AFTER_MS && index.rebuilding === null) {
      index.rebuilding = listFiles(root)
        .then((files) => {
          index.files = prepared(files);
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

/** Prepared targets, with fuzzysort's per-target work done now (in the listing) rather than in the first query. */
function prepared(files: readonly string[]): Fuzzysort.Prepared[] {
  const targets = files.map((f) => fuzzysort.prepare(f));
  fuzzysort.go('a', targets, { limit: 1 });
  fuzzysort.go('a/b.c', targets, { limit: 1 });
  return targets;
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
    for (const { dir, entries } of listed) {
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
