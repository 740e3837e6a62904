// The project's uncommitted changes, carried into a new worktree: each file whose content differs from
// HEAD (staged or not) and each untracked file git does not ignore is copied as it is in the project
// (bytes and mode; a symlink as a symlink), and each file deleted there is deleted in the worktree. Copies,
// not a patch: a file's bytes arrive exactly, whatever its encoding. The project is only read.
import { copyFile, lstat, mkdir, readlink, rm, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { git } from '../safety/git/run';

/** Carries `top`'s uncommitted changes into the worktree `dest`; returns how many files they touched. */
export async function carryChanges(top: string, dest: string): Promise<number> {
  const [changed, untracked] = await Promise.all([
    git(top, ['diff', '--name-status', '-z', '--no-renames', 'HEAD']),
    git(top, ['ls-files', '--others', '--exclude-standard', '-z']),
  ]);
  let files = 0;
  const fields = changed.stdout.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = fields[i] ?? '';
    const path = fields[i + 1] ?? '';
    if (path === '') continue;
    files += 1;
    if (status === 'D') await rm(join(dest, path), { force: true });
    else await copyEntry(join(top, path), join(dest, path));
  }
  for (const path of untracked.stdout.split('\0')) {
    if (path === '') continue;
    files += 1;
    await copyEntry(join(top, path), join(dest, path));
  }
  return files;
}

/** Copies one file or symlink over whatever is at `to` (anything else, such as a socket, is left out). */
async function copyEntry(from: string, to: string): Promise<void> {
  const st = await lstat(from).catch(() => null);
  if (st === null) return; // gone since git listed it
  await mkdir(dirname(to), { recursive: true });
  await rm(to, { force: true });
  if (st.isSymbolicLink()) await symlink(await readlink(from), to);
  else if (st.isFile()) await copyFile(from, to);
}
