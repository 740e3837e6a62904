/**
 * What a tracker's walk never records: `.git`, a restore's staging folder, and the sandbox's placeholders
 * (Weft's own bookkeeping while a command runs, gone when it ends).
 */
import { readdir } from 'node:fs/promises';
import { isPlaceholderFolder, isPlaceholderLease } from '../safety/sandbox/placeholders';
import { fsPath } from './path-key';
import { STAGING_PREFIX } from './restore-apply';

/** A name never recorded, wherever it is. */
export function skipped(name: string): boolean {
  return name === '.git' || name.startsWith(STAGING_PREFIX) || isPlaceholderLease(name);
}

/** The folder `rel` below `root` is one the sandbox made to mount a placeholder on, present only while a command runs. */
export async function isMountPoint(root: string, rel: string): Promise<boolean> {
  const name = rel.slice(rel.lastIndexOf('/') + 1);
  // Only a few dot-names can be placeholders (isPlaceholderFolder asks for the listing only then).
  if (!name.startsWith('.')) return false;
  try {
    const listing = await readdir(fsPath(root, rel));
    return isPlaceholderFolder(name, () => listing);
  } catch {
    return false;
  }
}
