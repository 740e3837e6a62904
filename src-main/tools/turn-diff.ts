import { constants } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import type { WeftDiffCut } from '../../src-preload/protocol';
import { DiffText } from '../util/diff-cut';
import { blobHasher, looksBinary } from '../util/git-blob';
import { countHunks, diffBytes, diffCreated, diffKnown, writeHunks, type ChangeBlock } from '../util/line-diff';
import { hasMarker } from '../util/markers';
import { Slicer, type Pacer } from '../util/slicer';
import type { CheckpointedChange, FileCheckpoints } from './file-checkpoints';
import { scanNewFile } from './new-file-scan';

/** What the diff reads from checkpoints: stored contents and where a workspace key is. */
type CheckpointContent = Pick<FileCheckpoints, 'content' | 'absolutePath'>;

interface Tracked {
  /** Path before the turn touched it; null when the file did not exist. */
  originalPath: string | null;
  /** Where the file is now; null once deleted. */
  currentPath: string | null;
  baseline: Buffer | null;
  baselineMode: string;
  /** The baseline's blob id, once computed. */
  baselineOid?: string;
  /** Set when a side was too large to be checkpointed: the file is named as changed, without content. */
  tooLarge?: true;
  /** What the last diff learned of the file as it was then (see `FileMemo`). */
  memo?: FileMemo;
}

/**
 * What one diff learned of a file, reused by the next while the file's stat is the same (`stamp`): a turn's
 * diff is made again after every step, and a file the step did not touch is then neither read, hashed nor
 * compared again; past the size limit, where its hunks are only counted, it is not read at all.
 */
type FileMemo =
  | { stamp: string; same: true }
  | { stamp: string; same: false; mode: string; oid: string; binary: true }
  | { stamp: string; same: false; mode: string; oid: string; binary: false; blocks: readonly ChangeBlock[] };

/** A file's stat as a key (null: read it again however it looks) and its git mode. */
interface Stamp {
  key: string | null;
  mode: string;
}

/**
 * A file's stat as a key (inode, size, change and modification times in ns, mode), or null when the file
 * is missing or was modified so recently that a second write in the same clock tick could leave the same
 * stat behind (git's "racily clean" case): such a file is read again.
 */
async function stampOf(path: string, recentNs: bigint): Promise<Stamp | null> {
  try {
    const st = await stat(path, { bigint: true });
    const mode = st.mode & 0o111n ? '100755' : '100644';
    if (!st.isFile()) return { key: null, mode };
    const now = BigInt(Date.now()) * 1_000_000n;
    const racy = now - st.mtimeNs < recentNs || now - st.ctimeNs < recentNs;
    return { key: racy ? null : `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.mode}`, mode };
  } catch {
    return null;
  }
}

/** A file changed less than this long ago is read again however its stat looks. */
const RECENT_NS = 200_000_000n;

const ZERO_OID = '0000000000000000000000000000000000000000';

/** The git root above `dir`, or `dir` itself outside a repository. */
export async function findRepoRoot(dir: string): Promise<string> {
  for (let d = dir; ; d = dirname(d)) {
    if (await hasMarker(d, '.git')) return d;
    if (dirname(d) === d) return dir;
  }
}

/**
 * Everything one turn changed, through patches and commands, as one git-style unified diff: each
 * file's content the first time the turn touched it is the baseline; a patch's moves keep the file's
 * identity.
 */
export class TurnDiffTracker {
  private readonly files: Tracked[] = [];
  /** The diff last sent in `turn/diff/updated` (null: none yet). */
  lastSent: string | null = null;

  /**
   * `root`: the folder diff paths are relative to (found while the turn runs: see findRepoRoot).
   * `recentNs`: a file changed less than this long ago is read again however its stat looks (tests set 0
   * to see what is learned kept; see `stampOf`).
   */
  constructor(
    private readonly root: string | Promise<string>,
    private readonly recentNs: bigint = RECENT_NS,
  ) {}

  /** Call before a patch is written, for every path it will touch (and each move's destination). */
  async beforeChange(changes: { path: string; movePath?: string | null }[]): Promise<void> {
    for (const change of changes) {
      if (this.files.some((f) => f.currentPath === change.path)) continue;
      const baseline = await readOrNull(change.path);
      this.files.push({
        originalPath: baseline ? change.path : null,
        currentPath: change.path,
        baseline,
        baselineMode: await modeOf(change.path),
      });
    }
  }

