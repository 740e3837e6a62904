// Where threads live under WEFT_HOME, and how rollout files are named:
//   sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl   (local time, as Codex names them)
//   archived_sessions/rollout-…jsonl                              (flat; the file keeps its name)
//   locks/<uuid>.lock                                             (write locks, see lock.ts)
//   weft.sqlite                                                   (the derived index)
import { join } from 'node:path';

export const SESSIONS_DIR = 'sessions';
export const ARCHIVED_DIR = 'archived_sessions';
export const LOCKS_DIR = 'locks';
/** Saved outlines of big threads (derived, see outline-snapshot.ts): `<thread id>.outline`. */
export const OUTLINES_DIR = 'outlines';
export const INDEX_FILE = 'weft.sqlite';
/** Codex homes whose threads `weft threads import-codex` indexed; kept so a rebuilt index finds them again. */
export const CODEX_HOMES_FILE = 'codex-homes.json';

export function sessionsDir(home: string): string {
  return join(home, SESSIONS_DIR);
}

export function archivedDir(home: string): string {
  return join(home, ARCHIVED_DIR);
}

export function locksDir(home: string): string {
  return join(home, LOCKS_DIR);
}

export function outlinesDir(home: string): string {
  return join(home, OUTLINES_DIR);
}

export function indexFile(home: string): string {
  return join(home, INDEX_FILE);
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** `rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl`, in local time. */
export function rolloutFileName(date: Date, id: string): string {
  const day = `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())}`;
  const time = `${pad2(date.getHours())}-${pad2(date.getMinutes())}-${pad2(date.getSeconds())}`;
  return `rollout-${day}T${time}-${id}.jsonl`;
}

/** The dated folder and file for a thread created at `date` (local time). */
export function rolloutPath(home: string, date: Date, id: string): string {
  const dir = join(sessionsDir(home), String(date.getFullYear()), pad2(date.getMonth() + 1), pad2(date.getDate()));
  return join(dir, rolloutFileName(date, id));
}

export interface RolloutFileName {
  id: string;
  year: string;
  month: string;
  day: string;
}

const FILE_NAME =
  /^rollout-(\d{4})-(\d{2})-(\d{2})T\d{2}-\d{2}-\d{2}-([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$/;

/** The thread id and date of a rollout file name, or null when the name is not a rollout's. */
export function parseRolloutFileName(name: string): RolloutFileName | null {
  const m = FILE_NAME.exec(name);
  if (!m || m[1] === undefined || m[2] === undefined || m[3] === undefined || m[4] === undefined) return null;
  return { year: m[1], month: m[2], day: m[3], id: m[4].toLowerCase() };
}

/** Whether `name` is a rollout file's name (parseRolloutFileName's test, without making its parts). */
export function isRolloutFileName(name: string): boolean {
  return FILE_NAME.test(name);
}

/** Where an archived rollout goes back to: the dated folder its name gives. */
export function unarchivedPath(home: string, fileName: string): string | null {
  const parsed = parseRolloutFileName(fileName);
  if (!parsed) return null;
  return join(sessionsDir(home), parsed.year, parsed.month, parsed.day, fileName);
}

/** Line timestamps: UTC RFC 3339 with milliseconds, e.g. "2025-05-07T17:24:21.123Z". */
export function lineTimestamp(date: Date): string {
  return date.toISOString();
}
