// Loading a thread from its rollout: the protocol Thread, the model history (for resume and fork), and
// the UI turns — all of them, or one page of the newest turns for huge threads (older pages by cursor).
import { basename } from 'node:path';
import { z } from 'zod';
import {
  RolloutWeftWorktree,
  type ResponseItem,
  type SessionMetaPayload,
  type Thread,
  type ThreadTokenUsage,
  type TokenUsageBreakdown,
  type Turn,
  type TurnStatus,
  type WeftWorktree,
} from '../../src-preload/protocol';
import { StoreInputError } from './errors';
import { buildHistory, historyLater, type LaterHistory } from './history';
import {
  continueOutline,
  continueOutlineAsync,
  type ContinuedOutline,
  type OutlineStart,
  type RolloutOutline,
} from './outline';
import { SAVE_OUTLINE_BYTES, decodeOutline, encodeOutline, markOf } from './outline-snapshot';
import { parseRolloutFileName } from './paths';
import { closeRollout, openRollout, type RolloutFd } from './rollout-source';
import { sourceFields, sourceKindOf, subAgentOf } from './sub-agent-meta';
import { attributeFields, movedCwd, type ThreadAttributes } from './thread-events';
import type { RecordedTurnContext } from './turn-context';
import { materializeTurns, type TurnDetails, type TurnPage } from './turn-items';
import { yieldToLoop } from '../util/slicer';

export interface LoadedThread {
  /** The protocol thread (status notLoaded); `thread.turns` is `turns`. */
  thread: Thread;
  /** The model-visible history (empty when `history: false` or `'later'` was asked). */
  history: ResponseItem[];
  /** With `history: 'later'`: reads the model history when it is first needed (else absent). */
  loadHistory?: () => Promise<LaterHistory>;
  /** The turns asked for (all, or the page), oldest first, with their items. */
  turns: Turn[];
  /** Plans, approvals and errors of each turn in `turns` (same order). */
  turnDetails: TurnDetails[];
  /** Cursor of the page of older turns, or null when `turns` reaches the first turn. */
  olderTurnsCursor: string | null;
  /** How many live turns the thread has in all. */
  totalTurns: number;
  lastTurnContext: RecordedTurnContext | null;
  tokenUsage: ThreadTokenUsage | null;
  /**
   * `tokenUsage.total` by model: as Weft recorded it, else (a Codex rollout, or one written before Weft
   * recorded it) all of it under the last turn's model; null when the thread has used no tokens.
   */
  usageByModel: Record<string, TokenUsageBreakdown> | null;
  /** What the thread's attribute events set (`thread` shows them). */
  attributes: ThreadAttributes;
  /** The turn this thread was forked after (Weft forks), else null. */
  forkedAtTurnId: string | null;
  /** Lines that were skipped (torn, corrupt) and other problems; loading never fails on them. */
  warnings: string[];
  /** Complete lines in the file when it was read (null for a Codex fork read with its parent's lines). */
  lineCount: number | null;
  /** Where reading the file began: 0, or the end of the saved outline it continued (`savedOutline`). */
  outlineReadFrom: number;
  /**
   * The outline's saved form, when it read enough of the file to be worth keeping (see outline-snapshot.ts);
   * it gives null when this outline cannot be saved.
   */
  outlineToSave?: () => Buffer | null;
}

export interface LoadOptions {
  /**
   * Build the model history (default true; `read` does not need it). `'later'`: only locate its lines and
   * give `loadHistory` to read them when needed (a resume answers without parsing a big thread's history).
   */
  history?: boolean | 'later';
  /** Turns per page; omitted = every turn. */
  turnsLimit?: number | null;
  /** `olderTurnsCursor` of a previous load: the page just before it. */
  turnsCursor?: string | null;
  /**
   * Gives the thread's saved outline (`outlineToSave` of an earlier load): when it still applies, only the
   * lines after it are read. Not asked for when the history is built at once (`history: true`).
   */
  savedOutline?: () => Buffer | null;
}

/** Whether the outline parses the history lines as it goes (to build the history right away). */
function parsesHistory(options: LoadOptions): boolean {
  return options.history === undefined || options.history === true;
}

const TurnsCursor = z.object({ before: z.number().int().nonnegative(), id: z.string() });

function encodeTurnsCursor(before: number, id: string): string {
  return Buffer.from(JSON.stringify({ before, id })).toString('base64url');
}

