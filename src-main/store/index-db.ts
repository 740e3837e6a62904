// The thread index, `WEFT_HOME/weft.sqlite` (better-sqlite3, WAL). Derived from the rollouts and never
// authoritative: a missing, corrupt or too-new index is set aside and rebuilt from the files.
//
// Schema (version 6; `PRAGMA user_version` holds the version, MIGRATIONS[i] brings i → i+1; version 2 had
// an `outlines` table, dropped in 3: saved outlines are files, see outline-snapshot.ts):
// - `threads`: one row per rollout. `rid` (rowid) keys the full-text rows; times are unix milliseconds;
//   `file_size`/`file_mtime_ms` are what the row was built from (a file that differs is rescanned);
//   `origin` is "weft" or "codex" (indexed from an imported Codex home, never written by Weft). `name` and
//   `attrs` (JSON) hold the thread's attributes (thread-events.ts): a new attribute needs no migration.
//   `weft_worktree` is the session_meta's `weft_worktree` as JSON (null: the thread has no worktree of its
//   own) and `weft_project_root` its `project_root`, so a project's worktree threads are found by index.
//   `source` is the kind `thread/list {sourceKinds}` filters by ("appServer", "exec", "subAgentThreadSpawn",
//   …) and `sub_agent` a sub-agent's parent, nickname, role and session tree as JSON (null for other
//   threads; see sub-agent-meta.ts).
// - `index_meta`: `attributes` names the attributes the rows were made with; when the table of thread events
//   has others, every row is marked changed (`file_size` -1) and the next repair rescans it.
// - `thread_text` (FTS5, contentless): user and agent message text. A thread's text sits in rows
//   `rid * TEXT_CHUNKS_PER_THREAD + k`: chunk 0 from a full scan, later chunks appended at each turn end.
// - `thread_names` (FTS5, rowid = rid): thread names, so renames are searchable at once.
// Both keep no token positions (`detail=none`): search matches threads holding every word (see
// list-query.ts), which needs no positions, and the index builds twice as fast at a quarter of the size.
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { StoreError } from './errors';
import { ATTRIBUTE_KEYS } from './thread-events';

export type IndexDatabase = Database.Database;

/** Full-text rows per thread: chunk 0 (full scan) and up to 4095 turn-end increments. */
export const TEXT_CHUNKS_PER_THREAD = 4096;

/** A step of the schema: SQL, or code for a step that must look at the table first. */
type Migration = string | ((db: IndexDatabase) => void);

