// Bringing the index in line with the rollouts, in the background: every rollout whose size or mtime differs
// from its row (or that has no row) is rescanned, rows whose file is gone are dropped. A big rollout's outline
// is made in the same pass and kept (outline-snapshot.ts), so its first resume reads only newer lines. The work is cut into
// slices of a few milliseconds with the event loop free in between, so lists are answered (from what is
// indexed so far) while a cold build of thousands of threads goes on; the newest threads are indexed first.
import { basename } from 'node:path';
import { listRollouts, scanIndex, type IndexFileRow, type IndexScan, type RolloutSource } from './index-changes';
import { summarizeSteps, type ThreadSummary } from './index-scan';
import { parseRolloutFileName } from './paths';
import { SAVE_OUTLINE_BYTES, encodeOutline, markOf } from './outline-snapshot';
import { closeRollout, openRollout, siblingsAmong, type RolloutFd, type SiblingFinder } from './rollout-source';
import { Slicer } from '../util/slicer';
import type { ThreadIndex } from './thread-index';

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
  /** What changed, when the caller found it already (scanIndex, with `full` as here); else found first. */
  scan?: IndexScan;
  /** The slices' pacing, when the caller's scan used one already. */
  slicer?: Slicer;
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

const namedId = (path: string): string | undefined => parseRolloutFileName(basename(path))?.id;

const BATCH_THREADS = 100;
const BATCH_TEXT = 2 << 20;

/** Rescans what changed; see the file comment. */
export async function repairIndex(
  index: ThreadIndex,
  sources: readonly RolloutSource[],
  options: RepairOptions,
): Promise<RepairReport> {
  const slicer = options.slicer ?? new Slicer(options.sliceMs ?? 8, options.giveWay);
  const write = options.write ?? ((change: IndexChange) => writeIndexChange(index, change));
  const report: RepairReport = { indexed: 0, removed: 0, files: 0, warnings: [], cancelled: false };
  const stop = (): RepairReport => ({ ...report, cancelled: true });
  const scan =
    options.scan ?? (await scanIndex(index, sources, { full: options.full, slicer, cancelled: options.cancelled }));
  if (scan === null || options.cancelled()) return stop();
  const { queue, seenIds } = scan;
  report.files = scan.files;
  // A fork's parent is looked up among all the rollouts (made on the first fork met).
  const all = queue.length > 0 ? await listRollouts(sources, slicer) : [];
  if (options.cancelled()) return stop();
  let siblings: SiblingFinder | null = null;
  const findParent: SiblingFinder = (child, id) => (siblings ??= siblingsAmong(all))(child, id);
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
      // The row as it was before the file was read (looked up for the thread its name gives), so that a
      // recording made meanwhile is not overwritten (writeIndexChange).
      const seen =
        f.seen?.id === summary.id || (f.seen === null && namedId(f.path) === summary.id)
          ? f.seen
          : index.fileOf(summary.id);
      batch.push({ summary, seen });
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
  const gone = scan.missing.filter((r) => !upserted.has(r.id));
  if (gone.length > 0) {
    write({ upserts: [], removed: gone.map((r) => r.id) });
    for (const r of gone) options.outlines?.forget(r.id);
    report.removed = gone.length;
  }
  return report;
}
