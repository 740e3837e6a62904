/**
 * What `fs/readFile` may read: files inside the folders a client already works in, namely the project
 * the server was started on, WEFT_HOME, every loaded thread's cwd and writable roots, and the projects
 * that client listed threads of. Paths are
 * resolved through symlinks first, so a link inside a root that points elsewhere is refused, as is
 * `..`. A page that got hold of the socket can read the project, not the rest of the machine. Only a
 * regular file is opened (never a FIFO, whose read would hold one of libuv's threads until a writer came).
 */
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isInside, readEntry } from '../util/workspace-file';
import { invalidParams } from './rpc-error';

/** Largest file sent whole (base64 in one message). */
export const MAX_READ_BYTES = 50 * 1024 * 1024;

/** Real paths of the roots that exist (a missing root allows nothing). */
async function realRoots(roots: readonly string[]): Promise<string[]> {
  const out = await Promise.all(roots.map((root) => realpath(resolve(root)).catch(() => null)));
  return out.filter((r): r is string => r !== null);
}

/**
 * Reads a file for a client; `roots()` gives the folders allowed right now. A path outside them, or
 * not a regular file, or too large, is an invalid-params error that says why.
 */
export async function readFileForClient(path: string, roots: () => readonly string[]): Promise<{ dataBase64: string }> {
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw invalidParams(`${path} is not a readable file`);
  }
  const allowed = await realRoots(roots());
  if (!allowed.some((root) => isInside(root, real))) {
    throw invalidParams(
      `${path} is outside the folders this server reads (the project, the threads' folders and WEFT_HOME)`,
    );
  }
  // Opened without following a link or waiting on a FIFO: what is at `real` may have changed since.
  const entry = await readEntry(real, MAX_READ_BYTES);
  if (entry.kind === 'tooLarge')
    throw invalidParams(`${path} is ${(entry.size / 1048576).toFixed(0)} MiB; files over 50 MiB are not sent`);
  if (entry.kind !== 'file') throw invalidParams(`${path} is not a readable file`);
  return { dataBase64: entry.bytes.toString('base64') };
}