const MIGRATIONS: readonly Migration[] = [
  `
  CREATE TABLE threads (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    path TEXT NOT NULL,
    origin TEXT NOT NULL DEFAULT 'weft',
    file_size INTEGER NOT NULL DEFAULT 0,
    file_mtime_ms INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    cwd TEXT NOT NULL DEFAULT '',
    preview TEXT NOT NULL DEFAULT '',
    name TEXT,
    model TEXT,
    model_provider TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL DEFAULT 'unknown',
    cli_version TEXT NOT NULL DEFAULT '',
    archived INTEGER NOT NULL DEFAULT 0,
    forked_from_id TEXT,
    forked_at_turn_id TEXT,
    git_sha TEXT,
    git_branch TEXT,
    git_origin_url TEXT,
    tokens_total INTEGER NOT NULL DEFAULT 0,
    tokens_input INTEGER NOT NULL DEFAULT 0,
    tokens_output INTEGER NOT NULL DEFAULT 0,
    last_turn_status TEXT,
    text_chunks INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX threads_by_created ON threads(archived, created_at, id);
  CREATE INDEX threads_by_updated ON threads(archived, updated_at, id);
  CREATE INDEX threads_by_cwd_created ON threads(cwd, archived, created_at, id);
  CREATE INDEX threads_by_cwd_updated ON threads(cwd, archived, updated_at, id);
  CREATE INDEX threads_by_fork ON threads(forked_from_id);
  CREATE INDEX threads_by_path ON threads(path);
  CREATE VIRTUAL TABLE thread_text USING fts5(body, content='', contentless_delete=1, detail=none, tokenize='unicode61 remove_diacritics 2');
  CREATE VIRTUAL TABLE thread_names USING fts5(name, detail=none, tokenize='unicode61 remove_diacritics 2');
  `,
  // Version 2 kept big threads' saved outlines in the index; they live in WEFT_HOME/outlines/ now.
  `
  CREATE TABLE outlines (id TEXT PRIMARY KEY, data BLOB NOT NULL);
  `,
  `
  DROP TABLE outlines;
  `,
  // Version 4: the attributes other than the name. Rows of version 3 hold the name, then the only one.
  `
  ALTER TABLE threads ADD COLUMN attrs TEXT NOT NULL DEFAULT '{}';
  CREATE TABLE index_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  INSERT INTO index_meta (key, value) VALUES ('attributes', 'name');
  `,
  // Version 5: worktree threads (rows of older versions describe rollouts written before they existed).
  // The columns are added where missing: an index whose version was set back keeps the ones it has.
  (db) => {
    const rows: unknown[] = db.prepare('PRAGMA table_info(threads)').all();
    const have = new Set(rows.map((row) => (typeof row === 'object' && row !== null && 'name' in row ? row.name : '')));
    for (const column of ['weft_worktree', 'weft_project_root'])
      if (!have.has(column)) db.exec(`ALTER TABLE threads ADD COLUMN ${column} TEXT`);
    db.exec('CREATE INDEX IF NOT EXISTS threads_by_project_root ON threads(weft_project_root)');
  },
  // Version 6: sub-agents. Rows of Codex's sub-agents (source "subagent" before) are read again for theirs.
  (db) => {
    const rows: unknown[] = db.prepare('PRAGMA table_info(threads)').all();
    const have = rows.some(
      (row) => typeof row === 'object' && row !== null && 'name' in row && row.name === 'sub_agent',
    );
    if (!have) db.exec('ALTER TABLE threads ADD COLUMN sub_agent TEXT');
    db.exec("UPDATE threads SET file_size = -1 WHERE source = 'subagent'");
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

function errorCode(error: unknown): string {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : '';
}

function configure(db: IndexDatabase): void {
  // Wait for other processes (first, so that switching to WAL waits too).
  db.pragma('busy_timeout = 5000');
  useWal(db);
  db.pragma('synchronous = NORMAL');
  db.pragma('temp_store = MEMORY');
}

/** How long processes opening a new index together may keep each other from switching it to WAL. */
const WAL_SWITCH_MS = 5000;

/**
 * Switches the index to WAL, unless another process has already. Processes that open a new index at once
 * can each hold the lock the others need for the switch, and SQLite then answers SQLITE_BUSY at once
 * instead of waiting (it would deadlock): the switch is tried again for a while, a few milliseconds apart
 * (this runs once, when the store opens).
 */
function useWal(db: IndexDatabase): void {
  const deadline = Date.now() + WAL_SWITCH_MS;
  for (;;) {
    try {
      if (String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal') return;
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if (errorCode(error) !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

const userVersion = (db: IndexDatabase): number => Number(db.pragma('user_version', { simple: true }));

/** Brings the schema to SCHEMA_VERSION; the version is read under the write lock, so processes starting together migrate once. */
function migrate(db: IndexDatabase): void {
  if (userVersion(db) === SCHEMA_VERSION) return;
  db.transaction(() => {
    const current = userVersion(db);
    if (current > SCHEMA_VERSION) throw new TooNewIndex(current);
    for (let v = current; v < SCHEMA_VERSION; v++) {
      const step = MIGRATIONS[v];
      if (step === undefined) break;
      if (typeof step === 'string') db.exec(step);
      else step(db);
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

/** Marks every row changed when it was made with other attributes than the table's (see the file comment). */
function checkAttributes(db: IndexDatabase): void {
  const row: unknown = db.prepare("SELECT value FROM index_meta WHERE key = 'attributes'").get();
  const made = typeof row === 'object' && row !== null && 'value' in row ? row.value : null;
  if (made === ATTRIBUTE_KEYS) return;
  db.transaction(() => {
    db.prepare('UPDATE threads SET file_size = -1').run();
    db.prepare("INSERT OR REPLACE INTO index_meta (key, value) VALUES ('attributes', ?)").run(ATTRIBUTE_KEYS);
  }).immediate();
}

class TooNewIndex extends Error {
  constructor(readonly version: number) {
    super(`the index was written by a newer Weft (schema ${version}, this one knows ${SCHEMA_VERSION})`);
  }
}

/** Set-aside copies of unusable indexes kept (the newest); older ones are removed, being derived data. */
export const KEPT_UNUSABLE_INDEXES = 3;

/** Whether an error says the index file is damaged (or not an index at all): set it aside and rebuild. */
export function isIndexCorruption(error: unknown): boolean {
  const code = errorCode(error);
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) return true;
  // FTS5 reports a damaged shadow table as a failed constructor or a malformed image with a plain code.
  const text = error instanceof Error ? error.message : '';
  return code.startsWith('SQLITE_') && /database disk image is malformed|vtable constructor failed/i.test(text);
}

/**
 * Moves an unusable index aside as `<path>.unusable-<time>` (its WAL and shared-memory files are
 * removed: they belong to the damaged file), keeping the newest {@link KEPT_UNUSABLE_INDEXES}. The
 * rollouts are untouched. Returns the new name of the damaged file, or null when there was none.
 */
export function setIndexAside(path: string, now = new Date()): string | null {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  let aside: string | null = null;
  if (existsSync(path)) {
    aside = `${path}.unusable-${stamp}`;
    for (let n = 2; existsSync(aside); n++) aside = `${path}.unusable-${stamp}-${n}`;
    renameSync(path, aside);
  }
  for (const suffix of ['-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
  const prefix = `${basename(path)}.unusable-`;
  const copies = readdirSync(dirname(path))
    .filter((name) => name.startsWith(prefix))
    .sort()
    .reverse();
  for (const old of copies.slice(KEPT_UNUSABLE_INDEXES)) rmSync(join(dirname(path), old), { force: true });
  return aside;
}

/** SQLite's `quick_check` of the whole file: the problems it found, [] when the index is sound. */
export function checkIndex(db: IndexDatabase): string[] {
  const result: unknown = db.pragma('quick_check');
  const rows: unknown[] = Array.isArray(result) ? result : [result];
  const problems = rows.map((row) =>
    typeof row === 'object' && row !== null ? String(Object.values(row)[0]) : String(row),
  );
  return problems.length === 1 && problems[0] === 'ok' ? [] : problems;
}

export interface OpenedIndex {
  db: IndexDatabase;
  /** True when the index was (re)created and must be built from the rollouts. */
  fresh: boolean;
  /** The damaged index was moved here (it could not be used); null when it was fine or absent. */
  setAside: string | null;
  warnings: string[];
}

/** Opens (creating or migrating) the index at `path`; an unusable one is set aside and recreated. */
export function openIndex(path: string): OpenedIndex {
  mkdirSync(dirname(path), { recursive: true });
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
    throw new StoreError(
      `${path} is a folder, but Weft keeps its thread index in a file of that name; move the folder elsewhere (the index is rebuilt from the rollouts)`,
    );
  }
  const warnings: string[] = [];
  let setAside: string | null = null;
  for (let attempt = 0; ; attempt++) {
    const existed = existsSync(path);
    let db: IndexDatabase | null = null;
    try {
      db = new Database(path);
      configure(db);
      const before = userVersion(db);
      migrate(db);
      checkAttributes(db);
      // Reads the schema and the table's first page: a file that is not an index fails here. (A count of
      // the rows read every page of an index: 15 ms with 10,000 threads, 50 ms from a cold disk cache.)
      db.prepare('SELECT rid FROM threads LIMIT 1').get();
      return { db, fresh: !existed || before === 0, setAside, warnings };
    } catch (error) {
      db?.close();
      const unusable = error instanceof TooNewIndex || isIndexCorruption(error);
      if (!unusable || attempt > 0) throw cannotOpen(path, error);
      const aside = setIndexAside(path);
      setAside = aside;
      warnings.push(
        `the thread index ${path} could not be used (${error instanceof Error ? error.message : String(error)}); it was set aside${aside ? ` as ${basename(aside)}` : ''} and is being rebuilt from the rollouts`,
      );
    }
  }
}

/** The error for an index that cannot be opened, saying what to do. */
function cannotOpen(path: string, error: unknown): Error {
  const code = errorCode(error);
  const reason = error instanceof Error ? error.message : String(error);
  if (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR')) {
    return new StoreError(
      `cannot open the thread index ${path}: ${reason}; the disk may be full or failing. Free some space in ${dirname(path)} and try again`,
      { cause: error },
    );
  }
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM') {
    return new StoreError(
      `cannot open the thread index ${path}: ${reason}; check that ${dirname(path)} is a writable folder`,
      { cause: error },
    );
  }
  return error instanceof Error ? error : new StoreError(reason);
}
