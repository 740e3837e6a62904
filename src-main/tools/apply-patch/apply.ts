// Writing a planned patch: each file through a temporary file in its own directory and a rename, so no
// file is ever seen half-written (unless its directory refuses new files: see writeAtomically); if any
// step fails, the steps already done are undone.

import { chmodSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describeFsError, errnoCode } from './plan';
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
  run: () => void;
}

/** The steps done so far: how to undo them, and what to tidy once every step has succeeded. */
class Journal {
  readonly undos: Undo[] = [];
  readonly onSuccess: (() => void)[] = [];
  readonly knownDirs = new Set<string>();

  /** Undoes every step, newest first; returns the paths that could not be restored, with the reason. */
  rollback(): string[] {
    const failed: string[] = [];
    for (const undo of this.undos.reverse()) {
      try {
        undo.run();
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

/** A fresh name next to `target`, hidden, short enough for any file system. */
function tempPathFor(target: string): string {
  tempCounter++;
  const stem = basename(target).slice(0, 96);
  const unique = `${process.pid}-${tempCounter}-${Math.random().toString(36).slice(2, 8)}`;
  return join(dirname(target), `.${stem}.${unique}.weft-tmp`);
}

function statOrUndefined(path: string, follow: boolean): Stats | undefined {
  try {
    return follow ? statSync(path, { throwIfNoEntry: false }) : lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * Writes `content` to `target` via a temporary file and a rename; `mode` null keeps the default. When the
 * directory refuses new files but `target` exists (and may be writable), `target` is overwritten in place.
 */
function writeAtomically(target: string, content: string | Buffer, mode: number | null): void {
  const temp = tempPathFor(target);
  try {
    writeFileSync(temp, content, { mode: mode ?? 0o666, flag: 'wx' });
  } catch (error) {
    const code = errnoCode(error);
    if ((code === 'EACCES' || code === 'EPERM') && statOrUndefined(target, true)?.isFile()) {
      writeFileSync(target, content);
      return;
    }
    throw error;
  }
  try {
    if (mode !== null) chmodSync(temp, mode);
    renameSync(temp, target);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // The temporary file was never created, or is already gone.
    }
    throw error;
  }
}

function ensureDirectory(journal: Journal, dir: string, display: string): void {
  if (journal.knownDirs.has(dir)) return;
  let created: string | undefined;
  try {
    created = mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new StepError(`Failed to create parent directories for ${display}`, error);
  }
  journal.knownDirs.add(dir);
  if (created === undefined) return;
  const made: string[] = [];
  for (let d = dir; d.length >= created.length; d = dirname(d)) {
    made.push(d);
    if (d === created) break;
  }
  journal.undos.push({
    path: created,
    run: () => {
      for (const d of made) rmdirSync(d);
    },
  });
}

/** What a file held before this commit overwrote it, for undoing. */
type Prior = { exists: false } | { exists: true; content: string | Buffer; mode: number | null };

function writeFile(journal: Journal, target: string, content: string, mode: number | null, display: string, prior?: Prior): void {
  let destination = target;
  const link = prior?.exists === false ? undefined : statOrUndefined(target, false);
  if (link?.isSymbolicLink()) {
    // Write through the link, so it stays a link to the edited file.
    try {
      destination = realpathSync(target);
    } catch {
      destination = target;
    }
  }
  let before = prior;
  if (before === undefined) {
    const stats = link === undefined ? undefined : statOrUndefined(destination, true);
    before = stats?.isFile()
      ? { exists: true, content: readFileSync(destination), mode: stats.mode & 0o7777 }
      : { exists: false };
  }
  ensureDirectory(journal, dirname(destination), display);
  try {
    writeAtomically(destination, content, mode);
  } catch (error) {
    throw new StepError(`Failed to write file ${display}`, error);
  }
  const restore = before;
  journal.undos.push({
    path: display,
    run: restore.exists ? () => writeAtomically(destination, restore.content, restore.mode) : () => unlinkSync(destination),
  });
}

/** Removes `target` by renaming it to a backup, deleted once the whole commit has succeeded. */
function removeFile(journal: Journal, target: string, what: string, display: string): void {
  const backup = tempPathFor(target);
  try {
    renameSync(target, backup);
  } catch (error) {
    throw new StepError(what, error);
  }
  journal.undos.push({ path: display, run: () => renameSync(backup, target) });
  journal.onSuccess.push(() => unlinkSync(backup));
}

function commitFile(journal: Journal, file: PlannedFile): void {
  const newContent = file.newContent ?? '';
  const known: Prior | undefined =
    file.observed === 'absent'
      ? { exists: false }
      : file.oldContent !== null && file.observed !== undefined
        ? { exists: true, content: file.oldContent, mode: file.mode }
        : undefined;
  switch (file.kind) {
    case 'add':
      writeFile(journal, file.path, newContent, file.mode, file.displayPath, known);
      return;
    case 'delete':
      removeFile(journal, file.path, `Failed to delete file ${file.displayPath}`, file.displayPath);
      return;
    case 'update':
      if (file.movePath !== null) {
        const display = file.displayMovePath ?? file.movePath;
        writeFile(journal, file.movePath, newContent, file.mode, display);
        removeFile(journal, file.path, `Failed to remove original ${file.displayPath}`, file.displayPath);
      } else if (newContent !== file.oldContent) {
        writeFile(journal, file.path, newContent, file.mode, file.displayPath, known);
      }
      return;
  }
}

/** Files whose state on disk is no longer what planning read. */
function changedSincePlanned(plan: PatchPlan): string[] {
  const changed: string[] = [];
  for (const file of plan.files) {
    const observed = file.observed;
    if (observed === undefined) continue;
    const now = statOrUndefined(file.path, true);
    const same = observed === 'absent' ? now === undefined : now !== undefined && now.mtimeMs === observed.mtimeMs && now.size === observed.size;
    if (!same) changed.push(file.displayPath);
  }
  return changed;
}

/**
 * Writes every file of the plan (creating parent directories, moving, deleting), in plan order. Throws
 * PatchCommitError if a file changed on disk since planning (nothing written) or a step fails (every
 * earlier step undone; the message names any file that could not be restored).
 */
export async function commitPlan(plan: PatchPlan): Promise<void> {
  const changed = changedSincePlanned(plan);
  if (changed.length > 0) {
    throw new PatchCommitError(
      `${changed.join(', ')} changed on disk after the patch was checked, so no files were changed. ` +
        'Read the current contents and send the patch again.',
    );
  }
  const journal = new Journal();
  try {
    for (const file of plan.files) commitFile(journal, file);
  } catch (error) {
    const done = journal.undos.length;
    const notRestored = journal.rollback();
    const what = error instanceof StepError ? error.message : `Failed to apply the patch: ${describeFsError(error)}`;
    const outcome =
      notRestored.length === 0
        ? done === 0
          ? 'No files were changed.'
          : 'The changes already made were undone; no files were changed.'
        : `Undoing the changes already made failed for ${notRestored.join(', ')}; check those files.`;
    throw new PatchCommitError(`${what}\n${outcome}`);
  }
  journal.finish();
}
