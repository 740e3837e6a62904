// Reads and writes of the thread index (schema: index-db.ts). Every list is one indexed query: keyset
// paging on (sort time, id), so the cost of a page does not grow with the number of threads.
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { RolloutWeftWorktree, TurnStatus, type Thread } from '../../src-preload/protocol';
import { TEXT_CHUNKS_PER_THREAD, type IndexDatabase } from './index-db';
import type { ThreadOrigin, ThreadSummary } from './index-scan';
import { fileQueries, type IndexFileRow, type IndexFiles } from './index-changes';
import { columns } from './index-row';
import { attributeFields, movedCwd, decodeAttributes, encodeAttributes, type ThreadAttributes } from './thread-events';
import { lastTurnField, worktreeField } from './loader';
import { decodeSubAgent, encodeSubAgent, sourceFields } from './sub-agent-meta';

type Statement = Database.Statement<unknown[]>;

/** A row of `threads` (see index-db.ts for what the columns mean). */
export interface IndexRow {
  rid: number;
  id: string;
  path: string;
  origin: ThreadOrigin;
  file_size: number;
  file_mtime_ms: number;
  created_at: number;
  updated_at: number;
  cwd: string;
  preview: string;
  name: string | null;
  model: string | null;
  model_provider: string;
  source: string;
  cli_version: string;
  archived: number;
  forked_from_id: string | null;
  forked_at_turn_id: string | null;
  git_sha: string | null;
  git_branch: string | null;
  git_origin_url: string | null;
  tokens_total: number;
  tokens_input: number;
  tokens_output: number;
  last_turn_status: string | null;
  text_chunks: number;
  /** The thread's attributes but its name, as JSON (see thread-events.ts). */
  attrs: string;
  /** JSON of the session_meta's `weft_worktree`, or null. */
  weft_worktree: string | null;
  weft_project_root: string | null;
  /** JSON of the thread's sub-agent info (sub-agent-meta.ts), or null. */
  sub_agent: string | null;
}

/** Reads a row checking every column's type (lists read rows often: a zod schema costs more here). */
function rowOf(r: unknown): IndexRow {
  const c = columns(r);
  return {
    rid: c.num('rid'),
    id: c.str('id'),
    path: c.str('path'),
    origin: c.raw('origin') === 'codex' ? 'codex' : 'weft',
    file_size: c.num('file_size'),
    file_mtime_ms: c.num('file_mtime_ms'),
    created_at: c.num('created_at'),
    updated_at: c.num('updated_at'),
    cwd: c.str('cwd'),
    preview: c.str('preview'),
    name: c.opt('name'),
    model: c.opt('model'),
    model_provider: c.str('model_provider'),
    source: c.str('source'),
    cli_version: c.str('cli_version'),
    archived: c.num('archived'),
    forked_from_id: c.opt('forked_from_id'),
    forked_at_turn_id: c.opt('forked_at_turn_id'),
    git_sha: c.opt('git_sha'),
    git_branch: c.opt('git_branch'),
    git_origin_url: c.opt('git_origin_url'),
    tokens_total: c.num('tokens_total'),
    tokens_input: c.num('tokens_input'),
    tokens_output: c.num('tokens_output'),
    last_turn_status: c.opt('last_turn_status'),
    text_chunks: c.num('text_chunks'),
    attrs: c.str('attrs'),
    weft_worktree: c.opt('weft_worktree'),
    weft_project_root: c.opt('weft_project_root'),
    sub_agent: c.opt('sub_agent'),
  };
}

export type SortKey = 'created_at' | 'updated_at';

export interface ListQuery {
  limit: number;
  sortKey: SortKey;
  direction: 'asc' | 'desc';
  archived: boolean;
  cwds: string[] | null;
  providers: string[] | null;
  sources: string[] | null;
  /** An FTS5 query (see search-query.ts), or null for no text filter. */
  match: string | null;
  /** Only threads whose last turn failed and that are unread since (`weftNeedsYou`). */
  failedUnread: boolean;
  /** Keyset position: rows strictly after (value, id) in the sort order. */
  after: { value: number; id: string } | null;
}

