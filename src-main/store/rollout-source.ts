// Opening a rollout for reading. A Codex 0.169 fork holds only its own lines: its session_meta names the
// parent in `history_base {thread_id, end_ordinal_exclusive, end_byte_offset}`, and the thread's history
// is the parent's lines before that point followed by the fork's own. Such a file opens as a chain: one
// address space laid out as [the fork's session_meta][the parent's lines up to the fork point][the fork's
// own lines] — exactly the layout of a fork that copies its parent — so every reader works on it unchanged.
// A parent that is itself a fork is a chain too. Parents are looked up in the Codex home of the file
// (`sessions/**` and `archived_sessions/`), so a fork of an archived thread stays whole.
import { closeSync, fstatSync, openSync, readSync, readdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { ARCHIVED_DIR, SESSIONS_DIR, parseRolloutFileName } from './paths';

/** A part of a chain: bytes [from, to) of `src`, placed at `at` in the chain. */
interface Segment {
  src: RolloutFd;
  from: number;
  to: number;
  at: number;
}

export class ChainedRollout {
  readonly size: number;

  constructor(
    /** The fork's own file (its stat is the thread's). */
    readonly own: number,
    private readonly segments: readonly Segment[],
    /** Offset in the chain where the fork's own lines (after its session_meta) start. */
    readonly ownStart: number,
    /** Where the fork's own lines start in its file. */
    readonly ownFileStart: number,
  ) {
    const last = segments[segments.length - 1];
    this.size = last ? last.at + (last.to - last.from) : 0;
  }

  read(buf: Buffer, offset: number, length: number, position: number): number {
    let done = 0;
    for (const s of this.segments) {
      const len = s.to - s.from;
      const pos = position + done;
      if (done >= length) break;
      if (pos < s.at || pos >= s.at + len) continue;
      const want = Math.min(length - done, s.at + len - pos);
      let got = 0;
      while (got < want) {
        const n = readAt(s.src, buf, offset + done + got, want - got, s.from + (pos - s.at) + got);
        if (n === 0) break;
        got += n;
      }
      done += got;
      if (got < want) break;
    }
    return done;
  }

  /** The chain offset of an offset in the fork's own file (for offsets after its session_meta). */
  fromOwn(fileOffset: number): number {
    return fileOffset - this.ownFileStart + this.ownStart;
  }

  close(): void {
    for (const s of this.segments) if (s.src instanceof ChainedRollout) s.src.close();
    closeSync(this.own);
  }
}

/** An open rollout: a file descriptor, or a chain of them. */
export type RolloutFd = number | ChainedRollout;

export function readAt(fd: RolloutFd, buf: Buffer, offset: number, length: number, position: number): number {
  return typeof fd === 'number' ? readSync(fd, buf, offset, length, position) : fd.read(buf, offset, length, position);
}

/** Bytes readable from `fd`. */
export function sizeOf(fd: RolloutFd): number {
  return typeof fd === 'number' ? fstatSync(fd).size : fd.size;
}

/** The thread's own file (for its size and mtime). */
export function ownFd(fd: RolloutFd): number {
  return typeof fd === 'number' ? fd : fd.own;
}

export function closeRollout(fd: RolloutFd): void {
  if (typeof fd === 'number') closeSync(fd);
  else fd.close();
}

const HistoryBase = z.looseObject({
  thread_id: z.string(),
  end_ordinal_exclusive: z.number().int().nonnegative().nullish(),
  end_byte_offset: z.number().int().nonnegative().nullish(),
});
export type HistoryBase = z.infer<typeof HistoryBase>;

const MetaHead = z.looseObject({
  type: z.literal('session_meta'),
  payload: z.looseObject({ history_base: HistoryBase.nullish() }),
});

const HEAD_MAX = 4 << 20;

/** The first line of a file (without its newline) and where the next begins, or null. */
function firstLine(fd: number): { text: string; end: number } | null {
  let buf = Buffer.allocUnsafe(64 << 10);
  let filled = 0;
  for (;;) {
    if (filled === buf.length) {
      if (buf.length >= HEAD_MAX) return null;
      const bigger = Buffer.allocUnsafe(buf.length * 4);
      buf.copy(bigger, 0, 0, filled);
      buf = bigger;
    }
    const n = readSync(fd, buf, filled, buf.length - filled, filled);
    const nl = buf.indexOf(0x0a, Math.max(0, filled - 1));
    filled += n;
    if (nl !== -1 && nl < filled) return { text: buf.toString('utf8', 0, nl), end: nl + 1 };
    if (n === 0) return null;
  }
}

/** `history_base` of a session_meta line, when it has one. */
function historyBaseOf(line: string): HistoryBase | null {
  if (!line.includes('"history_base"')) return null;
  try {
    const parsed = MetaHead.safeParse(JSON.parse(line));
    return parsed.success ? (parsed.data.payload.history_base ?? null) : null;
  } catch {
    return null;
  }
}

const ORDINAL = /^\{"timestamp":"[^"]*","ordinal":(\d+),/;

/** The `ordinal` a line's text starts with (the first 128 bytes are enough), or null. */
function ordinalOfLine(head: string): number | null {
  const m = ORDINAL.exec(head);
  return m?.[1] === undefined ? null : Number(m[1]);
}

function ordinalAt(fd: RolloutFd, offset: number, size: number): number | null {
  if (offset >= size) return null;
  const buf = Buffer.allocUnsafe(Math.min(128, size - offset));
  const n = readAt(fd, buf, 0, buf.length, offset);
  return ordinalOfLine(buf.toString('latin1', 0, n));
}

/**
 * Where the parent's lines before the fork point end (in the parent's own file): `end_byte_offset` when it
 * is a line boundary that the ordinals agree with, else the first line whose ordinal reaches
 * `end_ordinal_exclusive`, else the whole file.
 */
function cutOf(fd: number, base: HistoryBase, warnings: string[], path: string): number {
  const size = fstatSync(fd).size;
  const end = base.end_ordinal_exclusive ?? null;
  const offset = base.end_byte_offset ?? null;
  if (offset !== null && offset > 0 && offset <= size) {
    const before = Buffer.alloc(1);
    readSync(fd, before, 0, 1, offset - 1);
    const next = ordinalAt(fd, offset, size);
    if (before[0] === 0x0a && (end === null || next === null || next >= end)) return offset;
  }
  if (end === null) return offset !== null && offset <= size ? offset : size;
  const buf = Buffer.allocUnsafe(1 << 20);
  let pos = 0;
  let lineStart = 0;
  let carry = '';
  while (pos < size) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
    if (n === 0) break;
    let from = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, from);
      if (nl === -1 || nl >= n) break;
      const head = carry + buf.toString('latin1', from, Math.min(nl, from + 128));
      carry = '';
      const m = ORDINAL.exec(head);
      if (m?.[1] !== undefined && Number(m[1]) >= end) return lineStart;
      lineStart = pos + nl + 1;
      from = nl + 1;
    }
    if (from < n) carry = buf.toString('latin1', from, Math.min(n, from + 128));
    pos += n;
  }
  warnings.push(`${path}: the fork point (ordinal ${end}) is past the end of its parent; all of the parent is used`);
  return size;
}

