// Bringing the index in line with the rollouts, in the background: every rollout whose size or mtime differs
// from its row (or that has no row) is rescanned, rows whose file is gone are dropped. A big rollout's outline
// is made in the same pass and kept (outline-snapshot.ts), so its first resume reads only newer lines. The work is cut into
// slices of a few milliseconds with the event loop free in between, so lists are answered (from what is
// indexed so far) while a cold build of thousands of threads goes on; the newest threads are indexed first.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { summarizeSteps, type ThreadOrigin, type ThreadSummary } from './index-scan';
import { parseRolloutFileName } from './paths';
import { SAVE_OUTLINE_BYTES, encodeOutline, markOf } from './outline-snapshot';
import { closeRollout, openRollout, siblingsAmong, type RolloutFd, type SiblingFinder } from './rollout-source';
import { Slicer } from '../util/slicer';
import type { IndexFileRow, ThreadIndex } from './thread-index';

/** A folder of rollouts: `sessions/` (dated subfolders) or `archived_sessions/` (flat), of Weft or of Codex. */
export interface RolloutSource {
  dir: string;
  archived: boolean;
  origin: ThreadOrigin;
  /** Names from Codex's `session_index.jsonl` (thread id → newest name), applied over the rollout's own. */
  names?: ReadonlyMap<string, string>;
}

export interface RepairOptions {
  /** Rescan every file, not only changed ones (`weft threads reindex`). */
  full: boolean;
  /** Longest stretch of work between yields to the event loop. */
  sliceMs?: number;
  /** Checked at every yield: stop when the store closed. */
  cancelled: () => boolean;
  /** Where big rollouts' outlines are kept (made in the same pass) and dropped (their thread is gone). */
  outlines?: { keep(id: string, data: Buffer): void; forget(id: string): void };
  /** Awaited at every yield: resolves when no request waits on the store (the repair gives way to them). */
  giveWay?: () => Promise<void>;
  /**
   * Writes what the repair found (default: one transaction on the index it reads). The start-up check,
   * which reads in a worker thread, sends it to the main thread instead (index-check.ts).
   */
  write?: (change: IndexChange) => void;
}

/** Rows a repair writes at once: threads (re)scanned, and threads whose rollout is gone. */
export interface IndexChange {
  /** Each thread read, with its row as the repair saw it before reading (null: it had none). */
  upserts: { summary: ThreadSummary; seen: IndexFileRow | null }[];
  removed: string[];
}

const sameRow = (now: IndexFileRow | null, seen: IndexFileRow | null): boolean =>
  now === null || seen === null
    ? now === seen
    : now.path === seen.path && now.file_size === seen.file_size && now.file_mtime_ms === seen.file_mtime_ms;

/**
 * Writes `change` into `index` in one transaction. A thread whose row changed since the repair saw it is
 * left as it is: a recording wrote it meanwhile (a new thread, a turn), from the live file, after the
 * repair read that file.
 */
export function writeIndexChange(index: ThreadIndex, change: IndexChange): void {
  index.transaction(() => {
    for (const { summary, seen } of change.upserts) {
      const row = index.get(summary.id);
      const now = row && { id: row.id, path: row.path, file_size: row.file_size, file_mtime_ms: row.file_mtime_ms };
      if (sameRow(now, seen)) index.upsert(summary);
    }
    for (const id of change.removed) index.remove(id);
  });
}

export interface RepairReport {
  /** Rollouts (re)scanned into the index. */
  indexed: number;
  /** Rows dropped because their file is gone. */
  removed: number;
  /** Rollouts found, changed or not. */
  files: number;
  warnings: string[];
  cancelled: boolean;
}

interface Found {
  path: string;
  source: RolloutSource;
}

const BATCH_THREADS = 100;
const BATCH_TEXT = 2 << 20;
/** Index rows read at once when the repair compares them with the files (a few ms a page). */
const FILE_PAGE_ROWS = 1_000;

function listDir(dir: string): { name: string; dir: boolean }[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).map((e) => ({ name: e.name, dir: e.isDirectory() }));
  } catch {
    return [];
  }
}

async function walk(source: RolloutSource, slicer: Slicer, out: Found[], cancelled: () => boolean): Promise<void> {
  const stack = [{ dir: source.dir, depth: 0 }];
  while (stack.length > 0) {
    const next = stack.pop();
    if (!next) break;
    const entries = listDir(next.dir);
    for (const [i, entry] of entries.entries()) {
      if (entry.dir) {
        if (next.depth < 4) stack.push({ dir: join(next.dir, entry.name), depth: next.depth + 1 });
      } else if (parseRolloutFileName(entry.name)) {
        out.push({ path: join(next.dir, entry.name), source });
      }
      // A day's folder may hold thousands of rollouts: the slice can end inside it.
      if ((i % 256 === 255 || i === entries.length - 1) && slicer.due()) {
        await slicer.pause();
        if (cancelled()) return;
      }
    }
  }
}