/** Live changes from a recorder; absent fields are left as they are. */
export interface RowUpdate {
  updatedAtMs: number;
  fileSize: number;
  fileMtimeMs: number;
  preview?: string;
  /** Set when an attribute changed (all of them, the name included). */
  attributes?: ThreadAttributes;
  model?: string;
  tokens?: { total: number; input: number; output: number };
  lastTurnStatus?: TurnStatus;
  text?: string;
}

/** A row's attributes: its name column, and the others from their JSON. */
export function attributesOfRow(row: IndexRow): ThreadAttributes {
  return { ...decodeAttributes(row.attrs), name: row.name };
}

/**
 * Decoded attribute and worktree columns by their text, for `threadFromRow`: a list is asked for many times
 * a second (every client's sidebar, a board) and its rows rarely change, while decoding a column is a
 * JSON.parse and a zod parse. The decoded values are only read (never handed out), so they are shared.
 */
const DECODED_LIMIT = 2000;
const decodedAttributes = new Map<string, ThreadAttributes>();
const decodedWorktrees = new Map<string, RolloutWeftWorktree | null>();

function remembered<T>(cache: Map<string, T>, text: string, decode: () => T): T {
  const known = cache.get(text);
  if (known !== undefined || cache.has(text)) return known as T;
  const value = decode();
  if (cache.size >= DECODED_LIMIT) cache.clear();
  cache.set(text, value);
  return value;
}

export function threadFromRow(row: IndexRow): Thread {
  const hasGit = row.git_sha !== null || row.git_branch !== null || row.git_origin_url !== null;
  const attributes = { ...remembered(decodedAttributes, row.attrs, () => decodeAttributes(row.attrs)), name: row.name };
  const worktree =
    row.weft_worktree === null ? null : remembered(decodedWorktrees, row.weft_worktree, () => rowWorktree(row));
  return {
    id: row.id,
    projectId: null,
    forkedFromId: row.forked_from_id,
    preview: row.preview,
    ephemeral: false,
    modelProvider: row.model_provider,
    createdAt: Math.floor(row.created_at / 1000),
    updatedAt: Math.floor(row.updated_at / 1000),
    status: { type: 'notLoaded' },
    path: row.path,
    cwd: movedCwd(attributes) ?? row.cwd,
    cliVersion: row.cli_version,
    ...sourceFields(row.id, row.source, decodeSubAgent(row.sub_agent)),
    gitInfo: hasGit ? { sha: row.git_sha, branch: row.git_branch, originUrl: row.git_origin_url } : null,
    ...attributeFields(attributes),
    turns: [],
    ...worktreeField(worktree),
    ...lastTurnField(lastTurnStatusOf(row.last_turn_status)),
  };
}

/**
 * A row's last turn status (null: no turn, or a value this build does not know). Checked with `validate`,
 * not `safeParse`: a failed `safeParse` returns its error behind a getter whose closures zod's result keeps
 * in the old generation, so each one holds its issues until the next full collection. A thread without
 * turns failed it at every list, and every scavenge then copied and promoted what the lists since the one
 * before had left (450 KB per 100 lists of 25, the scavenge 1 ms instead of a fraction of one).
 */
function lastTurnStatusOf(text: string | null): TurnStatus | null {
  return text !== null && TurnStatus.validate(text) ? text : null;
}

/** Freezes `value` and every object and array it holds (plain data: threads, their fields). */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const field of Object.values(value)) deepFreeze(field);
  return Object.freeze(value);
}

