/**
 * What Weft knows about each fork with files: `checkpoints/forks/<thread>.json` (where it lives, its
 * branch, the project it came from) and `<thread>.base.json.gz`, the state the fork started from (a
 * workspace index, so "Compare with parent" tells each branch's changes apart and gc keeps its blobs).
 * A fork being made is `checkpoints/forks/pending/<short id>.json` from before its folder is created
 * until its record is saved: what a crash leaves in between is found by it (see fork-leftovers.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Entry } from './types';
import { indexHashes, loadIndex, saveIndex } from './workspace-index';

export const ForkRecordSchema = z.object({
  v: z.literal(1),
  threadId: z.string(),
  parentThreadId: z.string(),
  /** The project the fork came from (a fork of a fork keeps the first project). */
  project: z.string(),
  /** The parent thread's cwd when it was forked. */
  parentCwd: z.string(),
  /** The fork's cwd (inside `folder`). */
  cwd: z.string(),
  /** The worktree or copy folder. */
  folder: z.string(),
  kind: z.enum(['worktree', 'copy']),
  branch: z.string().nullable(),
  createdAt: z.string(),
  /** Set once the folder was removed ("Remove worktree"). */
  removedAt: z.string().nullable().default(null),
});
export type ForkRecord = z.infer<typeof ForkRecordSchema>;

/** A fork being made: its folder and branch are named by `shortId`. */
export const PendingForkSchema = z.object({
  v: z.literal(1),
  shortId: z.string().regex(/^[0-9a-f]+$/),
  /** The folder the fork's files go to (`<worktrees dir>/<short id>`). */
  folder: z.string(),
  /** The project forked (the parent thread's cwd). */
  root: z.string(),
  /** The process making it: while it lives, the fork is not left over. */
  pid: z.number().int(),
  startedAt: z.string(),
});
export type PendingFork = z.infer<typeof PendingForkSchema>;

export class ForkRecords {
  readonly dir: string;

  constructor(checkpointsDir: string) {
    this.dir = join(checkpointsDir, 'forks');
  }

  async save(record: ForkRecord): Promise<void> {
    await writeAtomic(this.dir, `${record.threadId}.json`, `${JSON.stringify(record)}\n`);
  }

  /** Notes a fork being made (before its folder exists). */
  async begin(pending: PendingFork): Promise<void> {
    await writeAtomic(join(this.dir, 'pending'), `${pending.shortId}.json`, `${JSON.stringify(pending)}\n`);
  }

  /** The fork named `shortId` is made (its record saved) or was cleaned away. */
  async settle(shortId: string): Promise<void> {
    await rm(join(this.dir, 'pending', `${shortId}.json`), { force: true });
  }

  /** Forks being made, or left half made by a process that ended (unreadable notes are skipped). */
  async pending(): Promise<PendingFork[]> {
    const dir = join(this.dir, 'pending');
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return [];
    }
    const out: PendingFork[] = [];
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      try {
        const parsed = PendingForkSchema.safeParse(JSON.parse(await readFile(join(dir, name), 'utf8')));
        if (parsed.success) out.push(parsed.data);
      } catch {
        // A torn note (crash while writing it) names nothing: its folder, if any, is found as unrecorded.
      }
    }
    return out;
  }

  saveBase(threadId: string, cwd: string, state: ReadonlyMap<string, Entry>): Promise<void> {
    return saveIndex(this.baseFile(threadId), cwd, state);
  }

  base(record: ForkRecord): Promise<Map<string, Entry>> {
    return loadIndex(this.baseFile(record.threadId), record.cwd);
  }

  async get(threadId: string): Promise<ForkRecord | null> {
    try {
      const parsed = ForkRecordSchema.safeParse(JSON.parse(await readFile(join(this.dir, `${threadId}.json`), 'utf8')));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** Every readable record (unreadable ones are skipped). */
  async list(): Promise<ForkRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const out: ForkRecord[] = [];
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const record = await this.get(name.slice(0, -'.json'.length));
      if (record !== null) out.push(record);
    }
    return out;
  }

  /** Blobs the fork bases refer to (for garbage collection). */
  async hashes(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const hashes: string[] = [];
    for (const name of names)
      if (name.endsWith('.base.json.gz')) hashes.push(...(await indexHashes(join(this.dir, name))));
    return hashes;
  }

  private baseFile(threadId: string): string {
    return join(this.dir, `${threadId}.base.json.gz`);
  }
}

/** Writes `dir/name` whole (temp + rename). */
async function writeAtomic(dir: string, name: string, text: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, name);
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, text, { mode: 0o600 });
  await rename(tmp, file);
}