/** Rescans what changed; see the file comment. */
export async function repairIndex(
  index: ThreadIndex,
  sources: readonly RolloutSource[],
  options: RepairOptions,
): Promise<RepairReport> {
  const slicer = new Slicer(options.sliceMs ?? 8, options.giveWay);
  const write = options.write ?? ((change: IndexChange) => writeIndexChange(index, change));
  const report: RepairReport = { indexed: 0, removed: 0, files: 0, warnings: [], cancelled: false };
  const stop = (): RepairReport => ({ ...report, cancelled: true });
  const found: Found[] = [];
  for (const source of sources) {
    await walk(source, slicer, found, options.cancelled);
    if (options.cancelled()) return stop();
  }
  report.files = found.length;
  // A fork's parent is looked up among the rollouts just listed (made on the first fork met).
  let siblings: SiblingFinder | null = null;
  const findParent: SiblingFinder = (child, id) => (siblings ??= siblingsAmong(found.map((f) => f.path)))(child, id);
  const rows = new Map<string, IndexFileRow>();
  const rowsById = new Map<string, IndexFileRow>();
  for (
    let page = index.filePage(0, FILE_PAGE_ROWS);
    page !== null;
    page = index.filePage(page.lastRid, FILE_PAGE_ROWS)
  ) {
    for (const r of page.rows) {
      rows.set(r.path, r);
      rowsById.set(r.id, r);
    }
    if (slicer.due()) {
      await slicer.pause();
      if (options.cancelled()) return stop();
    }
  }
  const walked = new Set<string>();
  const seenIds = new Set<string>();
  const queue: Found[] = [];
  for (const f of found) {
    // Checked before each file, unchanged ones included: a stat of every rollout is most of the work.
    if (slicer.due()) {
      await slicer.pause();
      if (options.cancelled()) return stop();
    }
    walked.add(f.path);
    const row = rows.get(f.path);
    let stat;
    try {
      stat = statSync(f.path);
    } catch {
      continue;
    }
    if (!options.full && row && row.file_size === stat.size && row.file_mtime_ms === Math.floor(stat.mtimeMs)) {
      seenIds.add(row.id);
      continue;
    }
    // A Codex thread continued in Weft lives on in its Weft copy (same id): the Codex file is left alone.
    const named = row ? null : parseRolloutFileName(basename(f.path));
    if (f.source.origin === 'codex' && named && index.origin(named.id) === 'weft') continue;
    queue.push(f);
  }
  // Newest first: rollout names start with their creation time, so the first page fills in first.
  queue.sort((a, b) => (basename(a.path) < basename(b.path) ? 1 : -1));
  const upserted = new Set<string>();
  let batch: IndexChange['upserts'] = [];
  // Outlines of big rollouts, made in the same pass, kept so their first resume reads only new lines.
  let outlines: [string, Buffer][] = [];
  let batchText = 0;
  let commits = 0;
  // Rows are written in large transactions (full-text indexing is much cheaper in bulk; one commit of
  // ~200 threads takes a few ms); the first ones early, so the newest threads are listed at once.
  const commit = (force: boolean): void => {
    if (batch.length === 0) return;
    if (!force && commits > 0 && batch.length < BATCH_THREADS && batchText < BATCH_TEXT) return;
    const items = batch;
    const kept = outlines;
    batch = [];
    outlines = [];
    batchText = 0;
    commits++;
    write({ upserts: items, removed: [] });
    for (const [id, data] of kept) options.outlines?.keep(id, data);
  };
  for (const f of queue) {
    let summary: ThreadSummary;
    let fd: RolloutFd | null = null;
    let outline: Buffer | null = null;
    try {
      const opened = openRollout(f.path, [], findParent);
      fd = opened.fd;
      for (const w of opened.warnings) report.warnings.push(w);
      const steps = summarizeSteps(fd, f.path, { archived: f.source.archived, origin: f.source.origin });
      let step = steps.next();
      while (!step.done) {
        if (slicer.due()) {
          commit(false);
          await slicer.pause();
          if (options.cancelled()) return stop();
        }
        step = steps.next();
      }
      summary = step.value.summary;
      const made = step.value.outlined;
      const mark = options.outlines && made.outline.end >= SAVE_OUTLINE_BYTES ? markOf(fd, made.outline.end) : null;
      if (mark) outline = encodeOutline(made, mark);
    } catch (error) {
      report.warnings.push(
        `${f.path}: could not be read (${error instanceof Error ? error.message : String(error)}); not indexed`,
      );
      continue;
    } finally {
      if (fd !== null) closeRollout(fd);
    }
    if (summary.id === '') {
      report.warnings.push(`${f.path}: no thread id in its session_meta or name; not indexed`);
    } else if (seenIds.has(summary.id)) {
      // Weft's folders come first: a Codex thread that has a Weft copy is that copy (no warning then).
      if (f.source.origin !== 'codex')
        report.warnings.push(`${f.path}: thread ${summary.id} is also in another rollout; this copy is not indexed`);
    } else {
      const name = f.source.names?.get(summary.id);
      if (name !== undefined) summary.attributes = { ...summary.attributes, name };
      seenIds.add(summary.id);
      upserted.add(summary.id);
      batch.push({ summary, seen: rowsById.get(summary.id) ?? null });
      if (outline) outlines.push([summary.id, outline]);
      batchText += summary.text.length;
      report.indexed++;
    }
    if (slicer.due()) {
      commit(false);
      await slicer.pause();
      if (options.cancelled()) return stop();
    }
  }
  commit(true);
  const gone = [...rows.values()].filter((r) => !walked.has(r.path) && !upserted.has(r.id) && !existsSync(r.path));
  if (gone.length > 0) {
    write({ upserts: [], removed: gone.map((r) => r.id) });
    for (const r of gone) options.outlines?.forget(r.id);
    report.removed = gone.length;
  }
  return report;
}
