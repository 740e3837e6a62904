// The Changes panel's operations on a repository: per-file diffs, stage / unstage / discard of a file or
// of chosen hunks, commit. Hunks are applied with `git apply` on patches rebuilt from git's own diff.
import { rm } from 'node:fs/promises';
import type { GitDiffArea, WeftGitCommitResult, WeftGitDiffResult } from '../../src-preload/protocol';
import type { DiscardRecord, DiscardStore } from '../checkpoints/discards';
import { git } from '../safety/git/run';
import { confinedPath, OutsideRootError, readWorkspaceEntry, type WorkspaceEntry } from '../util/workspace-file';
import { lineSummary, newFilePatchWithHunks, patchWithHunks, readGitDiff, splitNewFile } from './hunks';
import type { ParsedFileDiff } from './hunks';
import { repoRoot } from './status';

/** Largest work-tree file shown beside its diff (Monaco holds it whole); git's diff itself is not cut. */
const MAX_SHOWN_BYTES = 16 * 1024 * 1024;

/** An untracked file's diff is git reading the file itself: bounded in case it was swapped for a FIFO. */
const UNTRACKED_DIFF_TIMEOUT_MS = 30_000;

export class GitRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitRequestError';
  }
}

/** The repository root of `cwd`; a folder outside any repository is an error. */
export async function requireRoot(cwd: string): Promise<string> {
  const { root, reason } = await repoRoot(cwd);
  if (root === null) throw new GitRequestError(reason ?? `${cwd} is not in a git repository`);
  return root;
}

/** git's diff of one path in one area (the untracked area compares with nothing). */
export async function rawDiff(root: string, path: string, area: GitDiffArea): Promise<string> {
  const common = ['--no-color', '--no-ext-diff', '--no-renames', '-U3'];
  switch (area) {
    case 'unstaged':
      return (await git(root, ['diff', ...common, '--', path])).stdout;
    case 'staged':
      return (await git(root, ['diff', '--cached', ...common, '--', path])).stdout;
    case 'untracked': {
      // git shows a symlink as its target and reads a regular file; anything else (a FIFO would block its
      // read) or a path through a symlinked folder is refused before git sees it.
      const entry = await workTreeEntry(root, path);
      if (entry.kind === 'other')
        throw new GitRequestError(
          path.endsWith('/')
            ? `${path} is a nested git repository: it has no diff of its own (staging it records its commit)`
            : `${path} is not a regular file or a symlink; it has no diff`,
        );
      return (
        await git(root, ['diff', '--no-index', ...common, '--', '/dev/null', path], {
          okExitCodes: [1],
          timeoutMs: UNTRACKED_DIFF_TIMEOUT_MS,
        })
      ).stdout;
    }
  }
}

/** What is at `path` in the work tree, read safely; a path leading out of `root` is a request error. */
async function workTreeEntry(root: string, path: string): Promise<WorkspaceEntry> {
  try {
    return await readWorkspaceEntry(root, path, MAX_SHOWN_BYTES);
  } catch (error) {
    if (error instanceof OutsideRootError) throw new GitRequestError(error.message);
    throw error;
  }
}

/** The content of `path` at a git object spec (`HEAD:path`, `:path`), or null when absent there. */
async function showObject(root: string, spec: string): Promise<string | null> {
  try {
    return (await git(root, ['show', spec])).stdout;
  } catch {
    return null;
  }
}

/** The work-tree side for Monaco: a file's text, a symlink's target (as git diffs it), else null. */
async function workTreeText(root: string, path: string): Promise<string | null> {
  const entry = await workTreeEntry(root, path);
  if (entry.kind === 'file') return entry.bytes.toString('utf8');
  if (entry.kind === 'symlink') return entry.target;
  return null;
}

