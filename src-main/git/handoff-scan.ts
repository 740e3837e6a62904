// What a handoff and a comparison of worktrees read from git (through the one runner, safety/git/run.ts):
// the paths of a work tree that differ from a commit (with the commit's entry for each, or lines added and
// removed), a blob's text for a three-way merge, and what a move takes back.
import { git } from '../safety/git/run';
import { readWorkspaceEntry } from '../util/workspace-file';

/** A path's entry in a commit: git's mode (`100644`, `100755`, `120000` a symlink, `160000` a submodule) and object id. */
export interface CommitEntry {
  mode: string;
  oid: string;
}

/**
 * The paths of `top`'s work tree (the index's view of it, and the untracked files git does not ignore)
 * whose state differs from `commit`, each with its entry in `commit` (null: not there). A nested
 * repository the work tree does not track is left out (git lists it as one folder).
 */
export async function changedSince(top: string, commit: string): Promise<Map<string, CommitEntry | null>> {
  const [diff, untracked] = await Promise.all([
    git(top, ['diff', '--raw', '-z', '--no-renames', '--no-abbrev', commit, '--'], { optionalLocks: false }),
    git(top, ['ls-files', '--others', '--exclude-standard', '-z'], { optionalLocks: false }),
  ]);
  const out = new Map<string, CommitEntry | null>();
  const fields = diff.stdout.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const head = fields[i] ?? '';
    const path = fields[i + 1] ?? '';
    // `:<old mode> <new mode> <old oid> <new oid> <status>`
    const match = /^:(\d{6}) \d{6} ([0-9a-f]+) [0-9a-f]+ [A-Z]/.exec(head);
    if (match === null || path === '') continue;
    const [, mode = '', oid = ''] = match;
    out.set(path, mode === '000000' ? null : { mode, oid });
  }
  for (const path of untracked.stdout.split('\0')) {
    if (path === '' || path.endsWith('/') || out.has(path)) continue;
    out.set(path, null);
  }
  return out;
}

/** The commit `ref` names in the repository of `top`, or null. */
export async function commitOf(top: string, ref: string): Promise<string | null> {
  const out = await git(top, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]).catch(
    () => null,
  );
  const commit = out?.stdout.trim() ?? '';
  return commit === '' ? null : commit;
}

/** The top folder of the work tree holding `dir` (a worktree's own top for a linked worktree). */
export async function workTreeTop(dir: string): Promise<string | null> {
  const out = await git(dir, ['rev-parse', '--show-toplevel']).catch(() => null);
  const top = out?.stdout.trim() ?? '';
  return top === '' ? null : top;
}

/**
 * A blob's text, or null when it is not text a merge can take (not UTF-8, or a NUL byte): git's output
 * reaches Weft decoded as UTF-8, so a blob whose bytes do not survive that is refused by its size.
 */
export async function blobText(top: string, oid: string): Promise<string | null> {
  const [size, blob] = await Promise.all([git(top, ['cat-file', '-s', oid]), git(top, ['cat-file', 'blob', oid])]);
  const text = blob.stdout;
  if (Buffer.byteLength(text, 'utf8') !== Number(size.stdout.trim()) || text.includes('\0')) return null;
  return text;
}

/**
 * The paths among `paths` that `top`'s HEAD or index holds (a move takes those back with `git restore`;
 * the others are untracked files, removed).
 */
export async function trackedAmong(top: string, paths: readonly string[]): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const specs = paths.map((p) => `:(literal)${p}`);
  const [index, head] = await Promise.all([
    git(top, ['ls-files', '-z', '--cached', '--', ...specs], { optionalLocks: false }),
    git(top, ['ls-tree', '-r', '-z', '--name-only', '--full-tree', 'HEAD', '--', ...paths]).catch(() => ({
      stdout: '',
    })),
  ]);
  const wanted = new Set(paths);
  return new Set([...index.stdout.split('\0'), ...head.stdout.split('\0')].filter((p) => wanted.has(p)));
}

/** Puts `paths` (tracked ones) back as `top`'s HEAD has them, in the index and the work tree. */
export async function restoreToHead(top: string, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  await git(top, ['restore', '--source=HEAD', '--staged', '--worktree', '--', ...paths.map((p) => `:(literal)${p}`)]);
}

/** The newest commit both `a` and `b` reach in the repository of `top`, or null. */
export async function mergeBase(top: string, a: string, b: string): Promise<string | null> {
  const out = await git(top, ['merge-base', '--end-of-options', a, b]).catch(() => null);
  const commit = out?.stdout.trim() ?? '';
  return commit === '' ? null : commit;
}

/** One changed file's lines added and removed since a commit (null for binary files). */
export interface FileStat {
  path: string;
  insertions: number | null;
  deletions: number | null;
}

/** Largest untracked file whose lines are counted. */
const COUNTED_BYTES = 8 * 1024 * 1024;

/**
 * What `top`'s work tree changed since `commit`, file by file (committed or not, and each untracked file
 * git does not ignore, all of its lines added), sorted by path.
 */
export async function statsSince(top: string, commit: string): Promise<FileStat[]> {
  const [numstat, untracked] = await Promise.all([
    git(top, ['diff', '--numstat', '-z', '--no-renames', commit, '--'], { optionalLocks: false }),
    git(top, ['ls-files', '--others', '--exclude-standard', '-z'], { optionalLocks: false }),
  ]);
  const stats: FileStat[] = [];
  for (const record of numstat.stdout.split('\0')) {
    const match = /^(\d+|-)\t(\d+|-)\t(.+)$/s.exec(record);
    if (match === null) continue;
    const [, added = '-', removed = '-', path = ''] = match;
    stats.push({
      path,
      insertions: added === '-' ? null : Number(added),
      deletions: removed === '-' ? null : Number(removed),
    });
  }
  for (const path of untracked.stdout.split('\0')) {
    if (path === '' || path.endsWith('/')) continue;
    const entry = await readWorkspaceEntry(top, path, COUNTED_BYTES).catch(() => null);
    const lines =
      entry?.kind === 'symlink'
        ? 1
        : entry?.kind !== 'file' || entry.bytes.includes(0)
          ? null
          : entry.bytes.length === 0
            ? 0
            : entry.bytes.toString('utf8').split('\n').length - (entry.bytes.at(-1) === 0x0a ? 1 : 0);
    stats.push({ path, insertions: lines, deletions: lines === null ? null : 0 });
  }
  return stats.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
