/**
 * Puts a set of paths into given states, all or nothing from the user's point of view. Every new
 * file is staged first in `<root>/.weft-restore-<id>/` (same filesystem, so renames are atomic); a
 * journal in the checkpoint store then says "applying" (fsynced) and the staged files are renamed
 * into place, each replaced file kept as a hard link backup. On an error the applied steps are undone
 * from the backups; after a crash, `recoverRestores` finishes what a journal says was applying (or
 * drops what was only staged), so the workspace ends in the old or the new state, never between.
 * No step follows a symlink: a path whose parent inside the workspace is a symlink is refused.
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import type { BlobStore } from './blob-store';
import type { Entry } from './types';

export const STAGING_PREFIX = '.weft-restore-';

/** One path and the state it should end in (null = absent). */
export interface DesiredState {
  path: string;
  state: Entry | null;
}

const OpSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('place'), path: z.string(), stage: z.string(), backup: z.string() }),
  z.object({ kind: z.literal('remove'), path: z.string(), backup: z.string() }),
  z.object({ kind: z.literal('rmdir'), path: z.string() }),
  z.object({ kind: z.literal('mkdir'), path: z.string(), mode: z.int() }),
  z.object({ kind: z.literal('chmod'), path: z.string(), mode: z.int(), oldMode: z.int() }),
]);
type Op = z.infer<typeof OpSchema>;

const JournalSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  root: z.string(),
  state: z.enum(['staging', 'applying']),
  ops: z.array(OpSchema),
});
type Journal = z.infer<typeof JournalSchema>;