/** git's diff of `path` read, or a request error saying why it could not be. */
function readDiff(path: string, diff: string): ParsedFileDiff {
  try {
    return readGitDiff(diff);
  } catch (error) {
    throw new GitRequestError(`git's diff of ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export async function fileDiff(root: string, path: string, area: GitDiffArea): Promise<WeftGitDiffResult> {
  const diff = await rawDiff(root, path, area);
  // A new file's one hunk is split into blocks, so part of it can be staged (see `stage`).
  const parsed = area === 'untracked' ? splitNewFile(readDiff(path, diff)) : readDiff(path, diff);
  let original: string | null = null;
  let modified: string | null = null;
  if (!parsed.binary) {
    if (area === 'staged')
      [original, modified] = await Promise.all([showObject(root, `HEAD:${path}`), showObject(root, `:${path}`)]);
    else if (area === 'unstaged')
      [original, modified] = await Promise.all([showObject(root, `:${path}`), workTreeText(root, path)]);
    else modified = await workTreeText(root, path);
  }
  return {
    path,
    area,
    diff,
    hunks: parsed.hunks.map(({ lines: _lines, ...hunk }) => hunk),
    original,
    modified,
    binary: parsed.binary,
  };
}

/** The patch of the chosen hunks, checked against the diff the client saw. */
async function hunkPatch(
  root: string,
  path: string,
  area: GitDiffArea,
  hunks: readonly number[],
  expectedDiff: string | null | undefined,
): Promise<string> {
  const diff = await rawDiff(root, path, area);
  if (expectedDiff != null && expectedDiff !== diff)
    throw new GitRequestError(`${path} changed since its diff was shown; look at it again before choosing hunks`);
  if (diff === '') throw new GitRequestError(`${path} has no ${area} changes`);
  try {
    return patchWithHunks(readGitDiff(diff), hunks);
  } catch (error) {
    throw new GitRequestError(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function isUntracked(root: string, path: string): Promise<boolean> {
  const { stdout } = await git(root, ['ls-files', '--others', '--exclude-standard', '--', path]);
  return stdout.trim() !== '';
}

async function hasHead(root: string): Promise<boolean> {
  return (await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD'], { okExitCodes: [1] })).exitCode === 0;
}

export interface HunkSelection {
  hunks?: readonly number[] | null;
  expectedDiff?: string | null;
}

/** Index entries at or under `path` that are gitlinks (a submodule, or a nested repository once staged). */
async function gitlinksAt(root: string, path: string): Promise<string[]> {
  const { stdout } = await git(root, ['ls-files', '--stage', '-z', '--', path]);
  return stdout
    .split('\0')
    .filter((record) => record.startsWith('160000 '))
    .map((record) => record.slice(record.indexOf('\t') + 1));
}

/**
 * `git add --all` of `path`, except that gitlinks get their new commit through `git update-index`: `git
 * add` of a submodule whose work tree changed runs `git status` inside it, with the nested repository's
 * own config (its filters), which the overrides of safety/git/run.ts do not cover.
 */
async function stageWhole(root: string, path: string): Promise<void> {
  const gitlinks = await gitlinksAt(root, path);
  if (gitlinks.length > 0) await git(root, ['update-index', '--add', '--remove', '--', ...gitlinks]);
  if (gitlinks.includes(path.replace(/\/+$/, ''))) return;
  await git(root, ['add', '--all', '--', path, ...gitlinks.map((g) => `:(exclude,literal)${g}`)]);
}

export async function stage(root: string, path: string, sel: HunkSelection): Promise<void> {
  if (sel.hunks == null) {
    await stageWhole(root, path);
    return;
  }
  if (await isUntracked(root, path)) {
    // The chosen blocks of a new file (see `fileDiff`) go to the index as a new file of those lines; the
    // rest stays in the work tree as unstaged changes to it.
    const diff = await rawDiff(root, path, 'untracked');
    if (sel.expectedDiff != null && sel.expectedDiff !== diff)
      throw new GitRequestError(`${path} changed since its diff was shown; look at it again before choosing hunks`);
    let patch: string;
    try {
      patch = newFilePatchWithHunks(splitNewFile(readGitDiff(diff)), sel.hunks);
    } catch (error) {
      throw new GitRequestError(`${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
    await git(root, ['apply', '--cached', '--whitespace=nowarn', '-'], { input: patch });
    return;
  }
  const patch = await hunkPatch(root, path, 'unstaged', sel.hunks, sel.expectedDiff);
  await git(root, ['apply', '--cached', '--whitespace=nowarn', '-'], { input: patch });
}

export async function unstage(root: string, path: string, sel: HunkSelection): Promise<void> {
  if (sel.hunks == null) {
    if (await hasHead(root)) await git(root, ['restore', '--staged', '--', path]);
    else await git(root, ['rm', '--cached', '--quiet', '--', path]);
    return;
  }
  const patch = await hunkPatch(root, path, 'staged', sel.hunks, sel.expectedDiff);
  await git(root, ['apply', '--cached', '--reverse', '--whitespace=nowarn', '-'], { input: patch });
}

/**
 * Discards the work-tree changes of `path` (back to the index), or only the chosen hunks; an untracked
 * file is removed. What was there is kept in `discards` first and can be restored.
 */
export async function discard(
  root: string,
  path: string,
  sel: HunkSelection,
  discards: DiscardStore,
): Promise<DiscardRecord> {
  if (await isUntracked(root, path)) {
    if (sel.hunks != null) throw new GitRequestError(`${path} is untracked: discard it as a whole`);
    const entry = await workTreeEntry(root, path);
    const summary =
      entry.kind === 'file'
        ? `+${entry.bytes.toString('utf8').split('\n').length} lines (untracked file)`
        : entry.kind === 'symlink'
          ? `symlink to ${entry.target} (untracked)`
          : 'untracked file';
    // `rm` removes a symlink itself, never what it points to; the folders on the way were checked.
    const target = await confinedPath(root, path);
    return discards.keep({ root, path, kind: 'untracked', summary }, () => rm(target));
  }
  if (sel.hunks == null) {
    const diff = await rawDiff(root, path, 'unstaged');
    if (diff === '') throw new GitRequestError(`${path} has no unstaged changes to discard`);
    return discards.keep({ root, path, kind: 'file', summary: lineSummary(diff) }, () =>
      git(root, ['restore', '--worktree', '--', path]),
    );
  }
  const patch = await hunkPatch(root, path, 'unstaged', sel.hunks, sel.expectedDiff);
  return discards.keep({ root, path, kind: 'hunks', summary: lineSummary(patch) }, () =>
    git(root, ['apply', '--reverse', '--whitespace=nowarn', '-'], { input: patch }),
  );
}

export async function commit(root: string, message: string, amend: boolean): Promise<WeftGitCommitResult> {
  const args = ['commit', '--file=-', '--cleanup=strip'];
  if (amend) args.push('--amend');
  // The root repository's own hooks run (see safety/git/hooks.ts); the status lists them for the commit box.
  const out = await git(root, args, { input: message, hooks: 'repository' });
  const [sha, branch] = await Promise.all([
    git(root, ['rev-parse', 'HEAD']).then((r) => r.stdout.trim()),
    git(root, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { okExitCodes: [1] }).then((r) =>
      r.exitCode === 0 ? r.stdout.trim() : null,
    ),
  ]);
  return { sha, branch, summary: out.stdout.split('\n')[0]?.trim() ?? '' };
}

/** HEAD's commit and its whole message; null when the branch has no commit yet. */
export async function lastCommit(root: string): Promise<{ sha: string; message: string } | null> {
  const head = await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD'], { okExitCodes: [1] });
  if (head.exitCode !== 0) return null;
  const { stdout } = await git(root, ['log', '-1', '--format=%B', 'HEAD']);
  return { sha: head.stdout.trim(), message: stdout.replace(/\n+$/, '') };
}

/** The staged diff, for a commit message (bounded: the model needs the gist, not every byte). */
export async function stagedDiff(
  root: string,
  maxBytes: number,
): Promise<{ diff: string; stat: string; truncated: boolean }> {
  const [diff, stat] = await Promise.all([
    git(root, ['diff', '--cached', '--no-color', '--no-ext-diff', '-U3']).then((r) => r.stdout),
    git(root, ['diff', '--cached', '--stat', '--no-color']).then((r) => r.stdout),
  ]);
  return diff.length > maxBytes
    ? { diff: diff.slice(0, maxBytes), stat, truncated: true }
    : { diff, stat, truncated: false };
}
