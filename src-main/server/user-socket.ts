/**
 * Where the per-user app server of a WEFT_HOME listens: a unix socket in a folder of this user's, mode
 * 0700 (`$XDG_RUNTIME_DIR/weft`, else `<tmp>/weft-<uid>`), named after the WEFT_HOME so that two homes
 * get two servers, and after Weft's version, so that an attach reaches a server of its own version (one
 * of another version is told to make way: `otherServers`, `cli/app-server-attach.ts`). The folder is refused when it is a link, someone else's, or open to others and
 * cannot be closed: a socket there could be someone else's server.
 */
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { VERSION } from '../version';

export interface UserSocketPaths {
  dir: string;
  socket: string;
  /** The server's process id, written once it listens. */
  pidFile: string;
  /** What the server logs (it has no terminal). */
  logFile: string;
}

function socketDir(env: NodeJS.ProcessEnv): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const runtime = env['XDG_RUNTIME_DIR'];
  return runtime !== undefined && runtime !== '' ? join(runtime, 'weft') : join(tmpdir(), `weft-${uid}`);
}

/** The name every file of a WEFT_HOME's servers starts with. Short: a unix socket's path is limited to about 100 bytes. */
function homeKey(weftHome: string): string {
  return `app-server-${createHash('sha256').update(resolve(weftHome)).digest('hex').slice(0, 16)}`;
}

/** The paths of the server of `version` (default: this one's) for `weftHome` (nothing is created). */
export function userSocketPaths(
  weftHome: string,
  env: NodeJS.ProcessEnv = process.env,
  version: string = VERSION,
): UserSocketPaths {
  const dir = socketDir(env);
  const base = join(dir, `${homeKey(weftHome)}-${version}`);
  return { dir, socket: `${base}.sock`, pidFile: `${base}.pid`, logFile: `${base}.log` };
}

/** The servers of other versions for `weftHome` that say they run (their pid files): version and pid. */
export async function otherServers(
  weftHome: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ version: string; pid: number }[]> {
  const dir = socketDir(env);
  const prefix = `${homeKey(weftHome)}-`;
  const found: { version: string; pid: number }[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(prefix) || !name.endsWith('.pid')) continue;
    const version = name.slice(prefix.length, -'.pid'.length);
    if (version === VERSION || !/^\d+\.\d+\.\d+$/.test(version)) continue;
    const pid = Number((await readFile(join(dir, name), 'utf8').catch(() => '')).trim());
    if (Number.isInteger(pid) && pid > 0) found.push({ version, pid });
  }
  return found;
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