/** The saved worktree of a row (null when it has none, or its JSON cannot be read). */
export function rowWorktree(row: IndexRow): RolloutWeftWorktree | null {
  if (row.weft_worktree === null) return null;
  try {
    const parsed = RolloutWeftWorktree.safeParse(JSON.parse(row.weft_worktree));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const textBase = (rid: number): number => rid * TEXT_CHUNKS_PER_THREAD;

/** The query of one page: filters, then keyset paging on (sort time, id) in the index's order. */
function listSql(q: ListQuery): { sql: string; args: (string | number)[] } {
  const where = ['archived = ?'];
  const args: (string | number)[] = [q.archived ? 1 : 0];
  const inList = (column: string, values: string[] | null): void => {
    if (!values) return;
    where.push(values.length === 0 ? '0' : `${column} IN (${values.map(() => '?').join(', ')})`);
    args.push(...values);
  };
  inList('cwd', q.cwds);
  inList('model_provider', q.providers);
  inList('source', q.sources);
  if (q.failedUnread)
    where.push("last_turn_status = 'failed' AND json_extract(attrs, '$.readState.firstUnread') IS NOT NULL");
  if (q.match !== null) {
    where.push(
      `rid IN (SELECT rowid / ${TEXT_CHUNKS_PER_THREAD} FROM thread_text WHERE thread_text MATCH ? ` +
        'UNION SELECT rowid FROM thread_names WHERE thread_names MATCH ?)',
    );
    args.push(q.match, q.match);
  }
  const dir = q.direction === 'desc' ? 'DESC' : 'ASC';
  if (q.after) {
    where.push(`(${q.sortKey}, id) ${q.direction === 'desc' ? '<' : '>'} (?, ?)`);
    args.push(q.after.value, q.after.id);
  }
  args.push(q.limit + 1);
  return {
    sql: `SELECT * FROM threads WHERE ${where.join(' AND ')} ORDER BY ${q.sortKey} ${dir}, id ${dir} LIMIT ?`,
    args,
  };
}

/** Most answers `keptWhileUnchanged` keeps at once (a client's pages, each filter a sidebar or board asks for). */
const KEPT_ANSWERS = 64;

export class ThreadIndex implements IndexFiles {
  private readonly statements = new Map<string, Statement>();
  private readonly files = fileQueries((sql) => this.stmt(sql));
  /** Answers of `keptWhileUnchanged`, made while the index's contents were at `keptAt`. */
  private readonly kept = new Map<string, unknown>();
  private keptAt = '';

  constructor(private database: IndexDatabase) {}

  get db(): IndexDatabase {
    return this.database;
  }

  /** Continues on another database (a rebuilt index); the caller closes the old one. */
  replaceDatabase(db: IndexDatabase): void {
    this.statements.clear();
    this.kept.clear();
    this.keptAt = '';
    this.database = db;
  }

  /**
   * Where the contents stand: rows this connection changed (`total_changes()`, which counts every row an
   * insert, update or delete touched, full-text rows included) and commits of other connections (`PRAGMA
   * data_version`: another Weft on the same home, the `weft threads` command). Any write moves it.
   */
  private contentsVersion(): string {
    const mine: unknown = this.stmt('SELECT total_changes()').pluck().get();
    const others: unknown = this.stmt('PRAGMA data_version').pluck().get();
    return `${String(mine)}:${String(others)}`;
  }

  /**
   * `make()`'s answer for `key`, made again only once the index's contents changed: a list is asked for
   * many times a second (each client's sidebar and board, again after every event), and while nothing was
   * written its rows, and so the threads made of them, are the same. What is kept is frozen (it is handed
   * to every caller).
   */
  keptWhileUnchanged<T extends object>(key: string, make: () => T): T {
    const version = this.contentsVersion();
    if (version !== this.keptAt) {
      this.kept.clear();
      this.keptAt = version;
    }
    const known = this.kept.get(key);
    if (known !== undefined) return known as T;
    const made = deepFreeze(make());
    if (this.kept.size >= KEPT_ANSWERS) this.kept.clear();
    this.kept.set(key, made);
    return made;
  }

  private stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare<unknown[]>(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  /** Runs `fn` in one write transaction. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  get(id: string): IndexRow | null {
    const row: unknown = this.stmt('SELECT * FROM threads WHERE id = ?').get(id);
    return row === undefined ? null : rowOf(row);
  }

  /**
   * Every row's file, a page at a time (by row id, after `afterRid`; null when none are left), so the
   * caller can pause between pages: reading 10,000 rows at once holds the event loop for tens of ms.
   */
  filePage(afterRid: number, limit: number): { rows: IndexFileRow[]; lastRid: number } | null {
    return this.files.filePage(afterRid, limit);
  }

  /** The row of the rollout at `path`, if any (see IndexFiles). */
  fileAt(path: string): IndexFileRow | null {
    return this.files.fileAt(path);
  }

  /** The file of thread `id`'s row, if any (see IndexFiles). */
  fileOf(id: string): IndexFileRow | null {
    return this.files.fileOf(id);
  }

  count(): number {
    return this.files.count();
  }

  /** Inserts or replaces the row of `s.id`, and its search text. */
  upsert(s: ThreadSummary): void {
    const existing: unknown = this.stmt('SELECT rid FROM threads WHERE id = ?').get(s.id);
    const values = {
      id: s.id,
      path: s.path,
      origin: s.origin,
      file_size: s.fileSize,
      file_mtime_ms: s.fileMtimeMs,
      created_at: s.createdAtMs,
      updated_at: s.updatedAtMs,
      cwd: s.cwd,
      preview: s.preview,
      name: s.attributes.name,
      attrs: encodeAttributes(s.attributes),
      model: s.model,
      model_provider: s.modelProvider,
      source: s.source,
      cli_version: s.cliVersion,
      archived: s.archived ? 1 : 0,
      forked_from_id: s.forkedFromId,
      forked_at_turn_id: s.forkedAtTurnId,
      git_sha: s.gitSha,
      git_branch: s.gitBranch,
      git_origin_url: s.gitOriginUrl,
      tokens_total: s.tokensTotal,
      tokens_input: s.tokensInput,
      tokens_output: s.tokensOutput,
      last_turn_status: s.lastTurnStatus,
      text_chunks: s.text === '' ? 0 : 1,
      weft_worktree: s.weftWorktree === null ? null : JSON.stringify(s.weftWorktree),
      weft_project_root: s.weftWorktree?.project_root ?? null,
      sub_agent: encodeSubAgent(s.subAgent),
    };
    let rid: number;
    if (existing === undefined) {
      const cols = Object.keys(values);
      const info = this.stmt(
        `INSERT INTO threads (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`,
      ).run(values);
      rid = Number(info.lastInsertRowid);
    } else {
      rid = z.object({ rid: z.number() }).parse(existing).rid;
      const sets = Object.keys(values)
        .filter((c) => c !== 'id')
        .map((c) => `${c} = @${c}`)
        .join(', ');
      this.stmt(`UPDATE threads SET ${sets} WHERE id = @id`).run(values);
      this.stmt('DELETE FROM thread_text WHERE rowid >= ? AND rowid < ?').run(textBase(rid), textBase(rid + 1));
      this.stmt('DELETE FROM thread_names WHERE rowid = ?').run(rid);
    }
    if (s.text !== '') this.stmt('INSERT INTO thread_text (rowid, body) VALUES (?, ?)').run(textBase(rid), s.text);
    const name = s.attributes.name;
    if (name) this.stmt('INSERT INTO thread_names (rowid, name) VALUES (?, ?)').run(rid, name);
  }

  /** Applies a recorder's changes; returns false when the thread has no row (yet). */
  update(id: string, u: RowUpdate): boolean {
    const row = this.get(id);
    if (!row) return false;
    const sets = ['updated_at = @updated_at', 'file_size = @file_size', 'file_mtime_ms = @file_mtime_ms'];
    const values: Record<string, string | number | null> = {
      id,
      updated_at: Math.max(u.updatedAtMs, row.updated_at),
      file_size: u.fileSize,
      file_mtime_ms: u.fileMtimeMs,
    };
    if (u.preview !== undefined && row.preview === '') {
      sets.push('preview = @preview');
      values['preview'] = u.preview;
    }
    if (u.attributes !== undefined) {
      sets.push('name = @name', 'attrs = @attrs');
      values['name'] = u.attributes.name;
      values['attrs'] = encodeAttributes(u.attributes);
    }
    if (u.model !== undefined) {
      sets.push('model = @model');
      values['model'] = u.model;
    }
    if (u.tokens) {
      sets.push('tokens_total = @tokens_total', 'tokens_input = @tokens_input', 'tokens_output = @tokens_output');
      values['tokens_total'] = u.tokens.total;
      values['tokens_input'] = u.tokens.input;
      values['tokens_output'] = u.tokens.output;
    }
    if (u.lastTurnStatus !== undefined) {
      sets.push('last_turn_status = @last_turn_status');
      values['last_turn_status'] = u.lastTurnStatus;
    }
    const addText = u.text !== undefined && u.text !== '' && row.text_chunks < TEXT_CHUNKS_PER_THREAD;
    if (addText) sets.push('text_chunks = text_chunks + 1');
    this.stmt(`UPDATE threads SET ${sets.join(', ')} WHERE id = @id`).run(values);
    if (addText)
      this.stmt('INSERT INTO thread_text (rowid, body) VALUES (?, ?)').run(textBase(row.rid) + row.text_chunks, u.text);
    const name = u.attributes?.name;
    if (name !== undefined) {
      this.stmt('DELETE FROM thread_names WHERE rowid = ?').run(row.rid);
      if (name) this.stmt('INSERT INTO thread_names (rowid, name) VALUES (?, ?)').run(row.rid, name);
    }
    return true;
  }

  /** Records that a rollout moved (archive / unarchive). */
  moved(id: string, path: string, archived: boolean, fileMtimeMs: number): void {
    this.stmt('UPDATE threads SET path = ?, archived = ?, file_mtime_ms = ? WHERE id = ?').run(
      path,
      archived ? 1 : 0,
      fileMtimeMs,
      id,
    );
  }

  remove(id: string): void {
    const row = this.get(id);
    if (!row) return;
    this.stmt('DELETE FROM thread_text WHERE rowid >= ? AND rowid < ?').run(textBase(row.rid), textBase(row.rid + 1));
    this.stmt('DELETE FROM thread_names WHERE rowid = ?').run(row.rid);
    this.stmt('DELETE FROM threads WHERE rid = ?').run(row.rid);
  }

  origin(id: string): ThreadOrigin | null {
    return this.get(id)?.origin ?? null;
  }

  /**
   * One page (`limit + 1` rows are read to know whether more follow). A project's worktree threads work
   * in folders of their own but are the project's: listing by the project's folder lists them too.
   */
  list(q: ListQuery): IndexRow[] {
    const { sql, args } = listSql(this.withWorktreeFolders(q));
    const rows: unknown[] = this.stmt(sql).all(...args);
    return rows.map((r) => rowOf(r));
  }

  /** SQLite's plan for a list query (tests check that lists stay on an index). */
  explain(q: ListQuery): string[] {
    const { sql, args } = listSql(this.withWorktreeFolders(q));
    const rows: unknown[] = this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args);
    return rows.map((r) => String(columns(r).raw('detail')));
  }

  /** `q` with the folders of the worktree threads of its folders added to them (one indexed query). */
  private withWorktreeFolders(q: ListQuery): ListQuery {
    if (q.cwds === null || q.cwds.length === 0) return q;
    const rows: unknown[] = this.db
      .prepare(`SELECT DISTINCT cwd FROM threads WHERE weft_project_root IN (${q.cwds.map(() => '?').join(', ')})`)
      .all(...q.cwds);
    const more = rows.map((r) => columns(r).str('cwd')).filter((cwd) => !q.cwds?.includes(cwd));
    return more.length === 0 ? q : { ...q, cwds: [...q.cwds, ...more] };
  }

  /** Every thread working in a worktree of its own (live and archived), oldest first. */
  worktreeRows(): IndexRow[] {
    const rows: unknown[] = this.stmt(
      'SELECT * FROM threads WHERE weft_project_root IS NOT NULL ORDER BY created_at, id',
    ).all();
    return rows.map((r) => rowOf(r));
  }

  /** Rollouts of Weft's own threads (archived too) that used tokens and changed at or after `ms`. */
  pathsUsedSince(ms: number): string[] {
    const rows: unknown[] = this.stmt(
      "SELECT path FROM threads WHERE origin = 'weft' AND tokens_total > 0 AND updated_at >= ? ORDER BY updated_at",
    ).all(ms);
    return rows.flatMap((r) =>
      typeof r === 'object' && r !== null && 'path' in r && typeof r.path === 'string' ? [r.path] : [],
    );
  }

  /** Threads forked from `id`, oldest first. */
  forksOf(id: string): IndexRow[] {
    const rows: unknown[] = this.stmt('SELECT * FROM threads WHERE forked_from_id = ? ORDER BY created_at, id').all(id);
    return rows.map((r) => rowOf(r));
  }
}
