/**
 * Each thread's checkpoint records: `checkpoints/threads/<threadId>.jsonl`, one record per line,
 * appended with one write. Retention rewrites a file whole (temp + rename); nothing else edits it.
 * All of it is asynchronous, and a long file is parsed in slices (a record of a turn that touched
 * thousands of files is a line of megabytes).
 */
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointRecordSchema, type CheckpointRecord, type RetentionPolicy } from './types';
import { Slicer } from '../util/slicer';

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

  async append(record: CheckpointRecord): Promise<void> {
    const file = this.fileOf(record.threadId);
    await mkdir(this.dir, { recursive: true });
    await appendFile(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  }

  /** A thread's records in the order written; a torn or foreign line is skipped. */
  async read(threadId: string): Promise<CheckpointRecord[]> {
    let text: string;
    try {
      text = await readFile(this.fileOf(threadId), 'utf8');
    } catch {
      return [];
    }
    return parseLines(text);
  }

  async threads(): Promise<string[]> {
    try {
      return (await readdir(this.dir))
        .filter((name) => name.endsWith('.jsonl'))
        .map((name) => name.slice(0, -'.jsonl'.length));
    } catch {
      return [];
    }
  }

  /** Copies a thread's records under a new thread id (a fork keeps its parent's checkpoints). */
  async copy(fromThreadId: string, toThreadId: string, keep: (record: CheckpointRecord) => boolean): Promise<void> {
    const records = (await this.read(fromThreadId)).filter(keep);
    if (records.length === 0) return;
    await this.rewrite(
      toThreadId,
      records.map((record) => ({ ...record, threadId: toThreadId })),
    );
  }

  /**
   * Drops records that are neither among the last `keepTurns` turns of the thread nor younger than
   * `keepDays`. Returns how many were dropped.
   */
  async applyRetention(threadId: string, policy: RetentionPolicy, now = Date.now()): Promise<number> {
    const records = await this.read(threadId);
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
      await unlink(this.fileOf(threadId)).catch(() => undefined);
    } else await this.rewrite(threadId, kept);
    return records.length - kept.length;
  }

  async sizeOnDisk(): Promise<number> {
    let total = 0;
    for (const thread of await this.threads()) {
      try {
        total += (await stat(this.fileOf(thread))).size;
      } catch {
        /* removed meanwhile */
      }
    }
    return total;
  }

  private async rewrite(threadId: string, records: CheckpointRecord[]): Promise<void> {
    const file = this.fileOf(threadId);
    await mkdir(this.dir, { recursive: true });
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    const lines: string[] = [];
    const slicer = new Slicer();
    for (const record of records) {
      lines.push(`${JSON.stringify(record)}\n`);
      await slicer.pace();
    }
    await writeFile(tmp, lines.join(''), { mode: 0o600 });
    await rename(tmp, file);
  }
}

async function parseLines(text: string): Promise<CheckpointRecord[]> {
  const records: CheckpointRecord[] = [];
  const slicer = new Slicer();
  for (const line of text.split('\n')) {
    await slicer.pace();
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
