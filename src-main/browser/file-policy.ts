// The second look at a `file:` URL the rules allowed (url-policy.ts judges its text): where it really leads.
// Asked for every file: request of the page (navigations and sub-resources), as it is about to be read. A
// symbolic link inside the workspace leading outside it is refused like a path outside, and so is anything
// that is not a regular file or a folder (reading a FIFO or a device would block the browser or never end).
import { lstat, realpath, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { isInsidePath } from '../safety/sandbox/writable-roots';

/** Null when the file `url` names may be read, else why not (the model reads it). */
export async function checkFileUrl(url: string, workspace: string): Promise<string | null> {
  let path: string;
  try {
    path = fileURLToPath(url);
  } catch {
    return `refused to open ${url}: the file URL names no local file`;
  }
  const refuse = (why: string): string => `refused to open ${url}: ${why}`;
  // A file not there yet: the browser reports it missing (a link to nothing is checked below).
  if ((await lstat(path).catch(() => null)) === null) return null;
  const real = await realpath(path).catch(() => null);
  if (real === null) return refuse('it is a symbolic link to nothing');
  const root = await realpath(workspace).catch(() => workspace);
  if (!isInsidePath(real, root))
    return refuse(`it leads (through a symbolic link) to ${real}, outside the workspace (${workspace})`);
  const info = await stat(real).catch(() => null);
  if (info === null) return refuse('it cannot be read');
  if (info.isFile() || info.isDirectory()) return null;
  const kind = info.isFIFO()
    ? 'a FIFO'
    : info.isSocket()
      ? 'a socket'
      : info.isCharacterDevice() || info.isBlockDevice()
        ? 'a device'
        : 'a special file';
  return refuse(`it is ${kind}, not a regular file or a folder`);
}
