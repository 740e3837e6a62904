// The first half of an index check: which rollouts changed since the index last saw them. It lists the
// folders of rollouts, reads the index's file rows a page at a time and stats every rollout against its row;
// reading the changed ones is repair.ts's. Kept apart (and light: no zod, no protocol, no rollout reader) for
// the start-up check's worker, a Node instance of its own that compiles and keeps whatever it loads: on an
// index that is already right, which is the usual start, it loads nothing more (index-check-worker.ts).
import { existsSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { basename, normalize, sep } from 'node:path';
import type Database from 'better-sqlite3';
import type { ThreadOrigin } from './index-scan';
import { columns } from './index-row';
import { isRolloutFileName, parseRolloutFileName } from './paths';
import type { Slicer } from '../util/slicer';

/** A folder of rollouts: `sessions/` (dated subfolders) or `archived_sessions/` (flat), of Weft or of Codex. */
export interface RolloutSource {
  dir: string;
  archived: boolean;
  origin: ThreadOrigin;
  /** Names from Codex's `session_index.jsonl` (thread id → newest name), applied over the rollout's own. */
  names?: ReadonlyMap<string, string>;
}

/** What a check compares with the files: a row's rollout as the index last saw it. */
export interface IndexFileRow {
  id: string;
  path: string;
  file_size: number;
  file_mtime_ms: number;
}

/** The index's rows' files, a page at a time by row id (rows after the `rid` given, then the row limit). */
const FILE_PAGE_SQL = 'SELECT rid, id, path, file_size, file_mtime_ms FROM threads WHERE rid > ? ORDER BY rid LIMIT ?';
const FILE_BY_PATH_SQL = 'SELECT id, path, file_size, file_mtime_ms FROM threads WHERE path = ?';
const FILE_BY_ID_SQL = 'SELECT id, path, file_size, file_mtime_ms FROM threads WHERE id = ?';

/** A row read with one of the file queries above, each column's type checked. */
function fileRowOf(r: unknown): IndexFileRow {
  const c = columns(r);
  return { id: c.str('id'), path: c.str('path'), file_size: c.num('file_size'), file_mtime_ms: c.num('file_mtime_ms') };
}

/** A page read with FILE_PAGE_SQL; null when it is empty. */
function fileRowsOf(rows: unknown[]): { rows: IndexFileRow[]; lastRid: number } | null {
  const last = rows.at(-1);
  if (last === undefined) return null;
  return { rows: rows.map(fileRowOf), lastRid: columns(last).num('rid') };
}

/** What the check reads of the index (ThreadIndex has it; `IndexFileReader` is it alone). */
export interface IndexFiles {
  /** Every row's file, a page at a time (by row id, after `afterRid`; null when none are left). */
  filePage(afterRid: number, limit: number): { rows: IndexFileRow[]; lastRid: number } | null;
  /** The row of the rollout at `path`, if any. */
  fileAt(path: string): IndexFileRow | null;
  /** The row of the thread `id`, if any. */
  fileOf(id: string): IndexFileRow | null;
  /** How many rows the index has. */
  count(): number;
  /** Where the thread `id` comes from; null when the index has no row for it. */
  origin(id: string): ThreadOrigin | null;
}

/** The queries of `IndexFiles`, on `prepare`'s statements (ThreadIndex keeps its own). */
export function fileQueries(prepare: (sql: string) => Database.Statement<unknown[]>): Omit<IndexFiles, 'origin'> {
  const one = (sql: string, key: string): IndexFileRow | null => {
    const row: unknown = prepare(sql).get(key);
    return row === undefined ? null : fileRowOf(row);
  };
  return {
    filePage: (afterRid, limit) => fileRowsOf(prepare(FILE_PAGE_SQL).all(afterRid, limit)),
    fileAt: (path) => one(FILE_BY_PATH_SQL, path),
    fileOf: (id) => one(FILE_BY_ID_SQL, id),
    count: () => columns(prepare('SELECT count(*) AS n FROM threads').get()).num('n'),
  };
}

/** `IndexFiles` over a database handle of its own (the worker's read-only one). */
export function indexFileReader(db: Database.Database): IndexFiles {
  const statements = new Map<string, Database.Statement<unknown[]>>();
  const prepare = (sql: string): Database.Statement<unknown[]> => {
    let statement = statements.get(sql);
    if (statement === undefined) statements.set(sql, (statement = db.prepare<unknown[]>(sql)));
    return statement;
  };
  return {
    ...fileQueries(prepare),
    origin: (id) => {
      const row: unknown = prepare('SELECT origin FROM threads WHERE id = ?').get(id);
      if (row === undefined) return null;
      return columns(row).raw('origin') === 'codex' ? 'codex' : 'weft';
    },
  };
}

/** A rollout found in one of the folders. */
export interface Found {
  path: string;
  source: RolloutSource;
}

/** What changed since the index last saw the rollouts. */
export interface IndexScan {
  /** How many rollouts were found, changed or not. */
  files: number;
  /**
   * The rollouts to read: new, or changed since their row (all of them in a full check), newest first, each
   * with the row its name's thread had before it was read (null: none).
   */
  queue: (Found & { seen: IndexFileRow | null })[];
  /** Threads whose rollout is as their row says. */
  seenIds: Set<string>;
  /** Rows whose rollout is in none of the folders and gone from where the row says it is. */
  missing: IndexFileRow[];
}

/** True when the scan found nothing to read or drop: the index is right. */
export const nothingChanged = (scan: IndexScan): boolean => scan.queue.length === 0 && scan.missing.length === 0;

/** Index rows read at once when rows are looked for whose file is gone (a few ms a page). */
const FILE_PAGE_ROWS = 1_000;

/** Entries of a folder looked at between two looks at the slice's clock. */
const ENTRIES_PER_LOOK = 64;

/**
 * `join(dir, name)` for a normalized `dir` and a folder entry's `name` (no separator, never "." or ".."),
 * without `join`'s normalizing of the whole path again at every entry.
 */
const inFolder = (dir: string, name: string): string =>
  dir === '.' ? name : dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`;

/**
 * Every rollout in `source`'s folders, a folder at a time; null every ENTRIES_PER_LOOK entries and after
 * each folder, where the caller looks whether its slice is due (a big folder is cut there too). A plain
 * generator, its paths joined by hand: the start-up check goes through every rollout of the home (10,000
 * and more), and an async generator's promises and `join`'s normalizing were most of what it allocated
 * (3.7 KB a rollout, 42 collections of the worker's young generation over 10,016 of them).
 */
function* rolloutsIn(source: RolloutSource): Generator<string | null> {
  const stack = [{ dir: normalize(source.dir), depth: 0 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    let entries: Dirent[];
    try {
      entries = readdirSync(next.dir, { withFileTypes: true });
    } catch {
      continue;
    }
    let looked = 0;
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (next.depth < 4) stack.push({ dir: inFolder(next.dir, entry.name), depth: next.depth + 1 });
      } else if (isRolloutFileName(entry.name)) {
        yield inFolder(next.dir, entry.name);
      }
      if (++looked % ENTRIES_PER_LOOK === 0) yield null;
    }
    yield null;
  }
}

/** Every rollout's path in `sources` (a fork's parent is looked for among them: rollout-source.ts). */
export async function listRollouts(sources: readonly RolloutSource[], slicer: Slicer): Promise<string[]> {
  const paths: string[] = [];
  for (const source of sources) {
    for (const path of rolloutsIn(source)) {
      if (path !== null) paths.push(path);
      else await slicer.pace();
    }
  }
  return paths;
}

/**
 * Finds what changed: every rollout whose size or mtime differs from its row (or that has no row; every
 * rollout when `full`), and every row whose file is gone. Each rollout's row is looked up as it is found
 * (by its path, which the index keys), so what it holds does not grow with the rollouts but with what
 * changed. Null when `cancelled` said so at a pause.
 */
export async function scanIndex(
  index: IndexFiles,
  sources: readonly RolloutSource[],
  options: { full: boolean; slicer: Slicer; cancelled: () => boolean },
): Promise<IndexScan | null> {
  const { slicer, cancelled } = options;
  const seenIds = new Set<string>();
  const queue: IndexScan['queue'] = [];
  let files = 0;
  /** Rows whose rollout was found where they say. */
  let matched = 0;
  for (const source of sources) {
    for (const path of rolloutsIn(source)) {
      if (path === null) {
        await slicer.pace();
        if (cancelled()) return null;
        continue;
      }
      files++;
      let stat;
      try {
        stat = statSync(path);
      } catch {
        continue;
      }
      const row = index.fileAt(path);
      if (row !== null) matched++;
      if (!options.full && row && row.file_size === stat.size && row.file_mtime_ms === Math.floor(stat.mtimeMs)) {
        seenIds.add(row.id);
        continue;
      }
      const named = parseRolloutFileName(basename(path));
      // A Codex thread continued in Weft lives on in its Weft copy (same id): the Codex file is left alone.
      if (!row && source.origin === 'codex' && named && index.origin(named.id) === 'weft') continue;
      queue.push({ path, source, seen: row ?? (named ? index.fileOf(named.id) : null) });
    }
    await slicer.pace();
    if (cancelled()) return null;
  }
  // Newest first: rollout names start with their creation time, so the first page fills in first.
  queue.sort((a, b) => (basename(a.path) < basename(b.path) ? 1 : -1));
  // Each row names one path: when as many rows were found where they say as there are rows, none is gone.
  const missing: IndexFileRow[] = [];
  if (matched < index.count()) {
    for (
      let page = index.filePage(0, FILE_PAGE_ROWS);
      page !== null;
      page = index.filePage(page.lastRid, FILE_PAGE_ROWS)
    ) {
      for (const r of page.rows) if (!existsSync(r.path)) missing.push(r);
      await slicer.pace();
      if (cancelled()) return null;
    }
  }
  return { files, queue, seenIds, missing };
}
