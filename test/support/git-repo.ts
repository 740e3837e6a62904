// Real git repositories for tests: a temp workspace with `git init`, a committer identity and helpers.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { makeTempWorkspace, type TempWorkspace } from './workspace';

const run = promisify(execFile);

export interface GitRepo extends TempWorkspace {
  git(...args: string[]): Promise<string>;
}

export const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.test',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'author@example.test',
};

/** A repository holding `files`, committed as "initial" on branch `main` (unless `commit` is false). */
export async function makeGitRepo(files: Record<string, string>, options: { commit?: boolean } = {}): Promise<GitRepo> {
  const ws = await makeTempWorkspace(files);
  const git = async (...args: string[]): Promise<string> =>
    (await run('git', args, { cwd: ws.dir, env: { ...process.env, ...GIT_ENV } })).stdout;
  await git('init', '--quiet', '--initial-branch=main');
  await git('config', 'user.name', GIT_ENV.GIT_AUTHOR_NAME);
  await git('config', 'user.email', GIT_ENV.GIT_AUTHOR_EMAIL);
  await git('config', 'commit.gpgsign', 'false');
  if (options.commit !== false) {
    await git('add', '--all');
    await git('commit', '--quiet', '-m', 'initial');
  }
  return { ...ws, git };
}

/** `git …args` in `cwd` with the tests' identity, at once; its output. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_ENV } });
}

/** Makes `cwd` a repository on `main` whose first commit ("initial") holds everything in it. */
export function commitFolder(cwd: string): void {
  git(cwd, 'init', '-q', '--initial-branch=main');
  git(cwd, 'add', '.');
  git(cwd, 'commit', '-qm', 'initial');
}
