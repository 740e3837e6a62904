// What a worktree Weft made holds, for `weft worktrees list|prune`: its branch against its base (merged,
// empty, or commits of its own) and the work found nowhere else: commits no other branch, tag or remote
// reaches, and uncommitted or untracked files (each file inside an untracked folder counted on its own)
// whose bytes the project's own folder does not hold at the same path.
import { lstat, readdir, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { workOnlyInFork } from '../checkpoints/fork-work';
import { git } from '../safety/git/run';
import { gitMessage } from '../safety/git/worktree-add';

/** A worktree as Weft recorded it (a thread's `weft_worktree`, or one found on disk with no thread). */
export interface RecordedWorktree {
  path: string;
  branch: string;
  baseRef: string;
  /** The commit the branch was made from; null when unknown (a folder found with no thread). */
  baseCommit: string | null;
  /** The project folder it was made for; null when unknown. */
  projectRoot: string | null;
}

export interface WorktreeState {
  /** The folder is there and git knows it as a worktree. */
  present: boolean;
  /** What is checked out there (a branch name, or null when detached or gone). */
  checkedOut: string | null;
  /** Commits since the base (null when the base is unknown). */
  commits: number | null;
  /** Its commits are all in the base ref as it is now (false when there are none, or the base is gone). */
  merged: boolean;
  /** Commits no other branch, tag or remote reaches. */
  uniqueCommits: number;
  /** Changed or untracked files the project's folder does not hold as they are (repository-relative). */
  uniqueFiles: string[];
  /** The repository (its common git folder), to run git on it from outside the worktree. */
  commonDir: string | null;
  /** Why it could not be looked at (then the rest says nothing was found). */
  problem: string | null;
}

const ABSENT: WorktreeState = {
  present: false,
  checkedOut: null,
  commits: null,
  merged: false,
  uniqueCommits: 0,
  uniqueFiles: [],
  commonDir: null,
  problem: null,
};

export async function worktreeState(wt: RecordedWorktree): Promise<WorktreeState> {
  const st = await lstat(wt.path).catch(() => null);
  if (st === null || !st.isDirectory()) return ABSENT;
  let commonDir: string;
  try {
    commonDir = resolve(
      (await git(wt.path, ['rev-parse', '--path-format=absolute', '--git-common-dir'])).stdout.trim(),
    );
  } catch (error) {
    return { ...ABSENT, present: true, problem: `git cannot read it: ${gitMessage(error)}` };
  }
  const checkedOut = await git(wt.path, ['symbolic-ref', '--quiet', '--short', 'HEAD']).then(
    (out) => out.stdout.trim() || null,
    () => null,
  );
  const count = async (args: string[]): Promise<number> =>
    Number((await git(wt.path, ['rev-list', '--count', ...args])).stdout.trim());
  const commits = wt.baseCommit === null ? null : await count([`${wt.baseCommit}..HEAD`]).catch(() => null);
  const uniqueCommits = await count([
    'HEAD',
    '--not',
    // Before `--branches`, an exclusion names the branch without `refs/heads/`.
    ...(checkedOut === null ? [] : [`--exclude=${checkedOut}`]),
    '--branches',
    '--tags',
    '--remotes',
  ]);
  const merged =
    commits !== null &&
    commits > 0 &&
    (await git(wt.path, ['merge-base', '--is-ancestor', 'HEAD', '--end-of-options', wt.baseRef]).then(
      () => true,
      () => false,
    ));
  const changed = await uncommittedPaths(wt.path);
  const projectTop = wt.projectRoot === null ? null : await topOf(wt.projectRoot);
  const uniqueFiles = projectTop === null ? changed : await workOnlyInFork(wt.path, projectTop, changed);
  return { present: true, checkedOut, commits, merged, uniqueCommits, uniqueFiles, commonDir, problem: null };
}

/** Paths `git status` reports in a worktree, every untracked file on its own (not its folder). */
export async function uncommittedPaths(folder: string): Promise<string[]> {
  const { stdout } = await git(folder, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames'], {
    optionalLocks: false,
  });
  return stdout
    .split('\0')
    .filter((part) => part.length > 3)
    .map((part) => part.slice(3))
    .sort();
}

async function topOf(dir: string): Promise<string | null> {
  return git(dir, ['rev-parse', '--show-toplevel']).then(
    (out) => out.stdout.trim() || null,
    () => null,
  );
}

/**
 * Folders under `<worktreesDir>/<project>-<hash>/` that are git worktrees (a `.git` file pointing into a
 * repository's `worktrees/` folder): where worktree threads live, with or without a thread on record.
 */
export async function worktreeFolders(worktreesDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const project of await readdir(worktreesDir, { withFileTypes: true }).catch(() => [])) {
    if (!project.isDirectory() || !/-[0-9a-f]{8}$/.test(project.name)) continue;
    const dir = join(worktreesDir, project.name);
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isDirectory()) continue;
      const folder = join(dir, entry.name);
      const text = await readFile(join(folder, '.git'), 'utf8').catch(() => null);
      const gitdir = text === null ? null : /^gitdir: (.+)$/m.exec(text)?.[1];
      if (gitdir === undefined || gitdir === null) continue;
      const admin = isAbsolute(gitdir) ? gitdir : resolve(folder, gitdir);
      if (dirname(admin).endsWith('/worktrees')) out.push(folder);
    }
  }
  return out.sort();
}

/** Whether `path` is strictly inside `dir`. */
export function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}
