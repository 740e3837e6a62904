/**
 * Paths as checkpoints name them (keys of the workspace index, `path` of records and results): relative
 * to the workspace, `/`-separated, one component per file name, a name that is not UTF-8 written as NUL +
 * hex of its bytes (see `src-preload/protocol/checkpoint-paths.ts`). Here: from names read off the disk
 * (Buffers) to keys, and from keys back to what the fs calls take.
 */
import { displayPath, pathComponentBytes, pathComponentOf } from '../../src-preload/protocol';

/** The longest file name Linux and macOS allow, in bytes. */
export const NAME_MAX = 255;

/** The key component for a name read with `encoding: 'buffer'`. */
export function keyOfName(name: Buffer): string {
  return pathComponentOf(name);
}

/** `name` inside the folder `dir` ('' = the workspace root). */
export function childKey(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

/** The folder holding `key` ('' for the root) and its last component. */
export function splitKey(key: string): { dir: string; name: string } {
  const slash = key.lastIndexOf('/');
  return slash < 0 ? { dir: '', name: key } : { dir: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** What the fs calls take for one component: its text, or its bytes when it is not UTF-8. */
export function nameArg(component: string): string | Buffer {
  if (!component.startsWith('\0')) return component;
  const bytes = pathComponentBytes(component);
  if (bytes === null) throw new Error(`not a checkpoint path component: ${JSON.stringify(component)}`);
  return Buffer.from(bytes);
}

/** Why `key` cannot name a file inside the workspace, or null when it can. */
export function keyProblem(key: string): string | null {
  if (key === '' || key.startsWith('/')) return 'it is not a path inside the workspace';
  for (const component of key.split('/')) {
    if (component === '.' || component === '..' || component === '') return 'it is not a path inside the workspace';
    const bytes = pathComponentBytes(component);
    if (bytes === null) return 'it is not a valid file name';
    if (bytes.length > NAME_MAX) return `a name in it is longer than ${NAME_MAX} bytes`;
  }
  return null;
}

/** The absolute path of `key` below `root`, for fs calls: a Buffer when a component is not UTF-8. */
export function fsPath(root: string, key: string): string | Buffer {
  if (key === '') return root;
  if (!key.includes('\0')) return `${root}/${key}`;
  const parts: Buffer[] = [Buffer.from(root)];
  for (const component of key.split('/')) parts.push(Buffer.from('/'), Buffer.from(nameArg(component)));
  return Buffer.concat(parts);
}

/** The key for people (odd bytes as `\xNN`). */
export function shown(key: string): string {
  return displayPath(key);
}
