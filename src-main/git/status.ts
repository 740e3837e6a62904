// `git status` as the Changes panel needs it: one `git status --porcelain=v2 -z --branch` call, parsed.
import type { GitChangeKind, GitFileStatus, GitHooks, WeftGitStatusResult } from '../../src-preload/protocol';
import type { ConfigEntry } from '../safety/git/config-guard';
import { COMMIT_HOOKS, planHooks, presentHooks, PUSH_HOOKS } from '../safety/git/hooks';
import { git, gitConfigEntries, GitCommandError } from '../safety/git/run';

function kindOf(code: string): GitChangeKind | null {
  switch (code) {
    case 'A':
      return 'added';
    case 'M':
      return 'modified';
    case 'D':
      return 'deleted';
    case 'R':
      return 'renamed';
    case 'C':
      return 'copied';
    case 'T':
      return 'typeChanged';
    case 'U':
      return 'unmerged';
    default:
      return null;
  }
}

interface BranchInfo {
  branch: string | null;
  headSha: string | null;
  upstream: string | null;
  ahead: number;
  behind: number;
}

/** Parses `git status --porcelain=v2 -z --branch` output. */
export function parseStatus(output: string): { info: BranchInfo; files: GitFileStatus[] } {
  const info: BranchInfo = { branch: null, headSha: null, upstream: null, ahead: 0, behind: 0 };
  const files: GitFileStatus[] = [];
  const records = output.split('\0');
  for (let i = 0; i < records.length; i++) {
    const record = records[i] ?? '';
    if (record === '') continue;
    if (record.startsWith('# ')) {
      const [, key, ...rest] = record.split(' ');
      const value = rest.join(' ');
      if (key === 'branch.oid') info.headSha = value === '(initial)' ? null : value;
      else if (key === 'branch.head') info.branch = value === '(detached)' ? null : value;
      else if (key === 'branch.upstream') info.upstream = value;
      else if (key === 'branch.ab') {
        const m = /^\+(\d+) -(\d+)$/.exec(value);
        if (m) {
          info.ahead = Number(m[1]);
          info.behind = Number(m[2]);
        }
      }
      continue;
    }
    const type = record[0];
    if (type === '?') {
      files.push({ path: record.slice(2), origPath: null, staged: null, unstaged: null, untracked: true });
    } else if (type === '1' || type === 'u') {
      // "1 XY sub mH mI mW hH hI path" / "u XY sub m1 m2 m3 mW h1 h2 h3 path": the path is the rest after a fixed count of fields.
      const fields = type === '1' ? 8 : 10;
      const parts = record.split(' ');
      const xy = parts[1] ?? '..';
      const path = parts.slice(fields).join(' ');
      if (type === 'u')
        files.push({ path, origPath: null, staged: 'unmerged', unstaged: 'unmerged', untracked: false });
      else
        files.push({
          path,
          origPath: null,
          staged: kindOf(xy[0] ?? '.'),
          unstaged: kindOf(xy[1] ?? '.'),
          untracked: false,
        });
    } else if (type === '2') {
      // "2 XY sub mH mI mW hH hI Xscore path" then the original path as the next record.
      const parts = record.split(' ');
      const xy = parts[1] ?? '..';
      const path = parts.slice(9).join(' ');
      const origPath = records[i + 1] ?? null;
      i++;
      files.push({ path, origPath, staged: kindOf(xy[0] ?? '.'), unstaged: kindOf(xy[1] ?? '.'), untracked: false });
    }
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { info, files };
}

/**
 * The repository root holding `cwd` and its common git directory, or null when there is none (or git is
 * missing: `reason` says).
 */
export async function repoDirs(
  cwd: string,
): Promise<{ root: string; commonDir: string; reason: null } | { root: null; commonDir: null; reason: string }> {
  try {
    const { stdout } = await git(cwd, ['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir']);
    const [root = '', commonDir = ''] = stdout.split('\n');
    return { root, commonDir, reason: null };
  } catch (error) {
    if (error instanceof GitCommandError && error.exitCode === null)
      return { root: null, commonDir: null, reason: error.stderr };
    return { root: null, commonDir: null, reason: `${cwd} is not in a git repository` };
  }
}

/** The repository root holding `cwd`, or null when there is none (or git is missing: `reason` says). */
export async function repoRoot(cwd: string): Promise<{ root: string | null; reason: string | null }> {
  const { root, reason } = await repoDirs(cwd);
  return { root, reason };
}

const NO_HOOKS: GitHooks = { directory: null, commit: [], push: [], ignored: null };

/** The hooks commit and push would run in the repository (see safety/git/hooks.ts). */
async function hooksOf(entries: readonly ConfigEntry[], root: string, commonDir: string): Promise<GitHooks> {
  const plan = await planHooks(entries, root, commonDir);
  const [commit, push] = await Promise.all([
    presentHooks(plan.directory, COMMIT_HOOKS),
    presentHooks(plan.directory, PUSH_HOOKS),
  ]);
  return { directory: plan.directory, commit, push, ignored: plan.ignored };
}

/**
 * The Changes panel's status: `git status --porcelain=v2 -z` once for the whole repository (its paths
 * are relative to the root from any folder), with `rev-parse` and `remote` run beside it rather than
 * before it, so the answer waits for one git process, not two in a row.
 */
export async function gitStatus(cwd: string): Promise<WeftGitStatusResult> {
  const settle = <T>(promise: Promise<T>) =>
    promise.then(
      (value) => ({ value, error: null }),
      (error: unknown) => ({ value: null, error }),
    );
  const [dirs, status, remotes, config] = await Promise.all([
    repoDirs(cwd),
    settle(git(cwd, ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all'])),
    settle(git(cwd, ['remote'])),
    settle(gitConfigEntries(cwd)),
  ]);
  const { root, reason } = dirs;
  if (root === null) {
    return {
      enabled: false,
      reason,
      root: null,
      branch: null,
      headSha: null,
      upstream: null,
      ahead: 0,
      behind: 0,
      remotes: [],
      files: [],
      hooks: NO_HOOKS,
    };
  }
  if (status.value === null) throw status.error;
  if (remotes.value === null) throw remotes.error;
  const { info, files } = parseStatus(status.value.stdout);
  if (config.value === null) throw config.error;
  const hooks = await hooksOf(config.value, root, dirs.commonDir);
  return {
    enabled: true,
    reason: null,
    root,
    ...info,
    remotes: remotes.value.stdout
      .split('\n')
      .map((r) => r.trim())
      .filter((r) => r !== ''),
    files,
    hooks,
  };
}