  /** Call after a patch was written. */
  afterChange(changes: { path: string; kind: 'add' | 'delete' | 'update'; movePath?: string | null }[]): void {
    for (const change of changes) {
      const tracked = this.files.find((f) => f.currentPath === change.path);
      if (!tracked) continue;
      if (change.kind === 'delete') tracked.currentPath = null;
      else if (change.movePath) {
        // The destination may have been tracked separately (overwritten by the move): it is this file now.
        const dest = this.files.findIndex((f) => f !== tracked && f.currentPath === change.movePath);
        if (dest >= 0) this.files.splice(dest, 1);
        tracked.currentPath = change.movePath;
      }
    }
  }

  /**
   * Adds the files a checkpoint saw a command change (`changes` as recorded, against `root`): a file the
   * turn had not touched yet gets its checkpointed earlier content as its baseline. Folders and symlinks
   * are not files of the diff; a path whose earlier or later content was too large to be checkpointed is
   * named without content.
   */
  async addRecorded(
    changes: readonly CheckpointedChange[],
    root: string,
    checkpoints: CheckpointContent,
  ): Promise<void> {
    // Paths the turn already tracks, where they are now and where they were (a file a patch deleted or
    // moved away is still the same file: its earlier content is its baseline already).
    const known = new Set(this.files.flatMap((f) => [f.currentPath, f.originalPath]));
    const added: { path: string; change: CheckpointedChange }[] = [];
    for (const change of changes) {
      if (change.before?.kind !== 'file' && change.after?.kind !== 'file') continue;
      const path = checkpoints.absolutePath(root, change.path);
      if (typeof path !== 'string') continue;
      if (known.has(path)) {
        // A file the turn deleted that a command made again: it is there again, compared with its baseline.
        const gone = this.files.find((f) => f.originalPath === path && f.currentPath === null);
        const there = this.files.some((f) => f.currentPath === path);
        if (gone !== undefined && !there && change.after !== null) gone.currentPath = path;
        continue;
      }
      known.add(path);
      added.push({ path, change });
    }
    // Earlier contents are read from the store a batch at a time, side by side.
    for (let at = 0; at < added.length; at += READ_BATCH) {
      const batch = added.slice(at, at + READ_BATCH);
      const tracked = await Promise.all(batch.map(({ path, change }) => trackedFrom(path, change, checkpoints)));
      this.files.push(...tracked);
    }
  }

  /**
   * The aggregated diff, files in path order; empty when nothing differs from the baselines. Cut to
   * WEFT_DIFF_MAX_CHARS (`cut` then gives the totals). Computed in slices that give the event loop back:
   * a file of a million lines with ten thousand changes takes a few hundred ms of work, never in one go.
   */
  async diff(): Promise<{ diff: string; cut?: WeftDiffCut }> {
    const root = await this.root;
    const pacer = new Slicer();
    const changed: Changed[] = [];
    const stamps = await this.stampAll();
    for (const [i, f] of this.files.entries()) {
      const key = rel(root, f.originalPath ?? f.currentPath ?? '');
      if (f.tooLarge) {
        changed.push({ key, file: f, current: null, memo: null, mode: null });
        continue;
      }
      const stamp = stamps[i] ?? null;
      const memo = stamp?.key != null && f.memo?.stamp === stamp.key ? f.memo : null;
      if (memo?.same === true && f.originalPath === f.currentPath) continue;
      if (memo?.same === false) {
        changed.push({ key, file: f, current: null, memo, mode: stamp?.mode ?? null });
        continue;
      }
      delete f.memo;
      if (f.baseline === null && f.currentPath !== null) {
        // Made by the turn: read a piece at a time when its text is written (see createdFileDiff).
        if (stamp !== null)
          changed.push({ key, file: f, current: null, memo: null, mode: stamp.mode, stamp: stamp.key });
        continue;
      }
      // A file that cannot be stat-ed is gone: it is not read (a command that deleted thousands of files
      // would otherwise pay for a failed read of each).
      const current = f.currentPath !== null && stamp !== null ? await readOrNull(f.currentPath) : null;
      if (f.baseline === null && current === null) continue;
      if (f.baseline && current && f.baseline.equals(current)) {
        if (stamp?.key != null) f.memo = { stamp: stamp.key, same: true };
        if (f.originalPath === f.currentPath) continue;
      }
      changed.push({ key, file: f, current, memo: null, mode: stamp?.mode ?? null, stamp: stamp?.key ?? null });
    }
    changed.sort((a, b) => a.key.localeCompare(b.key));
    const out = new DiffText();
    for (const entry of changed) await this.fileDiff(root, entry, out, pacer);
    return out.finish();
  }