function decodeTurnsCursor(cursor: string, outline: RolloutOutline): number {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    json = null;
  }
  const parsed = TurnsCursor.safeParse(json);
  if (!parsed.success)
    throw new StoreInputError(`"${cursor}" is not a turns cursor of this thread; read the thread again without one`);
  const { before, id } = parsed.data;
  if (outline.turns[before]?.id === id) return before;
  const found = outline.turns.findIndex((t) => t.id === id);
  if (found === -1)
    throw new StoreInputError(
      'the turns cursor is out of date (the thread was rolled back); read the thread again without one',
    );
  return found;
}

/** Creation time: the meta's timestamp, else the uuid v7 time of the id, else the first line. */
export function createdAtMs(outline: RolloutOutline, id: string): number {
  const fromMeta = outline.meta ? Date.parse(outline.meta.timestamp) : Number.NaN;
  if (Number.isFinite(fromMeta)) return fromMeta;
  const hex = id.replace(/-/g, '');
  if (/^[0-9a-f]{12}7/i.test(hex)) return Number.parseInt(hex.slice(0, 12), 16);
  return outline.firstTimestampMs;
}

/** The `weft_worktree` of a session_meta, or null when it has none (or a damaged one). */
export function rolloutWorktreeOf(meta: SessionMetaPayload | null | undefined): RolloutWeftWorktree | null {
  const parsed = RolloutWeftWorktree.safeParse(meta?.['weft_worktree']);
  return parsed.success ? parsed.data : null;
}

/** The protocol form of a saved worktree. */
export function weftWorktreeOf(saved: RolloutWeftWorktree): WeftWorktree {
  return { path: saved.path, branch: saved.branch, baseRef: saved.base_ref, projectRoot: saved.project_root };
}

/** The protocol Thread an outline describes (no turns). */
export function threadOf(outline: RolloutOutline): Thread {
  const meta = outline.meta;
  const id = meta?.id ?? parseRolloutFileName(basename(outline.path))?.id ?? '';
  const created = createdAtMs(outline, id);
  const git = meta?.git;
  return {
    id,
    projectId: null,
    forkedFromId: meta?.forked_from_id ?? null,
    preview: outline.preview,
    ephemeral: false,
    modelProvider: meta?.model_provider ?? '',
    createdAt: Math.floor(created / 1000),
    updatedAt: Math.floor(Math.max(outline.updatedAtMs, created) / 1000),
    status: { type: 'notLoaded' },
    path: outline.path,
    cwd: movedCwd(outline.attributes) ?? meta?.cwd ?? '',
    cliVersion: meta?.cli_version ?? '',
    ...sourceFields(id, sourceKindOf(meta), subAgentOf(meta)),
    gitInfo: git
      ? { sha: git.commit_hash ?? null, branch: git.branch ?? null, originUrl: git.repository_url ?? null }
      : null,
    ...attributeFields(outline.attributes),
    turns: [],
    ...worktreeField(rolloutWorktreeOf(meta)),
    ...lastTurnField(outline.turns.at(-1)?.status ?? null),
  };
}

/** `{weftLastTurnStatus}` of a thread with turns, else nothing (the field is absent). */
export function lastTurnField(status: TurnStatus | null): { weftLastTurnStatus?: TurnStatus } {
  return status === null ? {} : { weftLastTurnStatus: status };
}

/** `{weftWorktree}` for a thread in a worktree, else nothing (the field is absent). */
export function worktreeField(saved: RolloutWeftWorktree | null): { weftWorktree?: WeftWorktree } {
  return saved === null ? {} : { weftWorktree: weftWorktreeOf(saved) };
}

export function forkedAtTurnIdOf(outline: RolloutOutline): string | null {
  const value = outline.meta?.['forked_at_turn_id'];
  return typeof value === 'string' ? value : null;
}

/** Loads an open rollout; problems in the file become warnings, never errors. */
export function loadFd(fd: RolloutFd, path: string, options: LoadOptions = {}): LoadedThread {
  const outlined = continueOutline(fd, path, { history: parsesHistory(options) }, savedStart(fd, path, options));
  return withSaving(fd, outlined, loadOutline(fd, outlined.outline, options));
}

/** Where to continue from: the saved outline, when one was given and still applies. */
function savedStart(fd: RolloutFd, path: string, options: LoadOptions): OutlineStart | null {
  if (!options.savedOutline || parsesHistory(options)) return null;
  const saved = options.savedOutline();
  return saved === null ? null : decodeOutline(saved, fd, path);
}

/** Sets where the read began and, when it read much, how to save the outline. */
function withSaving(fd: RolloutFd, outlined: ContinuedOutline, loaded: LoadedThread): LoadedThread {
  loaded.outlineReadFrom = outlined.readFrom;
  loaded.lineCount = typeof fd === 'number' ? outlined.progress.lineNo : null;
  if (outlined.outline.end - outlined.readFrom < SAVE_OUTLINE_BYTES) return loaded;
  const mark = markOf(fd, outlined.outline.end);
  if (mark !== null) loaded.outlineToSave = () => encodeOutline(outlined, mark);
  return loaded;
}

