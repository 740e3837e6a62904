/**
 * The steps of a restore, carried out through folder handles (`OpenDir`): every folder is opened once,
 * from the workspace root down, with O_NOFOLLOW, and every entry is named relative to its folder's
 * handle. A folder swapped for a symlink (or renamed) by a background process after it was opened is
 * still the folder written into, so nothing lands outside the workspace; one swapped before it is
 * opened is refused (ELOOP/ENOTDIR) and the paths below it are reported as not restored.
 *
 * Each step is idempotent, so the same code finishes a journal after a crash. A step that cannot be
 * done for a reason of its path (something in the way, a folder that is a symlink or missing) fails
 * with a `PathRefusal`: that path is reported, the others go on. Any other error stops the restore.
 */
import { link, lstat, mkdir, rename, rmdir, unlink } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import type { OpenDir } from '../util/open-dir';
import { nameArg, shown, splitKey } from './path-key';
import type { Kind, Op } from './restore-journal';

/** A step refused for a reason of its own path; `reason` is for people. */
export class PathRefusal extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${shown(path)}: not restored: ${reason}`);
    this.name = 'PathRefusal';
  }
}

/** Error codes that concern one path (it is reported and skipped); others stop the whole restore. */
const PATH_CODES = new Set([
  'ENOENT',
  'ENOTDIR',
  'ELOOP',
  'EEXIST',
  'ENOTEMPTY',
  'EISDIR',
  'ENAMETOOLONG',
  'EACCES',
  'EPERM',
  'EINVAL',
  'EXDEV',
  'EBUSY',
  'ETXTBSY',
]);

export function codeOf(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** The reason to report for a path-specific error, or null when the error is not about the path. */
export function refusalOf(path: string, error: unknown): PathRefusal | null {
  if (error instanceof PathRefusal) return error;
  if (error instanceof FolderError) return new PathRefusal(path, error.reason);
  const code = codeOf(error);
  if (code === undefined || !PATH_CODES.has(code)) return null;
  if (code === 'ENAMETOOLONG') return new PathRefusal(path, 'its path is longer than the system allows');
  if (code === 'EACCES' || code === 'EPERM') return new PathRefusal(path, 'permission denied');
  return new PathRefusal(path, `it changed while it was being restored (${code})`);
}

/** A folder of a path could not be opened; `reason` names it, `code` is the error's. */
class FolderError extends Error {
  constructor(
    readonly reason: string,
    readonly code: string,
  ) {
    super(reason);
    this.name = 'FolderError';
  }
}

/** Folders held open at once; beyond, the least recently used are closed between steps. */
const MAX_OPEN = 128;

/**
 * The workspace's folders (by key; '' = the root), each opened from its parent's handle. A folder closed
 * to stay within MAX_OPEN is opened again the same way when a later step needs it.
 */
export class DirCache {
  private readonly open = new Map<string, Promise<OpenDir>>();

  constructor(readonly root: OpenDir) {}

  /** The folder `key`, opened from its parent's handle without following a symlink. */
  get(key: string): Promise<OpenDir> {
    if (key === '') return Promise.resolve(this.root);
    const cached = this.open.get(key);
    if (cached !== undefined) {
      this.open.delete(key);
      this.open.set(key, cached);
      return cached;
    }
    const { dir, name } = splitKey(key);
    const opening = this.get(dir).then(async (parent) => {
      try {
        return await parent.child(nameArg(name));
      } catch (error) {
        throw await folderError(parent, key, error);
      }
    });
    this.open.set(key, opening);
    // A folder that could not be opened may be created by a later step: it is opened again then.
    opening.catch(() => {
      if (this.open.get(key) === opening) this.open.delete(key);
    });
    return opening;
  }

  /** The folder `key`, or null when it does not exist (a step on a path below it has nothing to do). */
  async getIfThere(key: string): Promise<OpenDir | null> {
    try {
      return await this.get(key);
    } catch (error) {
      if (error instanceof FolderError && error.code === 'ENOENT') return null;
      throw error;
    }
  }

  /** Closes the least recently used folders beyond MAX_OPEN (call between steps: none is in use). */
  async trim(): Promise<void> {
    for (const [key, opened] of this.open) {
      if (this.open.size <= MAX_OPEN) return;
      this.open.delete(key);
      await opened.then((dir) => dir.close()).catch(() => undefined);
    }
  }

  /** Closes and forgets `key` and every folder below it (it was removed). */
  async forget(key: string): Promise<void> {
    for (const [path, opened] of [...this.open]) {
      if (path !== key && !path.startsWith(`${key}/`)) continue;
      this.open.delete(path);
      await opened.then((dir) => dir.close()).catch(() => undefined);
    }
  }

  async closeAll(): Promise<void> {
    for (const opened of this.open.values()) await opened.then((dir) => dir.close()).catch(() => undefined);
    this.open.clear();
  }
}

async function folderError(parent: OpenDir, key: string, error: unknown): Promise<unknown> {
  const code = codeOf(error);
  switch (code) {
    case 'ELOOP':
    case 'ENOTDIR': {
      // O_NOFOLLOW | O_DIRECTORY on a symlink fails with ELOOP or ENOTDIR: look at what is there.
      const found = await kindAt(parent, splitKey(key).name).catch(() => null);
      return new FolderError(`${shown(key)} ${found === 'symlink' ? 'is a symbolic link' : 'is not a folder'}`, code);
    }
    case 'ENOENT':
      return new FolderError(`${shown(key)} is missing`, code);
    case 'ENAMETOOLONG':
      return new FolderError('its path is longer than the system allows', code);
    default:
      return error;
  }
}

/** What is at `name` inside `dir` now, without following a symlink; null when nothing is. */
async function kindAt(dir: OpenDir, name: string): Promise<Kind | 'other' | null> {
  let st: Stats;
  try {
    st = await lstat(entry(dir, name));
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return null;
    throw error;
  }
  return st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
}

/** The entry `component` (a key component) of the held folder `dir`, for the fs calls. */
export function entry(dir: OpenDir, component: string): string | Buffer {
  const name = nameArg(component);
  return typeof name === 'string' ? dir.at(name) : dir.at(name);
}

function inTheWay(path: string, found: Kind | 'other', wanted: 'folder' | 'entry'): PathRefusal {
  if (found === 'dir' && wanted === 'entry')
    return new PathRefusal(path, 'a folder that holds files Weft does not track is in the way');
  if (wanted === 'folder') return new PathRefusal(path, 'something that is not a folder is in the way');
  return new PathRefusal(path, 'something Weft does not track is in the way');
}

/**
 * Carries out one step; `staging` is the folder holding the staged entries and backups (the root).
 * Returns whether it changed anything (false: it was already done, as when a journal is finished after
 * a crash: `recovering`). Throws a PathRefusal, or any error that stops the restore.
 */
export async function applyOp(op: Op, dirs: DirCache, staging: OpenDir, recovering: boolean): Promise<boolean> {
  const { dir: parentKey, name } = splitKey(op.path);
  switch (op.kind) {
    case 'remove': {
      if (recovering && (await kindAt(staging, op.backup)) !== null) return false;
      const parent = await dirs.getIfThere(parentKey);
      const found = parent === null ? null : await kindAt(parent, name);
      if (parent === null || found === null) return false;
      if (found !== op.expect) throw inTheWay(op.path, found, 'entry');
      await rename(entry(parent, name), staging.at(op.backup));
      return true;
    }
    case 'rmdir': {
      const parent = await dirs.getIfThere(parentKey);
      if (parent === null) return false;
      try {
        await rmdir(entry(parent, name));
      } catch (error) {
        const code = codeOf(error);
        if (code === 'ENOENT') return false;
        if (code === 'ENOTEMPTY' || code === 'EEXIST')
          throw new PathRefusal(op.path, 'the folder still holds files Weft does not track');
        if (code === 'ENOTDIR') throw new PathRefusal(op.path, 'it is no longer a folder');
        throw error;
      }
      await dirs.forget(op.path);
      return true;
    }
    case 'mkdir': {
      const parent = await dirs.get(parentKey);
      let created = true;
      try {
        await mkdir(entry(parent, name), { mode: op.mode });
      } catch (error) {
        if (codeOf(error) !== 'EEXIST') throw error;
        const found = await kindAt(parent, name);
        if (found !== 'dir') throw inTheWay(op.path, found ?? 'other', 'folder');
        created = false;
      }
      if (op.implicit && !created) return false;
      // The mode given to mkdir is narrowed by the umask: set it on the folder itself. A folder that
      // was there already only gets its mode (and an undo leaves it).
      await (await dirs.get(op.path)).chmod(op.mode);
      return created;
    }
    case 'chmod': {
      const target = await dirs.get(op.path);
      await target.chmod(op.mode);
      return true;
    }
    case 'place': {
      if ((await kindAt(staging, op.stage)) === null) {
        if (recovering) return false;
        throw new PathRefusal(op.path, 'its staged copy was moved away while it was being restored');
      }
      const parent = await dirs.get(parentKey);
      const found = await kindAt(parent, name);
      if (found !== null && found !== op.expect) throw inTheWay(op.path, found, 'entry');
      if (found === 'file') {
        // A hard link keeps the replaced file for undo while the new one takes its name in one rename.
        try {
          await link(entry(parent, name), staging.at(op.backup));
        } catch (error) {
          // After a crash the link may be there already; during a restore only someone else made it.
          if (codeOf(error) !== 'EEXIST' || !recovering) throw error;
        }
      } else if (found !== null) await rename(entry(parent, name), staging.at(op.backup));
      await rename(staging.at(op.stage), entry(parent, name));
      return true;
    }
  }
}

/** Undoes a step that was carried out (best effort: an undo that fails leaves that path as it is). */
export async function undoOp(op: Op, dirs: DirCache, staging: OpenDir): Promise<void> {
  const { dir: parentKey, name } = splitKey(op.path);
  try {
    switch (op.kind) {
      case 'remove': {
        const parent = await dirs.get(parentKey);
        await rename(staging.at(op.backup), entry(parent, name));
        return;
      }
      case 'rmdir': {
        const parent = await dirs.get(parentKey);
        await mkdir(entry(parent, name));
        return;
      }
      case 'mkdir': {
        const parent = await dirs.get(parentKey);
        await dirs.forget(op.path);
        await rmdir(entry(parent, name));
        return;
      }
      case 'chmod': {
        await (await dirs.get(op.path)).chmod(op.oldMode);
        return;
      }
      case 'place': {
        const parent = await dirs.get(parentKey);
        if ((await kindAt(staging, op.backup)) !== null) await rename(staging.at(op.backup), entry(parent, name));
        else await unlink(entry(parent, name));
        return;
      }
    }
  } catch {
    /* the remaining steps are still undone */
  }
}

/** The folders a path needs, from the top: `a`, `a/b` for `a/b/c`. */
export function parentsOf(path: string): string[] {
  const parts = path.split('/');
  const out: string[] = [];
  for (let i = 1; i < parts.length; i += 1) out.push(parts.slice(0, i).join('/'));
  return out;
}
