// Writing a planned patch: each file through a temporary file in its own directory and a rename, so no
// file is ever seen half-written (unless its directory refuses new files: see writeAtomically); if any
// step fails, the steps already done are undone.

import {
  closeSync,
  fchmodSync,
  writev,
  writevSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import type { Stats } from 'node:fs';
import { rename as renameAsync } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { resolveForWrite } from '../../safety/sandbox/writable-roots';
import { FILE_OVERWRITE_FLAGS, FILE_READ_FLAGS, openDirNoFollow, type DirHandle } from '../../util/nofollow';
import { describeFsError, errnoCode, plannedNewBytes, plannedOldBytes } from './plan';
import type { PatchPlan, PlannedFile } from './plan';

/** Writing a plan failed; the message says what failed and whether everything was put back. */
export class PatchCommitError extends Error {
  override readonly name = 'PatchCommitError';
}

/** A failed step, with the Codex-style description of what it was doing (e.g. "Failed to write file x"). */
class StepError extends Error {
  constructor(what: string, failure: unknown) {
    super(`${what}: ${describeFsError(failure)}`);
  }
}

interface Undo {
  path: string;
  run: () => void | Promise<void>;
}

/** The steps done so far: how to undo them, and what to tidy once every step has succeeded. */
class Journal {
  readonly undos: Undo[] = [];
  readonly onSuccess: (() => void)[] = [];
  /** Folders opened so far, by their resolved path. */
  readonly dirs = new Map<string, DirHandle>();
  /** Other handles kept open until the end (parents of created folders). */
  readonly handles: DirHandle[] = [];
  /** Folders resolved so far (see resolveForWrite). */
  readonly resolved = new Map<string, string | null>();

  constructor(
    readonly mayWrite: (realPath: string) => string | null,
    /** Content up to this size is written without the thread pool (see SYNC_WRITE_MAX_BYTES). */
    readonly syncWriteMax: number,
  ) {}

  close(): void {
    for (const handle of [...this.dirs.values(), ...this.handles]) {
      try {
        handle.close();
      } catch {
        // already closed
      }
    }
  }

  /** Undoes every step, newest first; returns the paths that could not be restored, with the reason. */
  async rollback(): Promise<string[]> {
    const failed: string[] = [];
    for (const undo of this.undos.reverse()) {
      try {
        await undo.run();
      } catch (error) {
        failed.push(`${undo.path} (${describeFsError(error)})`);
      }
    }
    return failed;
  }

  finish(): void {
    for (const step of this.onSuccess) {
      try {
        step();
      } catch {
        // A leftover backup file is untidy but harmless; the patch itself is fully applied.
      }
    }
  }
}

let tempCounter = 0;

/** A fresh name for a file next to `name`, hidden, short enough for any file system. */
function tempNameFor(name: string): string {
  tempCounter++;
  const stem = name.slice(0, 96);
  const unique = `${process.pid}-${tempCounter}-${Math.random().toString(36).slice(2, 8)}`;
  return `.${stem}.${unique}.weft-tmp`;
}

function statOrUndefined(path: string, follow: boolean): Stats | undefined {
  try {
    return follow ? statSync(path, { throwIfNoEntry: false }) : lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** What a file is written with: text, bytes, or bytes in pieces (written in order with writev). */
type Content = string | Buffer | readonly Buffer[];

/** Most buffers one writev takes (Linux's IOV_MAX). */
const IOV_MAX = 1024;

/**
 * Content up to this size is written synchronously: for many small files (500 added files) thread-pool
 * round trips would cost more than the writes. Bigger content is written by the thread pool, so a 50 MB
 * file never holds the event loop (in the desktop app, the main process) while the kernel copies it.
 */
const SYNC_WRITE_MAX_BYTES = 256 * 1024;

// node:util through getBuiltinModule: its ES facade reads every export, loading util's diff and parseArgs.
const writevAsync = process.getBuiltinModule('node:util').promisify(writev);

/** Writes `pieces` in order with writev, going on after short writes. */
async function writePieces(pieces: Buffer[], write: (batch: Buffer[]) => number | Promise<number>): Promise<void> {
  let at = 0;
  while (at < pieces.length) {
    const batch = pieces.slice(at, at + IOV_MAX);
    let written = await write(batch);
    // A short write: skip what was written, finish the buffer it stopped in, then go on.
    for (const piece of batch) {
      if (written >= piece.length) {
        written -= piece.length;
        at++;
        continue;
      }
      pieces[at] = piece.subarray(written);
      break;
    }
  }
}

/** Writes `content` at `fd` (synchronously up to `syncMax` bytes); resolves to the number of bytes written. */
async function writeContent(fd: number, content: Content, syncMax: number): Promise<number> {
  const pieces =
    typeof content === 'string'
      ? [Buffer.from(content, 'utf8')]
      : Buffer.isBuffer(content)
        ? [content]
        : content.filter((b) => b.length > 0);
  let size = 0;
  for (const piece of pieces) size += piece.length;
  if (size <= syncMax) await writePieces(pieces, (batch) => writevSync(fd, batch));
  else await writePieces(pieces, async (batch) => (await writevAsync(fd, batch)).bytesWritten);
  return size;
}

/** Reads a file inside `dir` without following a symlink in its place. */
function readNoFollow(dir: DirHandle, name: string): Buffer {
  const fd = openSync(dir.at(name), FILE_READ_FLAGS);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `content` to `name` in `dir` via a temporary file and a rename; `mode` null keeps the default.
 * When the folder refuses new files but the file exists, it is overwritten in place. Nothing here
 * follows a symlink: the temporary file is created exclusively and the rename replaces the entry. Up to
 * `syncMax` bytes, the writes and the rename do not go through the thread pool.
 */
async function writeAtomically(
  dir: DirHandle,
  name: string,
  content: Content,
  mode: number | null,
  syncMax: number,
): Promise<void> {
  const temp = tempNameFor(name);
  let fd: number;
  try {
    fd = openSync(dir.at(temp), 'wx', mode ?? 0o666);
  } catch (error) {
    const code = errnoCode(error);
    if ((code === 'EACCES' || code === 'EPERM') && statOrUndefined(dir.at(name), false)?.isFile()) {
      const existing = openSync(dir.at(name), FILE_OVERWRITE_FLAGS);
      try {
        await writeContent(existing, content, syncMax);
      } finally {
        closeSync(existing);
      }
      return;
    }
    throw error;
  }
  try {
    let size: number;
    try {
      size = await writeContent(fd, content, syncMax);
      if (mode !== null) fchmodSync(fd, mode);
    } finally {
      closeSync(fd);
    }
    // Renaming over a big file is slow work for the file system (ext4 starts writing the new file's data
    // out, and frees the old one's blocks): 19–20 ms for a 50 MB file. It is left to the thread pool.
    if (size <= syncMax) renameSync(dir.at(temp), dir.at(name));
    else await renameAsync(dir.at(temp), dir.at(name));
  } catch (error) {
    try {
      unlinkSync(dir.at(temp));
    } catch {
      // The temporary file is already gone.
    }
    throw error;
  }
}

/** What a file held before this commit overwrote it, for undoing. */
type Prior = { exists: false } | { exists: true; content: string | Buffer; mode: number | null };

/**
 * The folder to write `target` in, opened without following symlinks: resolved once (a symlink in the
 * path as it is now is followed, as a write would), checked with `mayWrite`, then opened component by
 * component, creating missing folders.
 */
function targetDir(
  journal: Journal,
  target: string,
  display: string,
  what: string,
): { dir: DirHandle; name: string; real: string } {
  const real = resolveForWrite(target, journal.resolved);
  if (real === null)
    throw new StepError(`${what} ${display}`, Object.assign(new Error('symlink loop'), { code: 'ELOOP' }));
  const refusal = journal.mayWrite(real);
  if (refusal !== null) throw new PatchCommitError(`Refused to write ${display}: ${refusal}`);
  const parent = dirname(real);
  let dir = journal.dirs.get(parent);
  if (dir === undefined) {
    let opened;
    try {
      opened = openDirNoFollow(parent, true);
    } catch (error) {
      throw new StepError(`Failed to create parent directories for ${display}`, error);
    }
    dir = opened.handle;
    journal.dirs.set(parent, dir);
    journal.handles.push(...opened.kept);
    for (const created of opened.created) {
      journal.undos.push({
        path: join(created.parent.path, created.name),
        run: () => rmdirSync(created.parent.at(created.name)),
      });
    }
  }
  return { dir, name: basename(real), real };
}

async function writeFile(
  journal: Journal,
  target: string,
  content: Content,
  mode: number | null,
  display: string,
  prior?: Prior,
): Promise<void> {
  // A symlink at the target is written through, so it stays a link to the edited file.
  const { dir, name } = targetDir(journal, target, display, 'Failed to write file');
  let before = prior;
  if (before === undefined || (before.exists && statOrUndefined(target, false)?.isSymbolicLink() === true)) {
    const stats = statOrUndefined(dir.at(name), false);
    before = stats?.isFile()
      ? { exists: true, content: readNoFollow(dir, name), mode: stats.mode & 0o7777 }
      : { exists: false };
  }
  try {
    await writeAtomically(dir, name, content, mode, journal.syncWriteMax);
  } catch (error) {
    throw new StepError(`Failed to write file ${display}`, error);
  }
  const restore = before;
  journal.undos.push({
    path: display,
    run: restore.exists
      ? () => writeAtomically(dir, name, restore.content, restore.mode, journal.syncWriteMax)
      : () => unlinkSync(dir.at(name)),
  });
}

/** Removes `target` by renaming it to a backup, deleted once the whole commit has succeeded. */
function removeFile(journal: Journal, target: string, what: string, display: string): void {
  // The entry itself is removed (a symlink, not what it points to): resolve only its folder.
  const folder = resolveForWrite(dirname(target), journal.resolved);
  const name = basename(target);
  if (folder === null) throw new StepError(what, Object.assign(new Error('symlink loop'), { code: 'ELOOP' }));
  const { dir } = targetDir(journal, join(folder, name), display, what);
  const backup = tempNameFor(name);
  try {
    renameSync(dir.at(name), dir.at(backup));
  } catch (error) {
    throw new StepError(what, error);
  }
  journal.undos.push({ path: display, run: () => renameSync(dir.at(backup), dir.at(name)) });
  journal.onSuccess.push(() => unlinkSync(dir.at(backup)));
}

/** Whether an update's new content differs from the old; from the byte count alone when it can. */
function updateChanges(file: PlannedFile, bytes: readonly Buffer[] | null): boolean {
  const old = plannedOldBytes(file);
  if (bytes !== null && old !== null) {
    // Compared as bytes, piece by piece: neither text is built (a 50 MB file would be copied twice).
    let at = 0;
    for (const piece of bytes) {
      if (at + piece.length > old.length || old.compare(piece, 0, piece.length, at, at + piece.length) !== 0)
        return true;
      at += piece.length;
    }
    return at !== old.length;
  }
  return file.newContent !== file.oldContent;
}

async function commitFile(journal: Journal, file: PlannedFile): Promise<void> {
  // The old bytes when planning kept them (an ASCII file): the old text is then never built.
  const oldContent =
    file.observed === undefined || file.observed === 'absent' ? null : (plannedOldBytes(file) ?? file.oldContent);
  const known: Prior | undefined =
    file.observed === 'absent'
      ? { exists: false }
      : oldContent !== null
        ? { exists: true, content: oldContent, mode: file.mode }
        : undefined;
  switch (file.kind) {
    case 'add':
      await writeFile(journal, file.path, file.newContent ?? '', file.mode, file.displayPath, known);
      return;
    case 'delete':
      removeFile(journal, file.path, `Failed to delete file ${file.displayPath}`, file.displayPath);
      return;
    case 'update': {
      const bytes = plannedNewBytes(file);
      const content = bytes ?? file.newContent ?? '';
      if (file.movePath !== null) {
        const display = file.displayMovePath ?? file.movePath;
        await writeFile(journal, file.movePath, content, file.mode, display);
        removeFile(journal, file.path, `Failed to remove original ${file.displayPath}`, file.displayPath);
      } else if (updateChanges(file, bytes)) {
        await writeFile(journal, file.path, content, file.mode, file.displayPath, known);
      }
      return;
    }
  }
}

/** Files whose state on disk is no longer what planning read. */
function changedSincePlanned(plan: PatchPlan): string[] {
  const changed: string[] = [];
  for (const file of plan.files) {
    const observed = file.observed;
    if (observed === undefined) continue;
    const now = statOrUndefined(file.path, true);
    const same =
      observed === 'absent'
        ? now === undefined
        : now !== undefined && now.mtimeMs === observed.mtimeMs && now.size === observed.size;
    if (!same) changed.push(file.displayPath);
  }
  return changed;
}

/**
 * Writes every file of the plan (creating parent directories, moving, deleting), in plan order. Throws
 * PatchCommitError if a file changed on disk since planning (nothing written) or a step fails (every
 * earlier step undone; the message names any file that could not be restored).
 */
export async function commitPlan(plan: PatchPlan, options: CommitOptions = {}): Promise<void> {
  const previous = committing;
  let done = (): void => undefined;
  committing = new Promise((resolve) => (done = resolve));
  await previous;
  try {
    await commitAlone(plan, options);
  } finally {
    done();
  }
}

/**
 * The commit in progress. Big files are written by the thread pool, so a commit has pauses in which other
 * work runs; commits still take turns, each checking its files only once the one before has written them
 * (two threads patching the same file: the second finds it changed, instead of overwriting the first).
 */
let committing: Promise<void> = Promise.resolve();

async function commitAlone(plan: PatchPlan, options: CommitOptions): Promise<void> {
  const changed = changedSincePlanned(plan);
  if (changed.length > 0) {
    throw new PatchCommitError(
      `${changed.join(', ')} changed on disk after the patch was checked, so no files were changed. ` +
        'Read the current contents and send the patch again.',
    );
  }
  const journal = new Journal(
    options.mayWrite ?? (() => null),
    options.blocking === true ? Infinity : SYNC_WRITE_MAX_BYTES,
  );
  try {
    for (const file of plan.files) await commitFile(journal, file);
  } catch (error) {
    const done = journal.undos.length;
    const notRestored = await journal.rollback();
    journal.close();
    const what =
      error instanceof StepError || error instanceof PatchCommitError
        ? error.message
        : `Failed to apply the patch: ${describeFsError(error)}`;
    const outcome =
      notRestored.length === 0
        ? done === 0
          ? 'No files were changed.'
          : 'The changes already made were undone; no files were changed.'
        : `Undoing the changes already made failed for ${notRestored.join(', ')}; check those files.`;
    throw new PatchCommitError(`${what}\n${outcome}`);
  }
  journal.finish();
  journal.close();
}

export interface CommitOptions {
  /**
   * Asked at write time about the resolved (symlink-free) path of every file written or removed: why it
   * may not be written, or null when it may. Default: everything may be written.
   */
  mayWrite?: (realPath: string) => string | null;
  /**
   * The process serves nothing else (a one-shot command): every file is written and renamed without the
   * thread pool, whose round trips would only give V8 turns of the event loop to start collections in.
   */
  blocking?: boolean;
}
