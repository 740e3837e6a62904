/**
 * Content the Changes panel discarded, kept so it can be put back: the file's bytes before the discard
 * go to the blob store, and a record `discards/<id>.json` says where they belong. `gc` keeps every blob
 * a discard record refers to. Records are never removed by Weft on its own; a restore marks them.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { confinedPath, readEntry } from '../util/workspace-file';
import { BlobStore, hashContent } from './blob-store';

/** Largest file a discard keeps (it is held in memory once); a larger one is not discarded. */
const MAX_KEPT_BYTES = 512 * 1024 * 1024;

const DiscardRecordFile = z.object({
  id: z.string(),
  root: z.string(),
  path: z.string(),
  kind: z.enum(['file', 'hunks', 'untracked']),
  createdAt: z.number(),
  summary: z.string(),
  restored: z.boolean(),
  /** The file before the discard; null = it did not exist. */
  before: z.object({ hash: z.string(), mode: z.number() }).nullable(),
  /** The file's hash right after the discard; null = the discard removed it. */
  afterHash: z.string().nullable(),
});
export type DiscardRecord = z.infer<typeof DiscardRecordFile>;

export class DiscardConflictError extends Error {
  constructor(readonly path: string) {
    super(
      `${path} changed since it was discarded; restoring would overwrite those changes (restore with force to keep both: the newer content is kept as a discard too)`,
    );
    this.name = 'DiscardConflictError';
  }
}

/**
 * The regular file at `path` (already confined to its root), or null for anything else: a symlink or a
 * FIFO is neither followed nor opened (see util/workspace-file.ts).
 */
async function readIfFile(path: string): Promise<{ bytes: Buffer; mode: number } | null> {
  const entry = await readEntry(path, MAX_KEPT_BYTES);
  if (entry.kind === 'tooLarge')
    throw new Error(
      `${path} is ${(entry.size / 1048576).toFixed(0)} MiB; discards keep at most ${MAX_KEPT_BYTES / 1048576} MiB so they can be restored, so it was left as it is`,
    );
  return entry.kind === 'file' ? { bytes: entry.bytes, mode: entry.mode } : null;
}

/** Writes a file through a temp file + rename, with `mode`. */
async function writeAtomic(path: string, bytes: Buffer, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.weft-restore-${randomBytes(4).toString('hex')}`;
  await writeFile(tmp, bytes, { mode });
  await chmod(tmp, mode);
  await rename(tmp, path);
}

export class DiscardStore {
  readonly dir: string;
  private readonly blobs: BlobStore;

  constructor(
    weftHome: string,
    private readonly now: () => number = Date.now,
  ) {
    const checkpointsDir = join(weftHome, 'checkpoints');
    this.dir = join(checkpointsDir, 'discards');
    this.blobs = new BlobStore(checkpointsDir);
  }

  /**
   * Keeps the current content of `root/path`, runs `discard` (which changes or removes the file), and
   * records what it took away. Nothing is recorded when `discard` throws.
   */
  async keep<T>(
    input: { root: string; path: string; kind: DiscardRecord['kind']; summary: string },
    discard: () => Promise<T>,
  ): Promise<DiscardRecord> {
    const file = await confinedPath(input.root, input.path);
    const before = await readIfFile(file);
    const stored = before === null ? null : { hash: (await this.blobs.put(before.bytes)).hash, mode: before.mode };
    await discard();
    const after = await readIfFile(file);
    const record: DiscardRecord = {
      id: `${this.now().toString(36)}-${randomBytes(4).toString('hex')}`,
      root: input.root,
      path: input.path,
      kind: input.kind,
      createdAt: this.now(),
      summary: input.summary,
      restored: false,
      before: stored,
      afterHash: after === null ? null : await hashContent(after.bytes),
    };
    await this.write(record);
    return record;
  }

  /**
   * Records a file someone else replaced (a handoff that took the other side of a conflict): its bytes
   * before, and what is there now (`after`, null when it was removed), so it can be put back like a discard.
   */
  async keepReplaced(input: {
    root: string;
    path: string;
    summary: string;
    before: { bytes: Buffer; mode: number };
    after: Buffer | null;
  }): Promise<DiscardRecord> {
    const record: DiscardRecord = {
      id: `${this.now().toString(36)}-${randomBytes(4).toString('hex')}`,
      root: input.root,
      path: input.path,
      kind: 'file',
      createdAt: this.now(),
      summary: input.summary,
      restored: false,
      before: { hash: (await this.blobs.put(input.before.bytes)).hash, mode: input.before.mode },
      afterHash: input.after === null ? null : await hashContent(input.after),
    };
    await this.write(record);
    return record;
  }

  async list(root: string): Promise<DiscardRecord[]> {
    return (await this.all()).filter((r) => r.root === root).sort((a, b) => b.createdAt - a.createdAt);
  }

  async get(id: string): Promise<DiscardRecord | null> {
    if (!/^[a-z0-9-]+$/.test(id)) return null;
    try {
      return DiscardRecordFile.parse(JSON.parse(await readFile(join(this.dir, `${id}.json`), 'utf8')));
    } catch {
      return null;
    }
  }

  /** Puts the content back. A file changed since the discard is a conflict unless `force`. */
  async restore(id: string, force: boolean): Promise<DiscardRecord> {
    const record = await this.get(id);
    if (record === null) throw new Error(`there is no discard ${id}`);
    // Confined again now: a folder on the way may have become a symlink out of the workspace since.
    const file = await confinedPath(record.root, record.path);
    const current = await readIfFile(file);
    const currentHash = current === null ? null : await hashContent(current.bytes);
    if (currentHash !== record.afterHash) {
      if (!force) throw new DiscardConflictError(record.path);
      // The newer content is kept as a discard of its own before it is replaced.
      if (current !== null) {
        const saved = { hash: (await this.blobs.put(current.bytes)).hash, mode: current.mode };
        await this.write({
          ...record,
          id: `${this.now().toString(36)}-${randomBytes(4).toString('hex')}`,
          kind: 'file',
          createdAt: this.now(),
          summary: 'replaced by a forced restore',
          before: saved,
          afterHash: null,
        });
      }
    }
    if (record.before === null) {
      throw new Error(`${record.path} did not exist before the discard; nothing to put back`);
    }
    await writeAtomic(file, await this.blobs.read(record.before.hash), record.before.mode);
    const restored = { ...record, restored: true };
    await this.write(restored);
    return restored;
  }

  /** Every blob hash a discard refers to (kept by the checkpoint gc). */
  async hashes(): Promise<string[]> {
    return (await this.all()).flatMap((r) => (r.before === null ? [] : [r.before.hash]));
  }

  private async all(): Promise<DiscardRecord[]> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
    const out: DiscardRecord[] = [];
    for (const name of names) {
      const record = await this.get(name.slice(0, -'.json'.length));
      if (record !== null) out.push(record);
    }
    return out;
  }

  private async write(record: DiscardRecord): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const path = join(this.dir, `${record.id}.json`);
    const tmp = `${path}.tmp-${randomBytes(4).toString('hex')}`;
    await writeFile(tmp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    await rename(tmp, path);
  }
}
