/**
 * What a restore achieved, found through the folders it wrote into (the `DirCache` handles), not by
 * path. A path counts as restored only if the folder the restore held holds the desired state (a file
 * with the restored content and mode, the symlink's target, a folder, or nothing) and every folder on
 * its way is still the entry of its parent under its name. A look by path while a background process
 * moves folders can read anything: a folder swapped for a symlink leads it out of the workspace, to
 * files that may even look right, and a folder moved aside hides what was written into it.
 *
 * The workspace root is the one handle not checked against a name: it was opened from `/` by its real
 * path, and a sandboxed command cannot rename the folder it is confined to.
 */
import { constants } from 'node:fs';
import { lstat, open, readlink } from 'node:fs/promises';
import { hashContent } from './blob-store';
import { shown, splitKey } from './path-key';
import { codeOf, entry, parentsOf, refusalOf, type DirCache } from './restore-ops';
import type { Entry } from './types';

/** A path and the state it should be in (null = absent). */
export interface WantedState {
  path: string;
  state: Entry | null;
}

const CHANGED = 'it changed while it was being restored (is a command still writing there?)';

/**
 * The desired paths not in their state now, each with the reason (for people). Never throws: a path
 * that cannot be looked at is not called restored.
 */
export async function unmetStates(desired: readonly WantedState[], dirs: DirCache): Promise<Map<string, string>> {
  const unmet = new Map<string, string>();
  for (const item of desired) {
    await dirs.trim();
    const problem = await stateProblem(item, dirs);
    if (problem !== null) unmet.set(item.path, problem);
  }
  // The folders are looked at after the entries, so a path is called restored only if its folder was
  // still in place once its entry had been found right.
  const folders = new Map<string, string | null>();
  for (const item of desired) {
    if (unmet.has(item.path)) continue;
    for (const key of parentsOf(item.path)) {
      let problem = folders.get(key);
      if (problem === undefined) {
        await dirs.trim();
        problem = await folderProblem(key, dirs);
        folders.set(key, problem);
      }
      if (problem === null) continue;
      unmet.set(item.path, problem);
      break;
    }
  }
  return unmet;
}

/** Why the entry of `item` inside its held folder is not the desired state; null when it is. */
async function stateProblem(item: WantedState, dirs: DirCache): Promise<string | null> {
  const { dir, name } = splitKey(item.path);
  try {
    const parent = await dirs.getIfThere(dir);
    if (parent === null) return item.state === null ? null : CHANGED;
    const at = entry(parent, name);
    if (item.state === null) {
      try {
        await lstat(at);
        return CHANGED;
      } catch (error) {
        if (codeOf(error) === 'ENOENT') return null;
        throw error;
      }
    }
    return (await matches(at, item.state)) ? null : CHANGED;
  } catch (error) {
    return reasonOf(item.path, error);
  }
}

async function matches(at: string | Buffer, state: Entry): Promise<boolean> {
  switch (state.kind) {
    case 'dir':
      // A folder is compared by existence only (its files are paths of their own).
      return (await lstat(at)).isDirectory();
    case 'symlink':
      return (await lstat(at)).isSymbolicLink() && (await readlink(at, 'utf8')) === state.target;
    case 'file': {
      if (state.hash === null) return false;
      // Never follows a symlink there; O_NONBLOCK so a FIFO put in its place is not waited on.
      const file = await open(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      try {
        const st = await file.stat();
        if (!st.isFile() || (st.mode & 0o777) !== (state.mode & 0o777)) return false;
        return (await hashContent(await file.readFile())) === state.hash;
      } finally {
        await file.close();
      }
    }
  }
}

/** Why the held folder `key` is no longer the entry its name gives in its held parent; null when it is. */
async function folderProblem(key: string, dirs: DirCache): Promise<string | null> {
  const { dir, name } = splitKey(key);
  try {
    const held = await dirs.getIfThere(key);
    // Nothing there: nothing below it is either (what is there is checked by the paths themselves).
    if (held === null) return null;
    const parent = await dirs.get(dir);
    const [own, named] = await Promise.all([held.stat(), lstat(entry(parent, name))]);
    if (named.isDirectory() && named.ino === own.ino && named.dev === own.dev) return null;
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') return reasonOf(key, error);
  }
  return `its folder ${shown(key)} was moved or replaced while it was being restored (is a command still moving files there?)`;
}

function reasonOf(path: string, error: unknown): string {
  return refusalOf(path, error)?.reason ?? `it could not be looked at after the restore (${String(error)})`;
}
