/**
 * Which of a fork's changed paths hold work found nowhere else, for "Remove worktree": a path whose file
 * (or link) in the fork's folder is the same as the parent's file at that path is found in the parent's
 * folder, so removing the fork loses nothing there. A fork starts as a copy of its parent's uncommitted
 * work, and "Bring changes back" makes the two the same again: neither is work only the fork holds.
 * A path the fork deleted holds nothing; a folder git lists whole (a nested repository) counts as work.
 */
import { constants } from 'node:fs';
import { lstat, open, readlink, type FileHandle } from 'node:fs/promises';
import { fsPath } from './path-key';

const CHUNK = 64 * 1024;

/**
 * The paths of `paths` (keys relative to `forkRoot`, see path-key.ts) whose content in the fork differs
 * from the same path under `parentRoot`, in the order given.
 */
export async function workOnlyInFork(
  forkRoot: string,
  parentRoot: string,
  paths: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  for (const path of paths) {
    if (!(await foundInParent(fsPath(forkRoot, path), fsPath(parentRoot, path)))) out.push(path);
  }
  return out;
}

async function foundInParent(fork: string | Buffer, parent: string | Buffer): Promise<boolean> {
  const mine = await lstat(fork).catch(() => null);
  // Deleted in the fork, or a FIFO, socket or device: no content is lost with the folder.
  if (mine === null || (!mine.isFile() && !mine.isSymbolicLink() && !mine.isDirectory())) return true;
  if (mine.isDirectory()) return false;
  const theirs = await lstat(parent).catch(() => null);
  if (theirs === null) return false;
  if (mine.isSymbolicLink())
    return theirs.isSymbolicLink() && (await readlink(fork, 'buffer')).equals(await readlink(parent, 'buffer'));
  return theirs.isFile() && theirs.size === mine.size && (await sameBytes(fork, parent));
}

/** Opens a regular file for reading without following a link or waiting on a FIFO swapped in since. */
async function openFile(path: string | Buffer): Promise<FileHandle | null> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (handle === null) return null;
  if ((await handle.stat()).isFile()) return handle;
  await handle.close();
  return null;
}

/** Whether two regular files hold the same bytes, read a chunk at a time (false when one cannot be read). */
async function sameBytes(a: string | Buffer, b: string | Buffer): Promise<boolean> {
  const left = await openFile(a);
  if (left === null) return false;
  const right = await openFile(b);
  if (right === null) {
    await left.close();
    return false;
  }
  try {
    const one = Buffer.alloc(CHUNK);
    const two = Buffer.alloc(CHUNK);
    for (;;) {
      const [x, y] = await Promise.all([left.read(one, 0, CHUNK, null), right.read(two, 0, CHUNK, null)]);
      if (x.bytesRead !== y.bytesRead) return false;
      if (x.bytesRead === 0) return true;
      if (!one.subarray(0, x.bytesRead).equals(two.subarray(0, y.bytesRead))) return false;
    }
  } finally {
    await Promise.all([left.close(), right.close()]);
  }
}
