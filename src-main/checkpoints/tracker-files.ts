/**
 * What the tracker learns of one file or symlink: its entry, with the content stored (once, in the blob
 * store) when its stats changed, within the per-file limit and the turn's byte budget. Reading is
 * asynchronous and never follows or opens anything but the regular file that was stat-ed.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, readlink } from 'node:fs/promises';
import { OFF_LOOP_BYTES, type BlobStore, type StoredFile } from './blob-store';
import { fsPath, shown } from './path-key';
import { statDiffers, type CheckpointLimits, type Entry } from './types';

/**
 * Turns whose spending is remembered: a turn's budget starts at 0, and the oldest is forgotten once this
 * many newer ones spent (several threads may work in one workspace at once).
 */
const BUDGETS_KEPT = 8;

/** Bytes of new content stored per budget key (a turn id), for the most recent turns. */
export class TurnBudgets {
  private readonly spent = new Map<string, number>();

  spentBy(key: string): number {
    return this.spent.get(key) ?? 0;
  }

  /** How many turns' spending is remembered (at most `BUDGETS_KEPT`). */
  get size(): number {
    return this.spent.size;
  }

  /** Adds to a turn's spending; that turn becomes the newest remembered, the oldest beyond the bound is forgotten. */
  spend(key: string, bytes: number): void {
    const total = (this.spent.get(key) ?? 0) + bytes;
    this.spent.delete(key);
    this.spent.set(key, total);
    for (const old of this.spent.keys()) {
      if (this.spent.size <= BUDGETS_KEPT) break;
      this.spent.delete(old);
    }
  }
}

export interface ExamineInput {
  abs: string | Buffer;
  rel: string;
  st: Stats;
  previous: Entry | undefined;
  notes: string[];
  stored: { bytes: number };
  /** The turn whose budget pays; null: changes someone else made between calls (only the per-file limit). */
  budgetKey: string | null;
  limits: CheckpointLimits;
  budgets: TurnBudgets;
  blobs: BlobStore;
}

/** The entry for a file or symlink; reads and stores content only when the stats changed. */
export async function examineEntry(input: ExamineInput): Promise<Entry> {
  const { abs, rel, st, previous, notes, budgetKey: key, budgets } = input;
  if (st.isSymbolicLink()) {
    let target = '';
    try {
      target = await readlink(abs, 'utf8');
    } catch {
      /* vanished: recorded as an empty link, the next look corrects it */
    }
    return { kind: 'symlink', target, mtimeMs: st.mtimeMs, ino: st.ino };
  }
  const statOnly: Entry = { kind: 'file', mode: st.mode, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, hash: null };
  if (previous !== undefined && !statDiffers(previous, statOnly) && previous.kind === 'file' && previous.hash !== null)
    return previous;
  const { maxFileBytes, maxTurnBytes } = input.limits;
  if (st.size > maxFileBytes) {
    notes.push(
      `${shown(rel)}: not checkpointed: too large (${formatBytes(st.size)} > ${formatBytes(maxFileBytes)} per file)`,
    );
    return statOnly;
  }
  if (key !== null && budgets.spentBy(key) + st.size > maxTurnBytes) {
    notes.push(
      `${shown(rel)}: not checkpointed: too large (the turn's checkpoints passed ${formatBytes(maxTurnBytes)})`,
    );
    return statOnly;
  }
  // Reserved before reading: files of one batch are read side by side.
  if (key !== null) budgets.spend(key, st.size);
  const stored = await storeRegularFile(abs, st, input.blobs);
  if (key !== null) budgets.spend(key, (stored?.size ?? 0) - st.size);
  if (stored === null) return statOnly;
  input.stored.bytes += stored.written;
  return { ...statOnly, size: stored.size, hash: stored.hash };
}

/**
 * Stores the content of the regular file `abs` that `st` describes; null when it is no longer that file (a
 * symlink, a FIFO or another file was put in its place since it was looked at: never followed or read) or
 * cannot be read. A big file goes to the store a piece at a time (`BlobStore.putFile`), a small one is read
 * whole. A failure to store it throws.
 */
async function storeRegularFile(abs: string | Buffer, st: Stats, blobs: BlobStore): Promise<StoredFile | null> {
  let handle;
  try {
    handle = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    let bytes: Buffer | null = null;
    let size: number;
    try {
      const now = await handle.stat();
      if (!now.isFile() || now.ino !== st.ino || now.dev !== st.dev) return null;
      size = now.size;
      if (size < OFF_LOOP_BYTES) bytes = await handle.readFile();
    } catch {
      return null;
    }
    if (bytes === null) return await blobs.putFile(handle, size);
    const put = await blobs.put(bytes);
    return { ...put, size: bytes.length };
  } finally {
    await handle.close();
  }
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 * 1024) return `${(n / (1024 * 1024 * 1024)).toFixed(1)} GiB`;
  if (n >= 1024 * 1024) return `${Math.round(n / (1024 * 1024))} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} B`;
}

/**
 * The stats (not following symlinks) of `rels` below `root`, taken side by side; undefined for a path
 * that is gone. A path longer than the system allows is noted (it can never be checkpointed).
 */
export function statAll(root: string, rels: readonly string[], notes: string[]): Promise<(Stats | undefined)[]> {
  return Promise.all(
    rels.map((rel) =>
      lstat(fsPath(root, rel)).then(
        (st) => st,
        (error: unknown) => {
          if (errorCode(error) === 'ENAMETOOLONG')
            notes.push(`${shown(rel)}: not checkpointed: its path is longer than the system allows`);
          return undefined;
        },
      ),
    ),
  );
}

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}
