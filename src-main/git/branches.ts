// Branches: list, switch, create; and push of the current branch with git's progress.
import type { GitBranch, WeftGitBranchesResult, WeftGitPushResult } from '../../src-preload/protocol';
import { GitRequestError } from './changes';
import { git } from '../safety/git/run';
import { gitStatus } from './status';

export async function listBranches(root: string): Promise<WeftGitBranchesResult> {
  const [refs, status] = await Promise.all([
    git(root, [
      'for-each-ref',
      '--format=%(HEAD)%00%(refname:short)%00%(objectname)%00%(upstream:short)%00%(subject)',
      'refs/heads',
    ]),
    gitStatus(root),
  ]);
  const branches: GitBranch[] = [];
  for (const line of refs.stdout.split('\n')) {
    if (line === '') continue;
    const [head = '', name = '', sha = '', upstream = '', subject = ''] = line.split('\0');
    branches.push({ name, current: head === '*', sha, upstream: upstream === '' ? null : upstream, subject });
  }
  branches.sort((a, b) => Number(b.current) - Number(a.current) || (a.name < b.name ? -1 : 1));
  return { current: status.branch, branches, dirty: trackedChanges(status.files).length > 0 };
}

/** Paths with staged or unstaged changes to tracked files (untracked files travel with any switch). */
export function trackedChanges(
  files: readonly { path: string; staged: unknown; unstaged: unknown; untracked: boolean }[],
): string[] {
  return files.filter((f) => !f.untracked && (f.staged !== null || f.unstaged !== null)).map((f) => f.path);
}

export async function checkout(root: string, branch: string, create: boolean): Promise<void> {
  await git(root, create ? ['switch', '--create', branch] : ['switch', branch]);
}

export async function push(
  root: string,
  remoteParam: string | null,
  onLine: (line: string) => void,
): Promise<WeftGitPushResult> {
  const status = await gitStatus(root);
  if (status.branch === null) throw new GitRequestError('HEAD is detached: switch to a branch before pushing');
  if (status.remotes.length === 0)
    throw new GitRequestError('this repository has no remote to push to (add one with `git remote add NAME URL`)');
  const upstreamRemote = status.upstream === null ? null : (status.upstream.split('/')[0] ?? null);
  const remote =
    remoteParam ??
    upstreamRemote ??
    (status.remotes.length === 1
      ? status.remotes[0]
      : status.remotes.includes('origin')
        ? 'origin'
        : status.remotes[0]) ??
    'origin';
  const args = ['push', '--progress', '--porcelain'];
  if (status.upstream === null) args.push('--set-upstream');
  args.push(remote, status.branch);
  // The root repository's own pre-push hook runs (see safety/git/hooks.ts).
  const out = await git(root, args, { onStderrLine: onLine, hooks: 'repository' });
  return { remote, branch: status.branch, output: `${out.stderr}${out.stdout}` };
}
