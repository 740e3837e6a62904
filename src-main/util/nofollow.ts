// Directories opened without following symlinks. A patch is checked when it is planned, but a command
// running in the background can swap a folder for a symlink (renameat2 RENAME_EXCHANGE) between that
// check and the write. So the writer resolves each target folder once, opens it from `/` one component
// at a time with O_NOFOLLOW (a symlink swapped in anywhere makes the open fail), and then names files
// relative to that open folder through `/proc/self/fd/<fd>/<name>` (Node has no openat): the folder the
// handle holds is the one that was checked, wherever its name is moved afterwards.
//
// Without /proc (macOS), handles fall back to plain paths: each component is still checked with lstat,
// which narrows the race but cannot close it.
//
// apply_patch uses the synchronous handles here; the checkpoint restore the asynchronous ones of
// `open-dir.ts`, which name entries the same way (`entryPath`).
import { closeSync, constants, lstatSync, mkdirSync, openSync } from 'node:fs';
import { join, sep } from 'node:path';

export const HAVE_PROC_FD = process.platform === 'linux';
export const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * The path of the entry `name` (a plain name: no `/`, not `.` or `..`; a Buffer for bytes that are
 * not UTF-8) inside the folder open as `fd` (or, without /proc, found at `dirPath`).
 */
export function entryPath(fd: number | null, dirPath: string, name: string): string;
export function entryPath(fd: number | null, dirPath: string, name: Buffer): Buffer;
export function entryPath(fd: number | null, dirPath: string, name: string | Buffer): string | Buffer;
export function entryPath(fd: number | null, dirPath: string, name: string | Buffer): string | Buffer {
  const text = typeof name === 'string' ? name : name.toString('latin1');
  if (text === '' || text === '.' || text === '..' || text.includes('/') || text.includes('\0'))
    throw new Error(`not a plain file name: ${JSON.stringify(text)}`);
  const base = fd === null ? (dirPath.endsWith('/') ? dirPath : `${dirPath}/`) : `/proc/self/fd/${fd}/`;
  return typeof name === 'string' ? `${base}${name}` : Buffer.concat([Buffer.from(base), name]);
}

/** An open folder; `at(name)` names an entry of it for the fs calls. */
export class DirHandle {
  constructor(
    /** The path the folder had when it was opened (for messages). */
    readonly path: string,
    private readonly fd: number | null,
  ) {}

  /** A path that reaches `name` inside this folder without resolving the folder's path again. */
  at(name: string): string {
    return entryPath(this.fd, this.path, name);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
  }
}

/** A folder the walk created, for undoing: `name` inside `parent`. */
export interface CreatedDir {
  parent: DirHandle;
  name: string;
}

export class SymlinkInPathError extends Error {
  override readonly name = 'SymlinkInPathError';
  readonly code = 'ELOOP';
}

/**
 * Opens the absolute, symlink-free folder `dir` component by component without following symlinks,
 * creating missing components when `create` is set. Returns the handle and every handle opened on the
 * way whose folder got a new child (they stay open so the creation can be undone); the caller closes
 * them all.
 */
export function openDirNoFollow(
  dir: string,
  create: boolean,
): { handle: DirHandle; created: CreatedDir[]; kept: DirHandle[] } {
  const parts = dir.split(sep).filter((p) => p !== '');
  const created: CreatedDir[] = [];
  const kept: DirHandle[] = [];
  let current = openRoot();
  let path = '/';
  try {
    for (const part of parts) {
      const entry = current.at(part);
      const childPath = join(path, part);
      let next: DirHandle;
      try {
        next = openChild(entry, childPath);
      } catch (error) {
        if (!create || errnoOf(error) !== 'ENOENT') throw describe(error, childPath);
        mkdirSync(entry);
        created.push({ parent: current, name: part });
        next = openChild(entry, childPath);
      }
      if (created.some((c) => c.parent === current)) kept.push(current);
      else current.close();
      current = next;
      path = childPath;
    }
    return { handle: current, created, kept };
  } catch (error) {
    current.close();
    for (const handle of kept) handle.close();
    throw error;
  }
}

function openRoot(): DirHandle {
  return HAVE_PROC_FD
    ? new DirHandle('/', openSync('/', constants.O_RDONLY | constants.O_DIRECTORY))
    : new DirHandle('/', null);
}

function openChild(entry: string, childPath: string): DirHandle {
  if (HAVE_PROC_FD) return new DirHandle(childPath, openSync(entry, DIR_FLAGS));
  const info = lstatSync(entry);
  if (info.isSymbolicLink()) throw new SymlinkInPathError(`${childPath} is a symbolic link`);
  if (!info.isDirectory()) throw Object.assign(new Error(`${childPath} is not a directory`), { code: 'ENOTDIR' });
  return new DirHandle(childPath, null);
}

function errnoOf(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** ELOOP/ENOTDIR from an O_NOFOLLOW open means a symlink (or a file) where a folder was expected. */
function describe(error: unknown, childPath: string): unknown {
  const code = errnoOf(error);
  if (code === 'ELOOP' || code === 'ENOTDIR')
    return new SymlinkInPathError(
      `${childPath} changed into a symbolic link or a file while the patch was being written`,
    );
  return error;
}

/** Flags for opening a file inside a handle without following a symlink in its place. */
export const FILE_READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW;
export const FILE_OVERWRITE_FLAGS = constants.O_WRONLY | constants.O_TRUNC | constants.O_NOFOLLOW;
