// Whether a folder holds a project-root marker. `.git` counts as a file (a worktree's or submodule's
// `gitdir:` pointer) or as a folder with a `HEAD`: an empty `.git` folder (such as the read-only
// placeholder the sandbox mounts where a workspace has none) is not a repository, for git or for Weft.
import { lstat, stat } from 'node:fs/promises';
import { join } from 'node:path';

export async function hasMarker(dir: string, marker: string): Promise<boolean> {
  const path = join(dir, marker);
  try {
    const info = await lstat(path);
    if (marker !== '.git' || !info.isDirectory()) return true;
    await stat(join(path, 'HEAD'));
    return true;
  } catch {
    return false;
  }
}