  /**
   * The stat of every tracked file where it is now (null: gone, or deleted by a patch; undefined: named
   * without content), taken side by side a batch at a time: one after the other, a command that deleted
   * 3,000 files cost 3,000 round trips to the thread pool in a row, seconds on a busy machine.
   */
  private async stampAll(): Promise<(Stamp | null | undefined)[]> {
    const stamps: (Stamp | null | undefined)[] = [];
    for (let at = 0; at < this.files.length; at += STAT_BATCH) {
      const batch = this.files.slice(at, at + STAT_BATCH);
      stamps.push(
        ...(await Promise.all(
          batch.map((f) =>
            f.tooLarge ? undefined : f.currentPath !== null ? stampOf(f.currentPath, this.recentNs) : null,
          ),
        )),
      );
    }
    return stamps;
  }

  private async fileDiff(root: string, entry: Changed, out: DiffText, pacer: Pacer): Promise<void> {
    const { file: f, memo } = entry;
    let { current } = entry;
    const oldName = f.originalPath ? rel(root, f.originalPath) : rel(root, f.currentPath ?? '');
    const newName = f.currentPath ? rel(root, f.currentPath) : oldName;
    const lines = [`diff --git a/${oldName} b/${newName}`];
    if (f.tooLarge) {
      lines.push(`~ Weft left out the content of ${newName}: it was too large to be checkpointed`);
      out.file(lines);
      return;
    }
    let known = memo !== null && !memo.same ? memo : null;
    if (f.baseline === null && f.currentPath !== null && (known === null || out.open)) {
      await this.createdFileDiff(entry, f.currentPath, lines, newName, out, pacer);
      return;
    }
    let stamp = entry.stamp ?? null;
    let mode = entry.mode;
    if (known !== null && out.open) {
      // Its text is needed: read again, its changes and blob id kept unless it changed since its stat.
      current = f.currentPath ? await readOrNull(f.currentPath) : null;
      const again = f.currentPath ? await stampOf(f.currentPath, this.recentNs) : null;
      if (current === null || again?.key !== known.stamp) {
        known = null;
        stamp = null;
        mode = again?.mode ?? null;
      }
    }
    const present = known !== null || current !== null;
    // A file that is gone has no mode of its own: the diff names its earlier one.
    const newMode = !present
      ? f.baselineMode
      : (known?.mode ?? mode ?? (f.currentPath ? await modeOf(f.currentPath) : '100644'));
    if (f.baseline === null) lines.push(`new file mode ${newMode}`);
    else if (!present) lines.push(`deleted file mode ${f.baselineMode}`);
    else if (f.baselineMode !== newMode) lines.push(`old mode ${f.baselineMode}`, `new mode ${newMode}`);
    if (f.baseline !== null) f.baselineOid ??= await blobOidSliced(f.baseline, pacer);
    const oldOid = f.baselineOid ?? ZERO_OID;
    const newOid = known?.oid ?? (current ? await blobOidSliced(current, pacer) : ZERO_OID);
    const sameMode = f.baseline !== null && present && f.baselineMode === newMode;
    lines.push(`index ${oldOid}..${newOid}${sameMode ? ` ${newMode}` : ''}`);
    const binary = known?.binary ?? (isBinary(f.baseline) || isBinary(current));
    if (binary) {
      lines.push(
        `Binary files ${f.baseline ? `a/${oldName}` : '/dev/null'} and ${present ? `b/${newName}` : '/dev/null'} differ`,
      );
      out.file(lines);
      if (stamp !== null && current !== null) f.memo = { stamp, same: false, mode: newMode, oid: newOid, binary: true };
      return;
    }
    lines.push(f.baseline ? `--- a/${oldName}` : '--- /dev/null', present ? `+++ b/${newName}` : '+++ /dev/null');
    out.file(lines);
    if (known !== null && !known.binary) {
      if (!out.open) countHunks(known.blocks, out);
      else await writeHunks(await diffKnown(f.baseline ?? EMPTY, current ?? EMPTY, known.blocks, pacer), out, pacer);
      return;
    }
    const diff = await diffBytes(f.baseline ?? EMPTY, current ?? EMPTY, pacer);
    if (stamp !== null && current !== null)
      f.memo = { stamp, same: false, mode: newMode, oid: newOid, binary: false, blocks: diff.blocks };
    await writeHunks(diff, out, pacer);
  }

