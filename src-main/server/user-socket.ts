/**
 * Where the per-user app server of a WEFT_HOME listens: a unix socket in a folder of this user's, mode
 * 0700 (`$XDG_RUNTIME_DIR/weft`, else `<tmp>/weft-<uid>`), named after the WEFT_HOME so that two homes
 * get two servers. The folder is refused when it is a link, someone else's, or open to others and
 * cannot be closed: a socket there could be someone else's server.
 */
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface UserSocketPaths {
  dir: string;
  socket: string;
  /** The server's process id, written once it listens. */
  pidFile: string;
  /** What the server logs (it has no terminal). */
  logFile: string;
}

/** The paths for `weftHome` (nothing is created). */
export function userSocketPaths(weftHome: string, env: NodeJS.ProcessEnv = process.env): UserSocketPaths {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const runtime = env['XDG_RUNTIME_DIR'];
  const dir = runtime !== undefined && runtime !== '' ? join(runtime, 'weft') : join(tmpdir(), `weft-${uid}`);
  // Short: a unix socket's path is limited to about 100 bytes.
  const key = createHash('sha256').update(resolve(weftHome)).digest('hex').slice(0, 16);
  const base = join(dir, `app-server-${key}`);
  return { dir, socket: `${base}.sock`, pidFile: `${base}.pid`, logFile: `${base}.log` };
}

/** Creates the folder (0700) or checks the one there; throws a message for people when it is unsafe. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await lstat(dir);
  const uid = typeof process.getuid === 'function' ? process.getuid() : info.uid;
  if (!info.isDirectory() || info.isSymbolicLink()) {
    throw new Error(`${dir} is not a folder; remove it, so that Weft can make its socket folder there`);
  }
  if (info.uid !== uid) {
    throw new Error(
      `${dir} belongs to user ${info.uid}, not to you (${uid}); Weft will not put its socket there. Set XDG_RUNTIME_DIR to a folder of yours.`,
    );
  }
  if ((info.mode & 0o077) !== 0) await chmod(dir, 0o700);
}
