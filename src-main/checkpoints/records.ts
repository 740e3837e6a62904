/**
 * Each thread's checkpoint records: `checkpoints/threads/<threadId>.jsonl`, one record per line,
 * appended with one write. Retention rewrites a file whole (temp + rename); nothing else edits it.
 */
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { CheckpointRecordSchema, type CheckpointRecord, type RetentionPolicy } from './types';

const SAFE_ID = /^[A-Za-z0-9._-]+$/;

export class RecordLog {
  readonly dir: string;

  constructor(checkpointsDir: string) {
    this.dir = join(checkpointsDir, 'threads');
  }

  private fileOf(threadId: string): string {
    if (!SAFE_ID.test(threadId)) throw new Error(`thread id "${threadId}" cannot name a checkpoint file`);
    return join(this.dir, `${threadId}.jsonl`);
  }

  append(record: CheckpointRecord): void {
    mkdirSync(this.dir, { recursive: true });
    appendFileSync(this.fileOf(record.threadId), `${JSON.stringify(record)}\n`, { mode: 0o600 });
  }

  /** A thread's records in the order written; a torn or foreign line is skipped. */
  read(threadId: string): CheckpointRecord[] {
    let text: string;
    try {
      text = readFileSync(this.fileOf(threadId), 'utf8');
    } catch {
      return [];
    }
    return parseLines(text);
  }

  threads(): string[] {
    try {
      return readdirSync(this.dir)
        .filter((name) => name.endsWith('.jsonl'))
        .map((name) => name.slice(0, -'.jsonl'.length));
    } catch {
      return [];
    }
  }

  /** Copies a thread's records under a new thread id (a fork keeps its parent's checkpoints). */
  copy(fromThreadId: string, toThreadId: string, keep: (record: CheckpointRecord) => boolean): void {
    const records = this.read(fromThreadId).filter(keep);
    if (records.length === 0) return;
    this.rewrite(
      toThreadId,
      records.map((record) => ({ ...record, threadId: toThreadId })),
    );
  }

  /**
   * Drops records that are neither among the last `keepTurns` turns of the thread nor younger than
   * `keepDays`. Returns how many were dropped.
   */
  applyRetention(threadId: string, policy: RetentionPolicy, now = Date.now()): number {
    const records = this.read(threadId);
    const turnOrder: string[] = [];
    for (const record of records)
      if (record.turnId !== null && !turnOrder.includes(record.turnId)) turnOrder.push(record.turnId);
    const keptTurns = new Set(turnOrder.slice(Math.max(0, turnOrder.length - policy.keepTurns)));
    const cutoff = now - policy.keepDays * 24 * 60 * 60 * 1000;
    const kept = records.filter(
      (record) => Date.parse(record.at) >= cutoff || (record.turnId !== null && keptTurns.has(record.turnId)),
    );
    if (kept.length === records.length) return 0;
    if (kept.length === 0) {
      try {
        unlinkSync(this.fileOf(threadId));
      } catch {
        /* already gone */
      }
    } else this.rewrite(threadId, kept);
    return records.length - kept.length;
  }

  sizeOnDisk(): number {
    let total = 0;
    for (const thread of this.threads()) {
      try {
        total += statSync(this.fileOf(thread)).size;
      } catch {
        /* removed meanwhile */
      }
    }
    return total;
  }

  private rewrite(threadId: string, records: CheckpointRecord[]): void {
    mkdirSync(this.dir, { recursive: true });
    const file = this.fileOf(threadId);
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, records.map((record) => `${JSON.stringify(record)}\n`).join(''), { mode: 0o600 });
    renameSync(tmp, file);
  }
}

function parseLines(text: string): CheckpointRecord[] {
  const records: CheckpointRecord[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = CheckpointRecordSchema.safeParse(value);
    if (parsed.success) records.push(parsed.data);
  }
  return records;
}

/** Every blob hash a record refers to. */
export function recordHashes(record: CheckpointRecord): string[] {
  const hashes: string[] = [];
  for (const change of record.changes) {
    for (const side of [change.before, change.after])
      if (side?.kind === 'file' && side.hash !== null) hashes.push(side.hash);
  }
  return hashes;
}