  /**
   * A file the turn made (it has no baseline), read a piece at a time: its blob id and lines are counted
   * over the whole file, and only the bytes the diff can still show are kept (none once text is no longer
   * kept). Written as the whole-file diff of it would be; gone since its stat, it is left out.
   */
  private async createdFileDiff(
    entry: Changed,
    path: string,
    lines: string[],
    newName: string,
    out: DiffText,
    pacer: Pacer,
  ): Promise<void> {
    const f = entry.file;
    const scan = await scanNewFile(path, out.roomLeft, pacer);
    if (scan === null) return;
    const mode = entry.mode ?? (await modeOf(path));
    lines.push(`new file mode ${mode}`, `index ${ZERO_OID}..${scan.oid}`);
    const diff = scan.binary ? null : await diffCreated(scan.head, scan.lines, pacer);
    if (diff === null) lines.push(`Binary files /dev/null and b/${newName} differ`);
    else lines.push('--- /dev/null', `+++ b/${newName}`);
    out.file(lines);
    if (diff !== null) await writeHunks(diff, out, pacer);
    // What was learned is kept under the stat taken before the file was read.
    const stamp = entry.stamp ?? (entry.memo?.same === false ? entry.memo.stamp : null);
    if (stamp !== null)
      f.memo = diff
        ? { stamp, same: false, mode, oid: scan.oid, binary: false, blocks: diff.blocks }
        : { stamp, same: false, mode, oid: scan.oid, binary: true };
  }
}

/** A file of the diff as `diff` found it: its content (null when deleted, or when `memo` stands for it). */
interface Changed {
  key: string;
  file: Tracked;
  current: Buffer | null;
  memo: FileMemo | null;
  /** Its mode from the stat taken before it was read. */
  mode: string | null;
  /** Its stat's key from before it was read, for the memo made of it. */
  stamp?: string | null;
}

const EMPTY = Buffer.alloc(0);
/** Earlier contents read from the checkpoint store at once. */
const READ_BATCH = 16;
/** Files stat-ed at once when the diff is made. */
const STAT_BATCH = 64;

/** A file a command changed, with its checkpointed earlier content as the baseline. */
async function trackedFrom(path: string, change: CheckpointedChange, checkpoints: CheckpointContent): Promise<Tracked> {
  const { before, after } = change;
  const file = before?.kind === 'file' ? before : null;
  let baseline: Buffer | null = null;
  if (file !== null && file.hash !== null) {
    try {
      baseline = await checkpoints.content(file.hash);
    } catch {
      baseline = null; // collected meanwhile: shown like a file too large to keep
    }
  }
  const tooLarge = (file !== null && baseline === null) || (after?.kind === 'file' && after.hash === null);
  return {
    originalPath: file === null ? null : path,
    currentPath: path,
    baseline,
    baselineMode: file !== null && file.mode & 0o111 ? '100755' : '100644',
    ...(tooLarge ? { tooLarge: true as const } : {}),
  };
}

/** A file's bytes, or null when it cannot be read; never waits for a writer (a FIFO in the file's place). */
async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path, { flag: constants.O_RDONLY | constants.O_NONBLOCK });
  } catch {
    return null;
  }
}

async function modeOf(path: string): Promise<string> {
  try {
    return (await stat(path)).mode & 0o111 ? '100755' : '100644';
  } catch {
    return '100644';
  }
}

/** Bytes hashed in one slice: about 4 ms of SHA-1. */
const HASH_CHUNK = 4 * 1024 * 1024;

/** blobOid, hashing a big file a few MB at a time between pauses. */
async function blobOidSliced(content: Buffer, pacer: Pacer): Promise<string> {
  const hash = blobHasher(content.length);
  for (let at = 0; at < content.length; at += HASH_CHUNK) {
    hash.update(content.subarray(at, at + HASH_CHUNK));
    await pacer.pace();
  }
  return hash.digest('hex');
}

function isBinary(b: Buffer | null): boolean {
  return b !== null && looksBinary(b);
}

function rel(root: string, p: string): string {
  return relative(root, p).split('\\').join('/');
}
