/**
 * What `fs/readFile` may read: files inside the folders a client already works in, namely the project
 * the server was started on, WEFT_HOME, and every loaded thread's cwd and writable roots. Paths are
 * resolved through symlinks first, so a link inside a root that points elsewhere is refused, as is
 * `..`. A page that got hold of the socket can read the project, not the rest of the machine.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { invalidParams } from './rpc-error';

/** Largest file sent whole (base64 in one message). */
export const MAX_READ_BYTES = 50 * 1024 * 1024;

/** Whether `path` is `root` or inside it (both already resolved). */
function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

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
  const info = await stat(real);
  if (!info.isFile()) throw invalidParams(`${path} is not a readable file`);
  if (info.size > MAX_READ_BYTES)
    throw invalidParams(`${path} is ${(info.size / 1048576).toFixed(0)} MiB; files over 50 MiB are not sent`);
  return { dataBase64: (await readFile(real)).toString('base64') };
}