/** The Codex home a rollout path lies in (`<home>/sessions/YYYY/MM/DD/x` or `<home>/archived_sessions/x`). */
function homeOf(path: string): string | null {
  const dir = dirname(path);
  if (basename(dir) === ARCHIVED_DIR) return dirname(dir);
  const sessions = dirname(dirname(dirname(dir)));
  return basename(sessions) === SESSIONS_DIR ? dirname(sessions) : null;
}

function findIn(dir: string, suffix: string, depth: number): string | null {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
  for (const e of entries) if (e.isFile() && e.name.endsWith(suffix)) return join(dir, e.name);
  if (depth <= 0) return null;
  for (const e of entries.sort((a, b) => (a.name < b.name ? 1 : -1))) {
    if (!e.isDirectory()) continue;
    const hit = findIn(join(dir, e.name), suffix, depth - 1);
    if (hit) return hit;
  }
  return null;
}

/** The rollout of thread `id` in the Codex home of `childPath` (also archived), or null. */
export function findSibling(childPath: string, id: string): string | null {
  const home = homeOf(childPath);
  if (home === null) return null;
  const suffix = `-${id}.jsonl`;
  return findIn(join(home, SESSIONS_DIR), suffix, 3) ?? findIn(join(home, ARCHIVED_DIR), suffix, 0);
}

/** Finds the rollout of thread `id` in the Codex home of `childPath`, or null. */
export type SiblingFinder = (childPath: string, id: string) => string | null;

/**
 * A {@link SiblingFinder} over rollout paths already listed (the repair's walk of the folders), for many
 * forks at once: `findSibling` lists the folders again for every fork, which in an import of 10,000 Codex
 * threads took most of two seconds. A rollout in `sessions` is preferred to an archived one, as
 * `findSibling` does; a parent not among `paths` (written since they were listed) is looked for on disk.
 */
export function siblingsAmong(paths: readonly string[]): SiblingFinder {
  const byHomeAndId = new Map<string, string>();
  for (const path of paths) {
    const named = parseRolloutFileName(basename(path));
    const home = homeOf(path);
    if (named === null || home === null) continue;
    const key = `${home}\0${named.id}`;
    const known = byHomeAndId.get(key);
    if (known === undefined || (isArchived(known) && !isArchived(path))) byHomeAndId.set(key, path);
  }
  return (childPath, id) => {
    const home = homeOf(childPath);
    if (home === null) return null;
    return byHomeAndId.get(`${home}\0${id.toLowerCase()}`) ?? findSibling(childPath, id);
  };
}

