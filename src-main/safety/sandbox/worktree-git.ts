// What a worktree thread's commands may write so that `git commit` works in its own worktree, on its own
// branch, and nothing more of the repository. The main checkout's `.git` stays read-only (Codex's rule:
// `.git` under a writable root is read-only), and a linked worktree's `.git` is only a pointer to
// `<common>/worktrees/<name>` (its admin folder) in that read-only `.git`: so without this, the agent
// cannot commit its work at all.
//
// A commit in a linked worktree writes: the admin folder (`index`, `index.lock`, `COMMIT_EDITMSG`,
// `logs/HEAD`, a `HEAD.lock` it takes and drops), new loose objects under `<common>/objects/xx/`, the
// branch's loose ref through a `<ref>.lock` created beside it and renamed over it (so the ref's folder
// must be writable), and an append to the branch's reflog. Writable, therefore: the admin folder, the
// objects folder, the folder of the branch's ref and the branch's reflog file. Kept read-only inside
// them: what in the admin folder ties the worktree to a repository or names programs (`commondir`,
// `gitdir`, `HEAD`, `config.worktree`, made empty when missing so that one cannot be planted for a later
// `extensions.worktreeConfig`), `objects/info` (alternates) and `objects/pack`, and every other entry of
// the ref's folder (other branches). The repository's `config`, `hooks`, `packed-refs`, `HEAD` and every
// other ref folder are not made writable at all.
//
// Nothing is granted unless the worktree is what its thread recorded: its `.git` a pointer to an admin
// folder under `<common>/worktrees/`, whose `gitdir` points back to it and whose `HEAD` is the recorded
// branch. The ref's folder is not granted when a branch of that folder is only in `packed-refs` (a loose
// file the agent made there would take its place) or an entry there is a symlink. Left as it is: the
// agent may create new branches in its ref's folder (`weft/…` beside its own), and may replace loose
// objects that are already there, which git finds as corrupt rather than as other content only on a
// check (`git fsck`).
import { constants } from 'node:fs';
import { lstat, open, readdir, readFile, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { SandboxPolicy } from '../../../src-preload/protocol';
import { isInsidePath, type WritableRoot } from './writable-roots';

/** A thread's own worktree: the folder `git worktree add` made and the branch checked out there. */
export interface OwnWorktree {
  path: string;
  branch: string;
}

/**
 * The extra writable roots for committing in `own`, for commands run under `policy` in `cwd`: none unless
 * the policy lets the workspace be written, `cwd` is inside the worktree and the worktree is as recorded.
 */
export async function worktreeCommitRoots(
  policy: SandboxPolicy,
  cwd: string,
  own: OwnWorktree | null,
): Promise<WritableRoot[]> {
  if (own === null || policy.type !== 'workspaceWrite') return [];
  const [realCwd, realOwn] = await Promise.all([realpath(cwd).catch(() => cwd), realpath(own.path).catch(() => null)]);
  if (realOwn === null || !isInsidePath(realCwd, realOwn)) return [];
  const layout = await worktreeLayout(own);
  if (layout === null) return [];
  const { admin, common } = layout;
  const roots: WritableRoot[] = [];

  const adminReadOnly: string[] = [];
  for (const name of ['commondir', 'gitdir', 'HEAD', 'config.worktree']) {
    const path = join(admin, name);
    if (name === 'config.worktree') await ensureEmptyFile(path);
    if ((await kind(path)) === 'file') adminReadOnly.push(path);
    else return [];
  }
  roots.push({ root: admin, readOnlySubpaths: adminReadOnly });

  const objects = join(common, 'objects');
  if ((await kind(objects)) === 'dir') {
    const inside: string[] = [];
    for (const name of ['info', 'pack']) {
      const path = join(objects, name);
      const what = await kind(path);
      if (what === 'dir' || what === 'file') inside.push(path);
    }
    roots.push({ root: objects, readOnlySubpaths: inside });
  }

  const refFile = join(common, 'refs', 'heads', ...own.branch.split('/'));
  const refDir = dirname(refFile);
  const siblings = await refSiblings(common, refDir, refFile, own.branch);
  if (siblings !== null) roots.push({ root: refDir, readOnlySubpaths: siblings });

  const reflog = join(common, 'logs', 'refs', 'heads', ...own.branch.split('/'));
  if ((await kind(reflog)) === 'file') roots.push({ root: reflog, readOnlySubpaths: [] });
  return roots;
}

/** The worktree's admin and common folders, when the worktree is linked to them as recorded. */
async function worktreeLayout(own: OwnWorktree): Promise<{ admin: string; common: string } | null> {
  try {
    const top = await realpath(own.path);
    const pointer = join(top, '.git');
    if ((await kind(pointer)) !== 'file') return null;
    const gitdir = /^gitdir:\s*(.+?)\s*$/m.exec(await readFile(pointer, 'utf8'))?.[1];
    if (gitdir === undefined) return null;
    const admin = await realpath(resolve(top, gitdir));
    const common = await realpath(resolve(admin, (await readFile(join(admin, 'commondir'), 'utf8')).trim()));
    if (dirname(admin) !== join(common, 'worktrees')) return null;
    const back = (await readFile(join(admin, 'gitdir'), 'utf8')).trim();
    if ((await realpath(resolve(admin, back)).catch(() => null)) !== pointer) return null;
    if ((await readFile(join(admin, 'HEAD'), 'utf8')).trim() !== `ref: refs/heads/${own.branch}`) return null;
    if (own.branch.split('/').some((part) => part === '' || part === '.' || part === '..')) return null;
    return { admin, common };
  } catch {
    return null;
  }
}

/**
 * The entries of the branch's ref folder other than the branch itself (kept read-only), or null when
 * the folder may not be made writable: missing, a symlink in it, or a branch of it only in `packed-refs`.
 */
async function refSiblings(common: string, refDir: string, refFile: string, branch: string): Promise<string[] | null> {
  if ((await kind(refDir)) !== 'dir' || (await realpath(refDir)) !== refDir) return null;
  const out: string[] = [];
  for (const name of await readdir(refDir)) {
    const path = join(refDir, name);
    if (path === refFile) continue;
    const what = await kind(path);
    if (what !== 'file' && what !== 'dir') return null;
    out.push(path);
  }
  const folder = relative(common, refDir).split(sep).join('/');
  const packed = await readFile(join(common, 'packed-refs'), 'utf8').catch(() => '');
  for (const line of packed.split('\n')) {
    const ref = /^[0-9a-f]+ (refs\/heads\/.+)$/.exec(line)?.[1];
    if (ref === undefined || ref === `refs/heads/${branch}` || !ref.startsWith(`${folder}/`)) continue;
    const loose = join(common, ...ref.split('/'));
    if (!isAbsolute(loose) || (await kind(loose)) !== 'file') return null;
  }
  return out;
}

/** Creates an empty file at `path` unless something is there already. */
async function ensureEmptyFile(path: string): Promise<void> {
  try {
    const handle = await open(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o644,
    );
    await handle.close();
  } catch {
    // there already (or the folder refuses it: then the check after says so)
  }
}

async function kind(path: string): Promise<'file' | 'dir' | 'symlink' | 'other' | 'missing'> {
  try {
    const stat = await lstat(path);
    return stat.isSymbolicLink() ? 'symlink' : stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : 'other';
  } catch {
    return 'missing';
  }
}
