// Folders held open, asynchronously (node:fs/promises), for writers that must not follow a symlink a
// background process swaps in: each folder is opened once with O_NOFOLLOW | O_DIRECTORY relative to its
// parent's handle, and entries are named through `/proc/self/fd/<fd>/<name>` (see nofollow.ts), so the
// folder written into is the one that was opened, wherever its name has been moved since.
import { chmod, lstat, open, readdir, type FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { sep } from 'node:path';
import { DIR_FLAGS, entryPath, HAVE_PROC_FD, SymlinkInPathError } from './nofollow';

export class OpenDir {
  private closed = false;

  private constructor(
    /** The path the folder had when it was opened (for messages). */
    readonly path: string,
    private readonly file: FileHandle | null,
  ) {}

  /** The root folder `/`. */
  static async root(): Promise<OpenDir> {
    return new OpenDir('/', HAVE_PROC_FD ? await open('/', DIR_FLAGS) : null);
  }

  /** Opens the absolute, symlink-free folder `dir` from `/`, one component at a time. */
  static async open(dir: string): Promise<OpenDir> {
    let current = await OpenDir.root();
    try {
      for (const part of dir.split(sep).filter((p) => p !== '')) {
        const next = await current.child(part);
        await current.close();
        current = next;
      }
      return current;
    } catch (error) {
      await current.close();
      throw error;
    }
  }

  /**
   * The folder `name` inside this one. A symlink there fails with ELOOP (a SymlinkInPathError), a file
   * with ENOTDIR, nothing with ENOENT.
   */
  async child(name: string | Buffer): Promise<OpenDir> {
    const shown = typeof name === 'string' ? name : name.toString('utf8');
    const childPath = this.path.endsWith('/') ? `${this.path}${shown}` : `${this.path}/${shown}`;
    const entry = typeof name === 'string' ? this.at(name) : this.at(name);
    if (this.file !== null) {
      try {
        return new OpenDir(childPath, await open(entry, DIR_FLAGS));
      } catch (error) {
        if (codeOf(error) === 'ELOOP') throw new SymlinkInPathError(`${childPath} is a symbolic link`);
        throw error;
      }
    }
    const info = await lstat(entry);
    if (info.isSymbolicLink()) throw new SymlinkInPathError(`${childPath} is a symbolic link`);
    if (!info.isDirectory()) throw Object.assign(new Error(`${childPath} is not a directory`), { code: 'ENOTDIR' });
    return new OpenDir(childPath, null);
  }

  /** A path that reaches `name` inside this folder without resolving the folder's path again. */
  at(name: string): string;
  at(name: Buffer): Buffer;
  at(name: string | Buffer): string | Buffer {
    return entryPath(this.file?.fd ?? null, this.path, name);
  }

  /** The folder's own status (of the open folder, not of whatever its path names now). */
  stat(): Promise<Stats> {
    return this.file !== null ? this.file.stat() : lstat(this.path);
  }

  /** Sets the folder's own mode (never a symlink's target: the handle is the folder). */
  async chmod(mode: number): Promise<void> {
    if (this.file !== null) await this.file.chmod(mode);
    else await chmod(this.path, mode);
  }

  /** The names of the folder's entries, as bytes. */
  names(): Promise<Buffer[]> {
    return readdir(this.file !== null ? `/proc/self/fd/${this.file.fd}` : this.path, { encoding: 'buffer' });
  }

  /** Flushes the folder's entries to disk (after creating or renaming entries in it). */
  async sync(): Promise<void> {
    await this.file?.sync();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.file?.close();
  }
}

function codeOf(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}
