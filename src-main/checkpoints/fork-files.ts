/**
 * A forked thread's own copy of the project: a git worktree on a new branch `weft/<short-id>` (the
 * committed base, then the checkpointed state written over it) or, outside git, a copy of the folder
 * (reflinks where the filesystem has them). The original workspace is only read.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  constants,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { git } from '../safety/git/run';
import type { BlobStore } from './blob-store';
import { CheckpointError } from './errors';
import { IgnoreRules } from './ignore-rules';
import { childKey, fsPath, keyOfName } from './path-key';
import { STAGING_PREFIX } from './restore-apply';
import type { Entry } from './types';

export interface ForkFilesResult {
  /** The new thread's working directory. */
  cwd: string;
  /** 'worktree' (git) or 'copy'. */
  kind: 'worktree' | 'copy';
  /** The worktree's branch (git only). */
  branch: string | null;
  notes: string[];
}

async function gitTopLevel(root: string): Promise<string | null> {
  try {
    const { stdout } = await git(root, ['rev-parse', '--show-toplevel']);
    const top = stdout.trim();
    if (top === '') return null;
    await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD']);
    return top;
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
  if (existsSync(dest)) throw new CheckpointError(`${dest} already exists; remove it or fork again`);
  mkdirSync(input.worktreesDir, { recursive: true });
  const top = await gitTopLevel(input.root);
  const notes: string[] = [];
  if (top !== null) {
    const branch = `weft/${input.shortId}`;
    try {
      // Runs no hook (post-checkout) and none of the repository's own filters (safety/git/run.ts).
      await git(top, ['worktree', 'add', '--quiet', '-b', branch, dest, 'HEAD']);
    } catch (error) {
      const detail = error instanceof Error && 'stderr' in error ? String(error.stderr).trim() : String(error);
      throw new CheckpointError(`could not create a git worktree for the fork: ${detail}`);
    }
    const sub = relative(top, input.root);
    const cwd = sub === '' ? dest : join(dest, sub);
    mkdirSync(cwd, { recursive: true });
    materialize(input.root, cwd, input.state, input.blobs, notes);
    return { cwd, kind: 'worktree', branch, notes };
  }
  cpSync(input.root, dest, {
    recursive: true,
    mode: constants.COPYFILE_FICLONE,
    verbatimSymlinks: true,
    filter: (source) =>
      !source
        .slice(input.root.length + 1)
        .split('/')
        .some((part) => part.startsWith(STAGING_PREFIX)),
  });
  materialize(input.root, dest, input.state, input.blobs, notes);
  return { cwd: dest, kind: 'copy', branch: null, notes };
}

/** Makes the checkpointed (non-ignored) files of `dest` equal to `state`. */
function materialize(
  source: string,
  dest: string,
  state: ReadonlyMap<string, Entry>,
  blobs: BlobStore,
  notes: string[],
): void {
  const paths = [...state.keys()].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
  for (const path of paths) {
    const entry = state.get(path);
    if (entry === undefined) continue;
    const abs = fsPath(dest, path);
    const existing = kindOf(abs);
    if (entry.kind === 'dir') {
      if (existing !== 'dir') {
        if (existing !== null) rmSync(abs, { force: true });
        mkdirSync(abs, { recursive: true });
      }
      chmodSync(abs, entry.mode & 0o7777);
      continue;
    }
    if (existing === 'dir') rmSync(abs, { recursive: true, force: true });
    if (entry.kind === 'symlink') {
      if (existing === 'symlink' && readlinkSync(abs) === entry.target) continue;
      if (existing !== null && existing !== 'dir') unlinkSync(abs);
      symlinkSync(entry.target, abs);
      continue;
    }
    let bytes: Buffer;
    if (entry.hash === null) {
      try {
        bytes = readFileSync(fsPath(source, path));
        notes.push(`${path}: copied as it is now (its checkpoint was too large to keep)`);
      } catch {
        notes.push(`${path}: left out: not checkpointed (too large) and no longer in the project`);
        continue;
      }
    } else {
      if (existing === 'file' && sha256(readFileSync(abs)) === entry.hash) {
        chmodSync(abs, entry.mode & 0o7777);
        continue;
      }
      bytes = blobs.get(entry.hash);
    }
    if (existing === 'symlink') unlinkSync(abs);
    writeFileSync(abs, bytes);
    chmodSync(abs, entry.mode & 0o7777);
  }
  // Files the committed base has but the state does not (the agent deleted them).
  const rules = new IgnoreRules(dest);
  const prune = (dirRel: string): void => {
    let names: Buffer[];
    try {
      names = readdirSync(fsPath(dest, dirRel), { encoding: 'buffer' });
    } catch {
      return;
    }
    for (const bytes of names) {
      const name = keyOfName(bytes);
      if (name === '.git') continue;
      const rel = childKey(dirRel, name);
      const kind = kindOf(fsPath(dest, rel));
      if (kind === 'dir') {
        if (rules.ignored(rel, true)) continue;
        if (!state.has(rel)) rmSync(fsPath(dest, rel), { recursive: true, force: true });
        else prune(rel);
      } else if (!rules.ignored(rel, false) && !state.has(rel)) rmSync(fsPath(dest, rel), { force: true });
    }
  };
  prune('');
}

function kindOf(abs: string | Buffer): 'file' | 'symlink' | 'dir' | null {
  try {
    const st = lstatSync(abs);
    return st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