/** Which turns a load shows: [from, before) of the outline's turns. */
interface PageRange {
  from: number;
  before: number;
  warnings: string[];
}

function pageRange(outline: RolloutOutline, options: LoadOptions): PageRange {
  const warnings = [...outline.warnings];
  if (!outline.meta)
    warnings.push(`${outline.path}: no readable session_meta line; id and cwd come from the file name`);
  const total = outline.turns.length;
  const before = options.turnsCursor ? decodeTurnsCursor(options.turnsCursor, outline) : total;
  const limit = options.turnsLimit ?? null;
  const from = limit === null ? 0 : Math.max(0, before - Math.max(1, limit));
  return { from, before, warnings };
}

export function loadOutline(fd: RolloutFd, outline: RolloutOutline, options: LoadOptions = {}): LoadedThread {
  const range = pageRange(outline, options);
  return assemble(fd, outline, options, range, materializeTurns(fd, outline, range.from, range.before, range.warnings));
}

/** How long loading may hold the event loop before it gives it back (between turns). */
const SLICE_MS = 10;

/** `loadOutline` that materializes the page's turns a few at a time, giving the event loop back between them. */
async function loadOutlineAsync(fd: RolloutFd, outline: RolloutOutline, options: LoadOptions): Promise<LoadedThread> {
  const range = pageRange(outline, options);
  const page: TurnPage = { turns: [], details: [] };
  let sliceStart = performance.now();
  for (let at = range.from; at < range.before; at++) {
    const one = materializeTurns(fd, outline, at, at + 1, range.warnings);
    page.turns.push(...one.turns);
    page.details.push(...one.details);
    if (performance.now() - sliceStart >= SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
  return assemble(fd, outline, options, range, page);
}

function assemble(
  fd: RolloutFd,
  outline: RolloutOutline,
  options: LoadOptions,
  { from, warnings }: PageRange,
  page: TurnPage,
): LoadedThread {
  const total = outline.turns.length;
  const history = parsesHistory(options) ? buildHistory(fd, outline, warnings) : [];
  const thread = threadOf(outline);
  thread.turns = page.turns;
  const first = outline.turns[from];
  return {
    thread,
    history,
    turns: page.turns,
    turnDetails: page.details,
    olderTurnsCursor: from > 0 && first ? encodeTurnsCursor(from, first.id) : null,
    totalTurns: total,
    lastTurnContext: outline.lastTurnContext,
    tokenUsage: outline.tokenUsage,
    usageByModel:
      outline.usageByModel ??
      (outline.tokenUsage === null
        ? null
        : { [outline.lastTurnContext?.model ?? 'unknown']: outline.tokenUsage.total }),
    attributes: outline.attributes,
    forkedAtTurnId: forkedAtTurnIdOf(outline),
    warnings,
    outlineReadFrom: 0,
    lineCount: null,
    ...(options.history === 'later' ? { loadHistory: historyLater(outline) } : {}),
  };
}

/**
 * Loads an open rollout whose outline was just made (`continueOutlineAsync`, `summarizeSteps`): reads the
 * turns asked for, giving the event loop back between them (`history: true` would build the whole model
 * history in one stretch: ask for `false` or `'later'`).
 */
export async function loadOutlinedAsync(
  fd: RolloutFd,
  outlined: ContinuedOutline,
  options: LoadOptions,
): Promise<LoadedThread> {
  return withSaving(fd, outlined, await loadOutlineAsync(fd, outlined.outline, options));
}

/** `loadFile` that gives the event loop back while it reads the file (see `continueOutlineAsync`). */
export async function loadFileAsync(path: string, options: LoadOptions = {}): Promise<LoadedThread> {
  const { fd, warnings } = openRollout(path);
  try {
    const start = savedStart(fd, path, options);
    const outlined = await continueOutlineAsync(fd, path, { history: parsesHistory(options) }, start);
    const loaded = await loadOutlinedAsync(fd, outlined, options);
    loaded.warnings.unshift(...warnings);
    return loaded;
  } finally {
    closeRollout(fd);
  }
}

export function loadFile(path: string, options: LoadOptions = {}): LoadedThread {
  const { fd, warnings } = openRollout(path);
  try {
    const loaded = loadFd(fd, path, options);
    loaded.warnings.unshift(...warnings);
    return loaded;
  } finally {
    closeRollout(fd);
  }
}
