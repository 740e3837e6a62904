// `thread/list` params → an index query: limits, the opaque cursor, and a full-text query that cannot be
// a syntax error whatever the user typed.
import { z } from 'zod';
import { ThreadListParams, type Thread } from '../../src-preload/protocol';
import { StoreInputError } from './errors';
import { expandSourceKinds } from './sub-agent-meta';
import { threadFromRow, type IndexRow, type ListQuery, type SortKey, type ThreadIndex } from './thread-index';

export const DEFAULT_LIST_LIMIT = 25;
export const MAX_LIST_LIMIT = 100;

/** What the FTS5 `unicode61` tokenizer keeps in a token (everything else separates tokens). */
const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
const ASCII_TOKEN = /[A-Za-z0-9]+/g;

/**
 * An FTS5 query matching threads that contain every word of `term` (the last one as a prefix, for
 * search-as-you-type), or null when `term` has no word. Words are cut where the index's tokenizer cuts
 * them ("foo.bar" is foo AND bar) and each is quoted, so operators and punctuation in user text are plain
 * text. `asciiOnly` keeps only ASCII letters and digits (the fallback when the index rejects a query).
 */
export function ftsQuery(term: string, asciiOnly = false): string | null {
  const words = term.match(asciiOnly ? ASCII_TOKEN : TOKEN) ?? [];
  if (words.length === 0) return null;
  const last = words.length - 1;
  return words.map((w, i) => `"${w}"${i === last ? '*' : ''}`).join(' ');
}

const Cursor = z.object({
  k: z.enum(['created_at', 'updated_at']),
  d: z.enum(['asc', 'desc']),
  v: z.number(),
  id: z.string(),
});

export function encodeCursor(sortKey: SortKey, direction: 'asc' | 'desc', row: IndexRow): string {
  const value = sortKey === 'created_at' ? row.created_at : row.updated_at;
  return Buffer.from(JSON.stringify({ k: sortKey, d: direction, v: value, id: row.id })).toString('base64url');
}

function decodeCursor(cursor: string, sortKey: SortKey, direction: 'asc' | 'desc'): { value: number; id: string } {
  let json: unknown = null;
  try {
    json = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    // reported below
  }
  const parsed = Cursor.safeParse(json);
  if (!parsed.success)
    throw new StoreInputError(`"${cursor}" is not a thread list cursor; list again without a cursor`);
  if (parsed.data.k !== sortKey || parsed.data.d !== direction) {
    throw new StoreInputError(
      `the cursor was made for sorting by ${parsed.data.k} ${parsed.data.d}, not ${sortKey} ${direction}; list again without a cursor`,
    );
  }
  return { value: parsed.data.v, id: parsed.data.id };
}

export type ListParamsInput = z.input<typeof ThreadListParams>;

/** The index query for `thread/list` params; throws StoreInputError on a bad cursor or params. */
export function toListQuery(input: ListParamsInput): ListQuery | { empty: true } {
  const parsed = ThreadListParams.safeParse(input ?? {});
  if (!parsed.success)
    throw new StoreInputError(`invalid thread list params: ${parsed.error.issues[0]?.message ?? 'unknown problem'}`);
  const p = parsed.data;
  // Weft has no sections; Codex's recency order is the order of last activity.
  const sortKey =
    p.sortKey === 'recency_at' || p.sortKey === 'section_position' ? 'updated_at' : (p.sortKey ?? 'created_at');
  const direction = p.sortDirection ?? 'desc';
  const limit = Math.min(MAX_LIST_LIMIT, Math.max(1, p.limit ?? DEFAULT_LIST_LIMIT));
  const cwds = p.cwd === null || p.cwd === undefined ? null : Array.isArray(p.cwd) ? p.cwd : [p.cwd];
  let match: string | null = null;
  const term = p.searchTerm?.trim() ?? '';
  if (term !== '') {
    match = ftsQuery(term);
    if (match === null) return { empty: true };
  }
  return {
    limit,
    sortKey,
    direction,
    archived: p.archived === true,
    cwds,
    providers: p.modelProviders ?? null,
    sources: p.sourceKinds ? expandSourceKinds(p.sourceKinds) : null,
    match,
    failedUnread: p.weftNeedsYou === true,
    after: p.cursor ? decodeCursor(p.cursor, sortKey, direction) : null,
  };
}

/**
 * One page of `thread/list` from the index (never reads rollouts); the same page again, while the index is
 * unchanged, without asking SQLite for it (ThreadIndex.keptWhileUnchanged). Its threads are frozen.
 */
export function listThreads(
  index: ThreadIndex,
  params: ListParamsInput,
): { data: readonly Thread[]; nextCursor: string | null } {
  return index.keptWhileUnchanged(`list ${JSON.stringify(params ?? null)}`, () => readPage(index, params));
}

function readPage(index: ThreadIndex, params: ListParamsInput): { data: Thread[]; nextCursor: string | null } {
  const q = toListQuery(params);
  if ('empty' in q) return { data: [], nextCursor: null };
  let rows: IndexRow[];
  try {
    rows = index.list(q);
  } catch (error) {
    // The query is built to be valid; should the tokenizer still disagree, search the plain ASCII words.
    if (q.match === null || !(error instanceof Error) || !/fts5|MATCH/i.test(error.message)) throw error;
    const ascii = ftsQuery(typeof params === 'object' && params !== null ? (params.searchTerm ?? '') : '', true);
    rows = ascii === null ? [] : index.list({ ...q, match: ascii });
  }
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > q.limit && last ? encodeCursor(q.sortKey, q.direction, last) : null;
  return { data: page.map(threadFromRow), nextCursor };
}
