/**
 * A forked thread's own copy of the project: a git worktree on a new branch `weft/<short-id>` (the
 * committed base, then the checkpointed state written over it) or, outside git, a copy of the folder
 * (reflinks where the filesystem has them). The original workspace is only read. All of it is
 * asynchronous (a project of thousands of files is copied and written without holding the event loop).
 */
import { constants } from 'node:fs';
import {
  chmod,
  cp,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { join, relative } from 'node:path';
import { git } from '../safety/git/run';
import { addWorktree, gitMessage } from '../safety/git/worktree-add';
import { hashContent, type BlobStore } from './blob-store';
import { CheckpointError } from './errors';
import { IgnoreRules } from './ignore-rules';
import { childKey, fsPath, keyOfName } from './path-key';
import { STAGING_PREFIX } from './restore-apply';
import type { Entry } from './types';
import { Slicer } from '../util/slicer';

/** Files written or compared at once. */
const BATCH = 16;

export interface ForkFilesResult {
  /** The new thread's working directory. */
  cwd: string;
  /** 'worktree' (git) or 'copy'. */
  kind: 'worktree' | 'copy';
  /** The worktree's branch (git only). */
  branch: string | null;
  /** What the branch was made from (git only): the project's branch, or its commit when detached. */
  base: { ref: string; commit: string } | null;
  notes: string[];
}

/**
 * The repository's top folder, its `HEAD` commit and the branch checked out (null when detached), or null
 * outside git (or before a first commit).
 */
async function gitTopLevel(root: string): Promise<{ top: string; head: string; branch: string | null } | null> {
  try {
    const { stdout } = await git(root, ['rev-parse', '--show-toplevel']);
    const top = stdout.trim();
    if (top === '') return null;
    const head = (await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD'])).stdout.trim();
    const branch = await git(root, ['symbolic-ref', '--quiet', '--short', 'HEAD']).then(
      (out) => out.stdout.trim() || null,
      () => null,
    );
    return head === '' ? null : { top, head, branch };
  } catch {
    return null;
  }
}

/**
 * Creates the fork's folder under `worktreesDir` holding `state` (the workspace's files as they were
 * after the forked turn). `shortId` names the folder and the branch.
 */
export async function createForkFiles(input: {
  root: string;
  state: ReadonlyMap<string, Entry>;
  blobs: BlobStore;
  worktreesDir: string;
  shortId: string;
}): Promise<ForkFilesResult> {
  const dest = join(input.worktreesDir, input.shortId);
  if (await exists(dest)) throw new CheckpointError(`${dest} already exists; remove it or fork again`);
  await mkdir(input.worktreesDir, { recursive: true });
  const repo = await gitTopLevel(input.root);
  const notes: string[] = [];
  if (repo !== null) {
    const { top } = repo;
    const branch = `weft/${input.shortId}`;
    try {
      // Runs no hook (post-checkout) and none of the repository's own filters (safety/git/run.ts).
      await addWorktree(top, { dest, branch, commit: repo.head });
    } catch (error) {
      throw new CheckpointError(`could not create a git worktree for the fork: ${gitMessage(error)}`);
    }
    const sub = relative(top, input.root);
    const cwd = sub === '' ? dest : join(dest, sub);
    await mkdir(cwd, { recursive: true });
    await materialize(input.root, cwd, input.state, input.blobs, notes);
    return { cwd, kind: 'worktree', branch, base: { ref: repo.branch ?? repo.head, commit: repo.head }, notes };
  }
  await cp(input.root, dest, {
    recursive: true,
    mode: constants.COPYFILE_FICLONE,
    verbatimSymlinks: true,
    filter: (source) =>
      !source
        .slice(input.root.length + 1)
        .split('/')
        .some((part) => part.startsWith(STAGING_PREFIX)),
  });
  await materialize(input.root, dest, input.state, input.blobs, notes);
  return { cwd: dest, kind: 'copy', branch: null, base: null, notes };
}

/** Makes the checkpointed (non-ignored) files of `dest` equal to `state`. */
async function materialize(
  source: string,
  dest: string,
  state: ReadonlyMap<string, Entry>,
  blobs: BlobStore,
  notes: string[],
): Promise<void> {
  const paths = [...state.keys()].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
  const slicer = new Slicer();
  // Folders first, parents before children; then files and links, a batch at a time.
  for (const path of paths) {
    const entry = state.get(path);
    if (entry?.kind !== 'dir') continue;
    const abs = fsPath(dest, path);
    const existing = await kindOf(abs);
    if (existing !== 'dir') {
      if (existing !== null) await rm(abs, { force: true });
      await mkdir(abs, { recursive: true });
    }
    await chmod(abs, entry.mode & 0o7777);
    await slicer.pace();
  }
  const others = paths.filter((path) => state.get(path)?.kind !== 'dir');
  for (let at = 0; at < others.length; at += BATCH) {
    await Promise.all(
      others.slice(at, at + BATCH).map(async (path) => {
        const entry = state.get(path);
        if (entry !== undefined && entry.kind !== 'dir') await writeEntry(source, dest, path, entry, blobs, notes);
      }),
    );
    await slicer.pace();
  }
  // Files the committed base has but the state does not (the agent deleted them).
  const rules = new IgnoreRules(dest);
  const prune = async (dirRel: string): Promise<void> => {
    let names: Buffer[];
    try {
      names = await readdir(fsPath(dest, dirRel), { encoding: 'buffer' });
    } catch {
      return;
    }
    for (const bytes of names) {
      const name = keyOfName(bytes);
      if (name === '.git') continue;
      const rel = childKey(dirRel, name);
      const kind = await kindOf(fsPath(dest, rel));
      if (kind === 'dir') {
        if (await rules.ignored(rel, true)) continue;
        if (!state.has(rel)) await rm(fsPath(dest, rel), { recursive: true, force: true });
        else await prune(rel);
      } else if (!(await rules.ignored(rel, false)) && !state.has(rel)) await rm(fsPath(dest, rel), { force: true });
      await slicer.pace();
    }
  };
  await prune('');
}

/** Makes the file or link at `path` of `dest` what `entry` says. */
async function writeEntry(
  source: string,
  dest: string,
  path: string,
  entry: Exclude<Entry, { kind: 'dir' }>,
  blobs: BlobStore,
  notes: string[],
): Promise<void> {
  const abs = fsPath(dest, path);
  const existing = await kindOf(abs);
  if (existing === 'dir') await rm(abs, { recursive: true, force: true });
  if (entry.kind === 'symlink') {
    if (existing === 'symlink' && (await readlink(abs)) === entry.target) return;
    if (existing !== null && existing !== 'dir') await unlink(abs);
    await symlink(entry.target, abs);
    return;
  }
  let bytes: Buffer;
  if (entry.hash === null) {
    try {
      bytes = await readFile(fsPath(source, path));
      notes.push(`${path}: copied as it is now (its checkpoint was too large to keep)`);
    } catch {
      notes.push(`${path}: left out: not checkpointed (too large) and no longer in the project`);
      return;
    }
  } else {
    if (existing === 'file' && (await hashContent(await readFile(abs))) === entry.hash) {
      await chmod(abs, entry.mode & 0o7777);
      return;
    }
    bytes = await blobs.read(entry.hash);
  }
  if (existing === 'symlink') await unlink(abs);
  await writeFile(abs, bytes);
  await chmod(abs, entry.mode & 0o7777);
}

async function kindOf(abs: string | Buffer): Promise<'file' | 'symlink' | 'dir' | null> {
  try {
    const st = await lstat(abs);
    return st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
