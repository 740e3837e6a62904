/**
 * Reading a workspace file for the user without trusting what is at its path: the work tree is written by
 * the sandboxed model, which can leave a FIFO (a read that never returns, holding one of libuv's four
 * threads), a symlink out of the workspace, or swap one for the other between two calls. Only regular
 * files are opened, with `O_NOFOLLOW | O_NONBLOCK`, checked again on the open descriptor, and read up to a
 * cap; a symlink is reported as a link (its target text, as git shows it), never followed.
 */
import { constants } from 'node:fs';
import { lstat, open, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';

export type WorkspaceEntry =
  | { kind: 'file'; bytes: Buffer; mode: number }
  | { kind: 'symlink'; target: string }
  /** A folder, FIFO, socket or device: nothing to read. */
  | { kind: 'other' }
  | { kind: 'missing' }
  | { kind: 'tooLarge'; size: number };

/** A path that leads out of the folder it was given in, directly or through a symlinked folder. */
export class OutsideRootError extends Error {
  constructor(
    readonly path: string,
    readonly root: string,
  ) {
    super(`${path} leads outside ${root} (through "..", an absolute path or a symlinked folder); it is not read`);
    this.name = 'OutsideRootError';
  }
}

/** Whether `path` is `root` or inside it (both absolute and resolved). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The real path of `path`'s nearest existing ancestor (itself included), joined with the rest. */
async function realAncestor(path: string): Promise<string> {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(await realpath(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}

/**
 * `rel` inside `root`, with every folder on the way resolved through symlinks (the last part is not
 * followed); throws `OutsideRootError` when that leaves `root`.
 */
export async function confinedPath(root: string, rel: string): Promise<string> {
  const full = resolve(root, rel);
  const [realRoot, realParent] = await Promise.all([realAncestor(root), realAncestor(dirname(full))]);
  const confined = join(realParent, basename(full));
  if (isAbsolute(rel) || !isInside(resolve(root), full) || !isInside(realRoot, confined) || confined === realRoot)
    throw new OutsideRootError(rel, root);
  return confined;
}

/**
 * What is at `path` (absolute, already confined; a Buffer for bytes that are not UTF-8): a regular file's
 * bytes (at most `maxBytes`), a symlink's target, or a kind that is not read. Never follows the last
 * symlink, never waits on a FIFO.
 */
export async function readEntry(path: string | Buffer, maxBytes: number): Promise<WorkspaceEntry> {
  let before;
  try {
    before = await lstat(path);
  } catch {
    return { kind: 'missing' };
  }
  if (before.isSymbolicLink()) {
    try {
      return { kind: 'symlink', target: await readlink(path) };
    } catch {
      return { kind: 'missing' };
    }
  }
  if (!before.isFile()) return { kind: 'other' };
  if (before.size > maxBytes) return { kind: 'tooLarge', size: before.size };
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    // Replaced by a symlink (ELOOP) or removed since the lstat.
    return { kind: 'other' };
  }
  try {
    const info = await handle.stat();
    // Swapped for something else between the lstat and the open.
    if (!info.isFile() || info.ino !== before.ino || info.dev !== before.dev) return { kind: 'other' };
    if (info.size > maxBytes) return { kind: 'tooLarge', size: info.size };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      // One byte past the cap tells a file that grew since the stat.
      const buffer = Buffer.alloc(Math.min(1 << 20, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) return { kind: 'tooLarge', size: total };
      chunks.push(buffer.subarray(0, bytesRead));
    }
    return { kind: 'file', bytes: Buffer.concat(chunks), mode: info.mode & 0o7777 };
  } finally {
    await handle.close();
  }
}

/** `readEntry` of `rel` inside `root` (throws `OutsideRootError` when it leads outside). */
export async function readWorkspaceEntry(root: string, rel: string, maxBytes: number): Promise<WorkspaceEntry> {
  return readEntry(await confinedPath(root, rel), maxBytes);
}
