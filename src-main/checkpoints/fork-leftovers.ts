/**
 * What a fork with files leaves when its process dies half way (`thread/fork {weftWorktree}` killed): a
 * folder under the worktrees dir that no fork record names (a partial copy, or a git worktree still
 * registered in the project's repository) and its `weft/<short id>` branch. They are found from the notes
 * of forks being made (fork-records.ts) whose process is gone, from the worktrees dir's folders named like
 * a fork's, and from the repositories forks came from; they are removed when they hold nothing that is
 * not found elsewhere. A file counts as found elsewhere when its bytes are in the checkpoint store, are
 * the file as committed (a worktree's HEAD), or are the project's file at the same path or the start of
 * it (a copy the kill cut short). Anything else is work found nowhere else: the folder (or a branch with
 * commits no other ref has) is kept and reported.
 */
import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { git as runGit } from '../safety/git/run';
import { blobOid } from '../util/git-blob';
import { hashContent, type BlobStore } from './blob-store';
import type { ForkRecords } from './fork-records';

/** Names Weft gives fork folders and branches (`weft/<short id>`): 4 random bytes in hex. */
const SHORT_ID = /^[0-9a-f]{8}$/;
/** Paths named in a report, per folder. */
const NAMED_PATHS = 10;

export interface ForkLeftoverReport {
  /** Folders removed (a worktree's registration with it). */
  removedFolders: string[];
  /** Branches deleted, as `<repository>: weft/<short id>`. */
  removedBranches: string[];
  /** What was kept because it holds work found nowhere else, and why. */
  kept: { path: string; reason: string }[];
  /** What could not be looked at or removed (it stays), said for people. */
  problems: string[];
}

export interface ForkLeftoverInput {
  worktreesDir: string;
  forks: ForkRecords;
  blobs: BlobStore;
  /** Whether a process still runs (default: signal 0); a fork its process still makes is left alone. */
  alive?: (pid: number) => boolean;
}

interface Candidate {
  folder: string;
  shortId: string | null;
  /** The project forked, when a note says it. */
  root: string | null;
}

/** Finds the leftovers of interrupted forks and removes those holding nothing found nowhere else. */
export async function cleanForkLeftovers(input: ForkLeftoverInput): Promise<ForkLeftoverReport> {
  const report: ForkLeftoverReport = { removedFolders: [], removedBranches: [], kept: [], problems: [] };
  const alive = input.alive ?? processAlive;
  const worktreesDir = resolve(input.worktreesDir);
  const records = await input.forks.list();
  const recorded = new Set(records.map((r) => resolve(r.folder)));
  const notes = await input.forks.pending();
  const busy = notes.filter((n) => n.pid === process.pid || alive(n.pid));
  const busyFolders = new Set(busy.map((n) => resolve(n.folder)));
  /** Branches a fork still uses or is being given. */
  const inUse = new Set([
    ...records.flatMap((r) => (r.branch === null ? [] : [r.branch])),
    ...busy.map((n) => `weft/${n.shortId}`),
  ]);

  const candidates = new Map<string, Candidate>();
  for (const note of notes) {
    if (busy.includes(note)) continue;
    const folder = resolve(note.folder);
    // Its record was saved, and the process ended before the note was cleared.
    if (recorded.has(folder)) await input.forks.settle(note.shortId);
    else candidates.set(folder, { folder, shortId: note.shortId, root: note.root });
  }
  for (const name of await readdir(worktreesDir).catch(() => [])) {
    const folder = join(worktreesDir, name);
    if (!SHORT_ID.test(name) || recorded.has(folder) || busyFolders.has(folder) || candidates.has(folder)) continue;
    candidates.set(folder, { folder, shortId: name, root: null });
  }

  const repos = new Set<string>();
  for (const record of records)
    if (record.kind === 'worktree') await addRepo(repos, record.parentCwd).catch(() => undefined);
  for (const c of candidates.values()) {
    try {
      const repo = await clean(c, input, report);
      if (repo !== null) repos.add(repo);
    } catch (error) {
      report.problems.push(`${c.folder}: ${message(error)}; it is left as it is`);
    }
  }
  for (const repo of repos) {
    try {
      await cleanRepository(repo, { worktreesDir, recorded, busyFolders, inUse }, report);
    } catch (error) {
      report.problems.push(`the worktrees and branches of ${repo}: ${message(error)}`);
    }
  }
  return report;
}

/**
 * Removes the files of a fork this process could not finish (it failed after its folder was made), as a
 * leftover: unless they hold work found nowhere else, with its branch if no fork uses it.
 */
export async function discardForkFiles(
  fork: { folder: string; shortId: string; root: string },
  input: Omit<ForkLeftoverInput, 'worktreesDir' | 'alive'>,
): Promise<ForkLeftoverReport> {
  const report: ForkLeftoverReport = { removedFolders: [], removedBranches: [], kept: [], problems: [] };
  const folder = resolve(fork.folder);
  const repo = await clean({ folder, shortId: fork.shortId, root: fork.root }, input, report);
  if (repo === null) return report;
  const branch = `weft/${fork.shortId}`;
  const checkedOut = (await listWorktrees(repo)).some((wt) => wt.branch === branch);
  const exists = await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]).then(
    () => true,
    () => false,
  );
  if (exists && !checkedOut && (await ownCommits(repo, branch)) === 0) {
    await git(repo, ['branch', '-D', branch]);
    report.removedBranches.push(`${repo}: ${branch}`);
  }
  return report;
}