const isArchived = (path: string): boolean => basename(dirname(path)) === ARCHIVED_DIR;

export interface OpenedRollout {
  fd: RolloutFd;
  /** A parent that could not be found or read (the fork then shows its own lines only). */
  warnings: string[];
}

const MAX_DEPTH = 64;

/**
 * Opens a rollout for reading, as a chain when it is a fork that holds only its own lines; `find` locates
 * the parent (default: a look through the Codex home's folders).
 */
export function openRollout(
  path: string,
  seen: readonly string[] = [],
  find: SiblingFinder = findSibling,
): OpenedRollout {
  const fd = openSync(path, 'r');
  const warnings: string[] = [];
  try {
    const head = firstLine(fd);
    const base = head ? historyBaseOf(head.text) : null;
    if (!head || !base) return { fd, warnings };
    if (seen.length >= MAX_DEPTH || seen.includes(base.thread_id)) {
      warnings.push(
        `${path}: its parent chain loops or is too deep at thread ${base.thread_id}; only its own lines are read`,
      );
      return { fd, warnings };
    }
    const parentPath = find(path, base.thread_id);
    if (parentPath === null) {
      warnings.push(
        `${path}: it continues thread ${base.thread_id}, which was not found; only its own turns are shown`,
      );
      return { fd, warnings };
    }
    const parent = openRollout(parentPath, [...seen, base.thread_id], find);
    warnings.push(...parent.warnings);
    const pfd = parent.fd;
    try {
      // The parent's part: after its session_meta up to the fork point, in the parent's own address space
      // (a chained parent's first segment is its session_meta too, so its ancestors come along).
      const pOwn = ownFd(pfd);
      const from = firstLine(pOwn)?.end ?? 0;
      const cut = Math.max(from, cutOf(pOwn, base, warnings, parentPath));
      const to = typeof pfd === 'number' ? cut : pfd.fromOwn(cut);
      const partLength = to - from;
      const size = fstatSync(fd).size;
      const segments: Segment[] = [
        { src: fd, from: 0, to: head.end, at: 0 },
        { src: pfd, from, to, at: head.end },
        { src: fd, from: head.end, to: size, at: head.end + partLength },
      ];
      return { fd: new ChainedRollout(fd, segments, head.end + partLength, head.end), warnings };
    } catch (error) {
      closeRollout(pfd);
      throw error;
    }
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** How much of a rollout's end is read to find its last line's ordinal. */
const TAIL_BYTES = 256 << 10;

/** The ordinal of the last whole line in a file's last `n` bytes (`whole`: that is all of the file), or null. */
function lastOrdinalIn(tail: Buffer, n: number, whole: boolean): number | null {
  const text = tail.toString('latin1', 0, n);
  const end = text.endsWith('\n') ? text.length - 1 : text.length;
  const start = text.lastIndexOf('\n', end - 1) + 1;
  return start > 0 || whole ? ordinalOfLine(text.slice(start, start + 128)) : null;
}

function newlinesIn(buf: Buffer, length: number): number {
  let lines = 0;
  for (let i = buf.indexOf(0x0a); i !== -1 && i < length; i = buf.indexOf(0x0a, i + 1)) lines++;
  return lines;
}

/**
 * The ordinal for the next line appended to a rollout file: one more than its last line's (read from the
 * file's tail), else the number of lines (a file written before lines had ordinals).
 */
export function nextOrdinalOf(path: string): number {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const tail = Buffer.allocUnsafe(Math.min(size, TAIL_BYTES));
    const n = readSync(fd, tail, 0, tail.length, size - tail.length);
    const last = lastOrdinalIn(tail, n, tail.length === size);
    if (last !== null) return last + 1;
    let lines = 0;
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let pos = 0; pos < size;) {
      const got = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
      if (got === 0) break;
      lines += newlinesIn(buf, got);
      pos += got;
    }
    return lines;
  } finally {
    closeSync(fd);
  }
}

/**
 * `nextOrdinalOf` without holding the event loop: a file whose last line has no ordinal is counted by chunks,
 * unless its count of lines is known (`lines`, from an outline of the whole file made under the same lock).
 */
export async function nextOrdinalOfAsync(path: string, lines?: number): Promise<number> {
  const file = await open(path, 'r');
  try {
    const size = (await file.stat()).size;
    const tail = Buffer.allocUnsafe(Math.min(size, TAIL_BYTES));
    const { bytesRead } = await file.read(tail, 0, tail.length, size - tail.length);
    const last = lastOrdinalIn(tail, bytesRead, tail.length === size);
    if (last !== null) return last + 1;
    if (lines !== undefined) return lines;
    let counted = 0;
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let pos = 0; pos < size;) {
      const got = (await file.read(buf, 0, Math.min(buf.length, size - pos), pos)).bytesRead;
      if (got === 0) break;
      counted += newlinesIn(buf, got);
      pos += got;
    }
    return counted;
  } finally {
    await file.close();
  }
}
