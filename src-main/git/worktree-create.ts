// A worktree thread's own git worktree (`thread/start {weftWorktree: true}`): a new branch made from the
// project's HEAD (or the ref asked for) in `<worktrees dir>/<project>-<hash>/<name>`, with the project's
// uncommitted changes when asked. What fails half way is taken back: the folder and the branch were made
// here a moment ago and hold nothing of the user's.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, realpath, rm, stat } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import type { RolloutWeftWorktree } from '../../src-preload/protocol';
import { git } from '../safety/git/run';
import { addWorktree, gitMessage } from '../safety/git/worktree-add';
import { carryChanges } from './worktree-carry';

/** A worktree that cannot be made as asked, said for people (the app server answers it as -32602). */
export class WorktreeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorktreeError';
  }
}

export interface WorktreeRequest {
  /** The project folder the thread is started for (inside a git repository). */
  cwd: string;
  /** Where Weft keeps worktrees (`[checkpoints] worktrees_dir`, default `WEFT_HOME/worktrees`). */
  worktreesDir: string;
  /** What the branch is made from; default the project's HEAD. */
  baseRef?: string | null;
  /** The new branch's name; default `weft/<short name>`, unique in the repository. */
  branch?: string | null;
  /** Bring the project's uncommitted changes (tracked changes, untracked files not ignored). */
  carryChanges?: boolean | null;
}

export interface CreatedWorktree {
  /** What the thread's session_meta keeps (`weft_worktree`). */
  saved: RolloutWeftWorktree;
  /** The thread's cwd: the worktree, at the place `cwd` has in its repository. */
  cwd: string;
  /** Files the carried changes touched (null when none were asked for). */
  carriedFiles: number | null;
}

/** How many random names are tried before giving up (6 hex digits: a clash is already rare). */
const NAME_TRIES = 8;

/** The folder holding a repository's worktrees: its name and a short hash of its path (names repeat). */
export function projectWorktreesDir(worktreesDir: string, top: string): string {
  const name =
    basename(top)
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[.-]+/, '') || 'project';
  return join(worktreesDir, `${name}-${createHash('sha256').update(top).digest('hex').slice(0, 8)}`);
}

export async function createWorktree(request: WorktreeRequest): Promise<CreatedWorktree> {
  const top = await repositoryTop(request.cwd);
  const base = await baseOf(top, request.baseRef ?? null);
  const branch =
    request.branch === undefined || request.branch === null
      ? await freeBranchName(top)
      : await checkedBranchName(top, request.branch);
  const parent = projectWorktreesDir(request.worktreesDir, top);
  const dest = await freeFolder(parent, branch.startsWith('weft/') ? branch.slice('weft/'.length) : branch);
  await mkdir(parent, { recursive: true });
  try {
    await addWorktree(top, { dest, branch, commit: base.commit });
  } catch (error) {
    throw new WorktreeError(`could not create a git worktree of ${top} at ${dest}: ${gitMessage(error)}`);
  }
  try {
    const carried = request.carryChanges === true ? await carryChanges(top, dest) : null;
    const cwd = join(dest, relative(top, await realpath(request.cwd)));
    await mkdir(cwd, { recursive: true });
    return {
      saved: { path: dest, branch, base_ref: base.ref, base_commit: base.commit, project_root: request.cwd },
      cwd,
      carriedFiles: carried,
    };
  } catch (error) {
    await discardWorktree(top, dest, branch);
    throw error instanceof WorktreeError ? error : new WorktreeError(gitMessage(error));
  }
}

/** Takes back a worktree made a moment ago (its folder, its registration and its branch). */
export async function discardWorktree(top: string, dest: string, branch: string): Promise<void> {
  await git(top, ['worktree', 'remove', '--force', '--force', '--', dest]).catch(async () => {
    await rm(dest, { recursive: true, force: true });
    await git(top, ['worktree', 'prune']).catch(() => undefined);
  });
  await git(top, ['branch', '-D', '--', branch]).catch(() => undefined);
}

/** The top folder of the repository holding `cwd` (symlinks resolved), or an error saying there is none. */
async function repositoryTop(cwd: string): Promise<string> {
  const exists = await stat(cwd).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!exists) throw new WorktreeError(`cwd: ${cwd} is not a folder`);
  let top = '';
  try {
    top = (await git(cwd, ['rev-parse', '--show-toplevel'])).stdout.trim();
  } catch {
    // not a repository (or git cannot read it): said below
  }
  if (top === '')
    throw new WorktreeError(
      `${cwd} is not in a git repository, and a worktree thread needs one: start a Local thread, or run \`git init\` and make a first commit`,
    );
  return realpath(top);
}

/** The commit the branch is made from, and the name it is recorded under. */
async function baseOf(top: string, asked: string | null): Promise<{ ref: string; commit: string }> {
  if (asked !== null) {
    const commit = await commitOf(top, asked);
    if (commit === null) throw new WorktreeError(`weftBaseRef: "${asked}" names no commit in ${top}`);
    return { ref: asked, commit };
  }
  const commit = await commitOf(top, 'HEAD');
  if (commit === null)
    throw new WorktreeError(`${top} has no commit yet: make a first commit, then start the worktree thread`);
  const symbolic = await git(top, ['symbolic-ref', '--quiet', '--short', 'HEAD']).then(
    (out) => out.stdout.trim(),
    () => '',
  );
  return { ref: symbolic === '' ? commit : symbolic, commit };
}

async function commitOf(top: string, ref: string): Promise<string | null> {
  const out = await git(top, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]).catch(
    () => null,
  );
  const commit = out?.stdout.trim() ?? '';
  return commit === '' ? null : commit;
}

async function branchExists(top: string, branch: string): Promise<boolean> {
  return git(top, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]).then(
    () => true,
    () => false,
  );
}

/**
 * `weft/<6 hex digits>` that no branch has. Never 8 digits: `weft/<8 hex>` names a fork's branch, which
 * the clean-up after interrupted forks may delete when no fork uses it.
 */
async function freeBranchName(top: string): Promise<string> {
  for (let i = 0; i < NAME_TRIES; i += 1) {
    const name = `weft/${randomBytes(3).toString('hex')}`;
    if (!(await branchExists(top, name))) return name;
  }
  throw new WorktreeError(`could not find a free weft/ branch name in ${top}; name one with weftBranch`);
}

/** `asked` as a new branch's name, or an error saying why it cannot be one. */
async function checkedBranchName(top: string, asked: string): Promise<string> {
  const checked = await git(top, ['check-ref-format', '--branch', asked]).then(
    (out) => out.stdout.trim(),
    () => null,
  );
  if (checked === null || checked === '' || checked.startsWith('-') || checked !== asked)
    throw new WorktreeError(`weftBranch: "${asked}" is not a valid branch name`);
  if (await branchExists(top, asked))
    throw new WorktreeError(`weftBranch: a branch "${asked}" already exists in ${top}; name a new one`);
  return asked;
}

/** `<parent>/<name>`, or `<name>-2`, `-3`… when taken (a branch's slashes become dashes). */
async function freeFolder(parent: string, branchPart: string): Promise<string> {
  const name = branchPart.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '') || 'worktree';
  for (let n = 1; ; n += 1) {
    const candidate = join(parent, n === 1 ? name : `${name}-${n}`);
    const taken = await stat(candidate).then(
      () => true,
      () => false,
    );
    if (!taken) return candidate;
  }
}