/** Removes one candidate folder unless it holds work found nowhere else; returns its repository, if any. */
async function clean(
  c: Candidate,
  input: Pick<ForkLeftoverInput, 'forks' | 'blobs'>,
  report: ForkLeftoverReport,
): Promise<string | null> {
  const exists = (await lstat(c.folder).catch(() => null))?.isDirectory() === true;
  const adminDir = exists ? await worktreeAdminDir(c.folder) : null;
  let repo = adminDir === null ? null : dirname(dirname(adminDir));
  if (repo === null && c.root !== null) repo = await commonDir(c.root).catch(() => null);
  if (exists) {
    const unique = await workFoundNowhereElse(c, input.blobs, adminDir !== null);
    if (unique.length > 0) {
      const named = unique.slice(0, NAMED_PATHS).join(', ');
      const more = unique.length > NAMED_PATHS ? ` and more` : '';
      report.kept.push({
        path: c.folder,
        reason: `left by an interrupted fork, it holds work found nowhere else (${named}${more}); move what you need, then remove the folder yourself`,
      });
      return repo;
    }
    if (adminDir !== null && repo !== null) {
      await git(repo, ['worktree', 'remove', '--force', '--force', c.folder]).catch(async () => {
        // A worktree git no longer lists as one: its folder and registration go by hand.
        await rm(c.folder, { recursive: true, force: true });
        await rm(adminDir, { recursive: true, force: true });
      });
    } else await rm(c.folder, { recursive: true, force: true });
    report.removedFolders.push(c.folder);
  }
  if (c.shortId !== null) await input.forks.settle(c.shortId);
  return repo;
}

/**
 * Paths of a leftover folder whose bytes are nowhere else (see the file's comment); stops at a few past
 * what a report names. A worktree git can read is looked at through `git status`; anything else file by file.
 */
async function workFoundNowhereElse(c: Candidate, blobs: BlobStore, worktree: boolean): Promise<string[]> {
  const committed = worktree ? await committedBlobs(c.folder) : null;
  let paths: string[] | null = null;
  if (worktree && committed !== null) paths = await changedPaths(c.folder);
  paths ??= await filesUnder(c.folder);
  const out: string[] = [];
  for (const rel of paths) {
    const abs = join(c.folder, rel);
    const st = await lstat(abs).catch(() => null);
    // Gone (deleted in the fork: the committed file holds it), or not a file (folders, links hold no work).
    if (st === null || !st.isFile()) continue;
    const bytes = await readFile(abs);
    if (await blobs.has(await hashContent(bytes))) continue;
    if (committed?.get(rel) === blobOid(bytes)) continue;
    if (c.root !== null && (await startOf(join(c.root, rel), bytes))) continue;
    out.push(rel);
    if (out.length > NAMED_PATHS) break;
  }
  return out;
}