export class UnsafePathError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path}: not restored: ${reason}`);
    this.name = 'UnsafePathError';
  }
}

export interface ApplyHooks {
  /** Called once everything is staged, before the first step (tests use it to stop a process there). */
  afterStaging?: () => Promise<void> | void;
  /** Called after each applied step (tests use it to stop a process mid-restore). */
  afterStep?: (index: number, total: number) => Promise<void> | void;
}

export interface ApplyResult {
  /** Paths that were left as they were, with the reason (e.g. a folder that still holds other files). */
  skipped: string[];
}

/** Checks a relative path and that no parent inside the root is a symlink or a non-directory. */
export function assertSafePath(root: string, rel: string): void {
  if (
    rel === '' ||
    isAbsolute(rel) ||
    rel.includes('\\') ||
    rel.split('/').some((part) => part === '..' || part === '.' || part === '')
  ) {
    throw new UnsafePathError(rel, 'the path leaves the workspace');
  }
  const parts = rel.split('/');
  let current = root;
  for (const part of parts.slice(0, -1)) {
    current = join(current, part);
    let st;
    try {
      st = lstatSync(current);
    } catch {
      return; // missing parents are created as plain folders
    }
    if (st.isSymbolicLink())
      throw new UnsafePathError(rel, `its folder ${current.slice(root.length + 1)} is a symbolic link`);
    if (!st.isDirectory()) throw new UnsafePathError(rel, `${current.slice(root.length + 1)} is not a folder`);
  }
}

function currentKind(abs: string): 'file' | 'symlink' | 'dir' | 'other' | null {
  try {
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) return 'symlink';
    if (st.isDirectory()) return 'dir';
    if (st.isFile()) return 'file';
    return 'other';
  } catch {
    return null;
  }
}

function depth(path: string): number {
  return path.split('/').length;
}

/**
 * Applies the desired states. Throws (having written nothing, or having undone what it wrote) when a
 * step fails.
 */
export async function applyRestore(
  root: string,
  journalDir: string,
  blobs: BlobStore,
  desired: readonly DesiredState[],
  hooks: ApplyHooks = {},
): Promise<ApplyResult> {
  for (const item of desired) assertSafePath(root, item.path);
  const id = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const stagingDir = join(root, `${STAGING_PREFIX}${id}`);
  const journalFile = join(journalDir, `${id}.json`);
  const skipped: string[] = [];
  const removals: Op[] = [];
  const rmdirs: Op[] = [];
  const mkdirs: Op[] = [];
  const places: Op[] = [];
  const chmods: Op[] = [];
  let n = 0;
  const nextName = (): string => `n${(n += 1)}`;
  const desiredDirs = new Set(desired.filter((d) => d.state?.kind === 'dir').map((d) => d.path));
  const implicitDirs = new Set<string>();
  const wantParents = (rel: string): void => {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i += 1) {
      const dir = parts.slice(0, i).join('/');
      if (!desiredDirs.has(dir) && !implicitDirs.has(dir) && currentKind(join(root, dir)) === null) {
        implicitDirs.add(dir);
        mkdirs.push({ kind: 'mkdir', path: dir, mode: 0o755 });
      }
    }
  };
  const journal: Journal = { v: 1, id, root, state: 'staging', ops: [] };
  mkdirSync(journalDir, { recursive: true });
  writeJournal(journalFile, journal);
  mkdirSync(stagingDir, { mode: 0o700 });
  try {
    for (const { path, state } of desired) {
      const abs = join(root, path);
      const kind = currentKind(abs);
      if (state === null) {
        if (kind === 'dir') rmdirs.push({ kind: 'rmdir', path });
        else if (kind !== null) removals.push({ kind: 'remove', path, backup: nextName() });
        continue;
      }
      if (state.kind === 'dir') {
        if (kind === 'dir') {
          const mode = lstatSync(abs).mode;
          if ((mode & 0o7777) !== (state.mode & 0o7777))
            chmods.push({ kind: 'chmod', path, mode: state.mode & 0o7777, oldMode: mode & 0o7777 });
        } else {
          if (kind !== null) removals.push({ kind: 'remove', path, backup: nextName() });
          wantParents(path);
          mkdirs.push({ kind: 'mkdir', path, mode: state.mode & 0o7777 });
        }
        continue;
      }
      if (kind === 'dir') {
        rmdirs.push({ kind: 'rmdir', path });
      }
      wantParents(path);
      const stage = nextName();
      const stageAbs = join(stagingDir, stage);
      if (state.kind === 'symlink') symlinkSync(state.target, stageAbs);
      else {
        if (state.hash === null) throw new UnsafePathError(path, 'its content was not checkpointed (too large)');
        const bytes = blobs.get(state.hash);
        const fd = openSync(stageAbs, 'w', 0o600);
        try {
          writeSync(fd, bytes);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
        chmodSync(stageAbs, state.mode & 0o7777);
      }
      places.push({ kind: 'place', path, stage, backup: nextName() });
    }
    await hooks.afterStaging?.();
  } catch (error) {
    rmSync(stagingDir, { recursive: true, force: true });
    unlinkQuiet(journalFile);
    throw error;
  }
  removals.sort((a, b) => depth(b.path) - depth(a.path));
  rmdirs.sort((a, b) => depth(b.path) - depth(a.path));
  mkdirs.sort((a, b) => depth(a.path) - depth(b.path));
  const ops: Op[] = [...removals, ...rmdirs, ...mkdirs, ...places, ...chmods];
  journal.state = 'applying';
  journal.ops = ops;
  writeJournal(journalFile, journal);
  const done: Op[] = [];
  try {
    for (const [index, op] of ops.entries()) {
      assertSafePath(root, op.path);
      if (applyOp(root, stagingDir, op)) done.push(op);
      else skipped.push(`${op.path}: left in place: the folder still holds files Weft does not track`);
      await hooks.afterStep?.(index, ops.length);
    }
  } catch (error) {
    for (const op of done.reverse()) undoOp(root, stagingDir, op);
    rmSync(stagingDir, { recursive: true, force: true });
    unlinkQuiet(journalFile);
    throw error;
  }
  rmSync(stagingDir, { recursive: true, force: true });
  unlinkQuiet(journalFile);
  return { skipped };
}

/** Performs one step; false when it was skipped (a folder that is not empty). */
function applyOp(root: string, stagingDir: string, op: Op): boolean {
  const abs = join(root, op.path);
  switch (op.kind) {
    case 'remove':
      renameSync(abs, join(stagingDir, op.backup));
      return true;
    case 'rmdir':
      try {
        rmdirSync(abs);
        return true;
      } catch (error) {
        if (isCode(error, 'ENOTEMPTY') || isCode(error, 'EEXIST')) return false;
        throw error;
      }
    case 'mkdir':
      mkdirSync(abs, { mode: op.mode });
      chmodSync(abs, op.mode);
      return true;
    case 'chmod':
      chmodSync(abs, op.mode);
      return true;
    case 'place': {
      const kind = currentKind(abs);
      if (kind === 'file') linkSync(abs, join(stagingDir, op.backup));
      else if (kind !== null) renameSync(abs, join(stagingDir, op.backup));
      renameSync(join(stagingDir, op.stage), abs);
      return true;
    }
  }
}

function undoOp(root: string, stagingDir: string, op: Op): void {
  const abs = join(root, op.path);
  try {
    switch (op.kind) {
      case 'remove':
        renameSync(join(stagingDir, op.backup), abs);
        return;
      case 'rmdir':
        mkdirSync(abs);
        return;
      case 'mkdir':
        rmdirSync(abs);
        return;
      case 'chmod':
        chmodSync(abs, op.oldMode);
        return;
      case 'place': {
        const backup = join(stagingDir, op.backup);
        if (existsSync(backup) || currentKind(backup) !== null) renameSync(backup, abs);
        else unlinkSync(abs);
        return;
      }
    }
  } catch {
    /* best effort: the remaining steps are still undone */
  }
}

/**
 * Finishes or drops restores a crashed process left behind (call before looking at a workspace).
 * Returns the roots that were repaired.
 */
export function recoverRestores(journalDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(journalDir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const repaired: string[] = [];
  for (const name of names) {
    const file = join(journalDir, name);
    let journal: Journal;
    try {
      journal = JournalSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    } catch {
      unlinkQuiet(file);
      continue;
    }
    const stagingDir = join(journal.root, `${STAGING_PREFIX}${journal.id}`);
    if (journal.state === 'applying') {
      for (const op of journal.ops) redoOp(journal.root, stagingDir, op);
    }
    rmSync(stagingDir, { recursive: true, force: true });
    unlinkQuiet(file);
    repaired.push(journal.root);
  }
  return repaired;
}

/** Applies a step again if it has not happened yet (idempotent). */
function redoOp(root: string, stagingDir: string, op: Op): void {
  const abs = join(root, op.path);
  try {
    switch (op.kind) {
      case 'remove':
        if (currentKind(join(stagingDir, op.backup)) === null && currentKind(abs) !== null)
          rmSync(abs, { force: true });
        return;
      case 'rmdir':
        rmdirSync(abs);
        return;
      case 'mkdir':
        mkdirSync(abs, { recursive: true, mode: op.mode });
        return;
      case 'chmod':
        chmodSync(abs, op.mode);
        return;
      case 'place': {
        const stage = join(stagingDir, op.stage);
        if (currentKind(stage) === null) return;
        if (currentKind(abs) === 'dir') return;
        renameSync(stage, abs);
        return;
      }
    }
  } catch {
    /* a step that cannot be redone leaves that path as it was */
  }
}

function writeJournal(file: string, journal: Journal): void {
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(journal));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

function unlinkQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    /* already gone */
  }
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