/** Worktrees under the worktrees dir no fork knows (folders gone) and `weft/<short id>` branches no fork uses. */
async function cleanRepository(
  repo: string,
  known: { worktreesDir: string; recorded: Set<string>; busyFolders: Set<string>; inUse: Set<string> },
  report: ForkLeftoverReport,
): Promise<void> {
  const worktrees = await listWorktrees(repo);
  for (const wt of worktrees) {
    if (!inside(known.worktreesDir, wt.path) || known.recorded.has(wt.path) || known.busyFolders.has(wt.path)) continue;
    const exists = (await lstat(wt.path).catch(() => null)) !== null;
    if (exists) continue; // a folder of its own: looked at as a candidate above
    const admin = await adminDirOf(repo, wt.path);
    if (admin !== null) await rm(admin, { recursive: true, force: true });
  }
  const checkedOut = new Set((await listWorktrees(repo)).flatMap((wt) => (wt.branch === null ? [] : [wt.branch])));
  const { stdout } = await git(repo, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/weft/']);
  for (const branch of stdout.split('\n').filter((b) => b !== '')) {
    if (!SHORT_ID.test(branch.slice('weft/'.length)) || known.inUse.has(branch) || checkedOut.has(branch)) continue;
    const commits = await ownCommits(repo, branch);
    if (commits > 0) {
      report.kept.push({
        path: `${repo}: ${branch}`,
        reason: `left by an interrupted fork, the branch has ${commits} commit(s) no other branch has; merge or delete it yourself`,
      });
      continue;
    }
    await git(repo, ['branch', '-D', branch]);
    report.removedBranches.push(`${repo}: ${branch}`);
  }
}

/** Commits of `branch` that no other ref (branch, tag, HEAD of any worktree) reaches. */
async function ownCommits(repo: string, branch: string): Promise<number> {
  const { stdout } = await git(repo, [
    'rev-list',
    '--count',
    `refs/heads/${branch}`,
    '--not',
    `--exclude=refs/heads/${branch}`,
    '--all',
  ]);
  return Number(stdout.trim());
}

interface Worktree {
  path: string;
  branch: string | null;
}

async function listWorktrees(repo: string): Promise<Worktree[]> {
  const { stdout } = await git(repo, ['worktree', 'list', '--porcelain', '-z']);
  const out: Worktree[] = [];
  for (const block of stdout.split('\0\0')) {
    const lines = block.split('\0');
    const path = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    if (path === undefined) continue;
    const ref = lines.find((l) => l.startsWith('branch '))?.slice('branch '.length) ?? null;
    out.push({ path: resolve(path), branch: ref === null ? null : ref.replace(/^refs\/heads\//, '') });
  }
  return out;
}

/** The registration (`<common dir>/worktrees/<name>`) of the worktree at `path`, or null. */
async function adminDirOf(repo: string, path: string): Promise<string | null> {
  const dir = join(repo, 'worktrees');
  for (const name of await readdir(dir).catch(() => [])) {
    const gitdir = await readFile(join(dir, name, 'gitdir'), 'utf8').catch(() => '');
    if (resolve(dirname(gitdir.trim())) === path) return join(dir, name);
  }
  return null;
}

/** The registration a worktree folder's `.git` file points at, or null when the folder is not a worktree. */
async function worktreeAdminDir(folder: string): Promise<string | null> {
  const text = await readFile(join(folder, '.git'), 'utf8').catch(() => null);
  const m = text === null ? null : /^gitdir: (.+)$/m.exec(text);
  if (!m?.[1]) return null;
  const dir = isAbsolute(m[1]) ? m[1] : resolve(folder, m[1]);
  return dirname(dir).endsWith(`${sep}worktrees`) ? dir : null;
}

/** The repository (common dir) holding `cwd`. */
async function commonDir(cwd: string): Promise<string> {
  const { stdout } = await runGit(cwd, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  return resolve(stdout.trim());
}

async function addRepo(repos: Set<string>, cwd: string): Promise<void> {
  repos.add(await commonDir(cwd));
}

/** Paths `git status` shows as changed or new in a worktree; null when git cannot read it (half made). */
async function changedPaths(folder: string): Promise<string[] | null> {
  try {
    const { stdout } = await runGit(
      folder,
      ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames'],
      { optionalLocks: false },
    );
    return stdout
      .split('\0')
      .filter((part) => part.length > 3)
      .map((part) => part.slice(3));
  } catch {
    return null;
  }
}

/** The blob id of each file committed at a worktree's HEAD, or null when it has none readable. */
async function committedBlobs(folder: string): Promise<Map<string, string> | null> {
  try {
    const { stdout } = await runGit(folder, ['ls-tree', '-r', '-z', '--full-tree', 'HEAD']);
    const out = new Map<string, string>();
    for (const entry of stdout.split('\0')) {
      const m = /^\d+ blob ([0-9a-f]+)\t(.+)$/s.exec(entry);
      if (m?.[1] && m[2]) out.set(m[2], m[1]);
    }
    return out;
  } catch {
    return null;
  }
}

/** Every file under `root` (relative paths), folders walked, nothing followed through links. */
async function filesUnder(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(rel === '' ? root : join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      // A worktree's link to its repository, a nested repository: git's, not the fork's files.
      if (e.name === '.git') continue;
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) await walk(child);
      else out.push(child);
    }
  };
  await walk('');
  return out;
}

/** Whether `bytes` are the file at `path`, or its start (a copy cut short). */
async function startOf(path: string, bytes: Buffer): Promise<boolean> {
  const st = await lstat(path).catch(() => null);
  if (st === null || !st.isFile() || st.size < bytes.length) return false;
  const whole = await readFile(path).catch(() => null);
  return whole !== null && whole.subarray(0, bytes.length).equals(bytes);
}

/** A command on the repository itself (its common dir is the cwd: git finds the repository it is in). */
function git(repo: string, args: string[]): Promise<{ stdout: string }> {
  return runGit(repo, args);
}

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

function message(error: unknown): string {
  if (error instanceof Error && 'stderr' in error && typeof error.stderr === 'string' && error.stderr.trim() !== '')
    return error.stderr.trim();
  return error instanceof Error ? error.message : String(error);
}

/** A report as lines for people (none when there was nothing to do). */
export function describeForkLeftovers(report: ForkLeftoverReport): string[] {
  const lines: string[] = [];
  if (report.removedFolders.length > 0)
    lines.push(`removed what interrupted forks left: ${report.removedFolders.join(', ')}`);
  if (report.removedBranches.length > 0)
    lines.push(`deleted the branches of interrupted forks: ${report.removedBranches.join(', ')}`);
  for (const kept of report.kept) lines.push(`kept ${kept.path}: ${kept.reason}`);
  for (const problem of report.problems) lines.push(`could not clean up after an interrupted fork: ${problem}`);
  return lines;
}
