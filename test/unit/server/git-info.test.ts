// A new thread records its repository's commit, branch and origin (`gitInfo`). Every thread/start pays for
// it in git processes, and a host starting many threads forks for each one: it must take at most two (the
// guard's shared config listing, which already holds the origin, and one rev-parse), with the same answers
// as git's separate commands give.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { gitInfoOf } from '../../../src-main/server/thread-factory';
import { makeGitRepo, type GitRepo } from '../../support/git-repo';
import { makeTempWorkspace, type TempWorkspace } from '../../support/workspace';

const cleanups: (() => Promise<void>)[] = [];
let logFile = '';
const savedPath = process.env['PATH'];

async function repo(files: Record<string, string>, options: { commit?: boolean } = {}): Promise<GitRepo> {
  const made = await makeGitRepo(files, options);
  cleanups.push(() => made.cleanup());
  return made;
}

async function folder(): Promise<TempWorkspace> {
  const made = await makeTempWorkspace({ 'a.txt': 'a\n' });
  cleanups.push(() => made.cleanup());
  return made;
}

/** The git commands the code under test ran since the last call (each is logged by a wrapper on PATH). */
function gitCommands(): string[] {
  const text = readFileSync(logFile, 'utf8');
  writeFileSync(logFile, '');
  return text.split('\n').filter((line) => line !== '');
}

beforeEach(async () => {
  const bin = await folder();
  const wrapper = join(bin.dir, 'wrapper');
  mkdirSync(wrapper);
  logFile = join(bin.dir, 'git.log');
  writeFileSync(logFile, '');
  const real = (savedPath ?? '').split(':').filter((dir) => dir !== '');
  writeFileSync(
    join(wrapper, 'git'),
    `#!/bin/sh\nprintf '%s\\n' "$*" >> '${logFile}'\nPATH='${real.join(':')}' exec git "$@"\n`,
  );
  chmodSync(join(wrapper, 'git'), 0o755);
  process.env['PATH'] = [wrapper, ...real].join(':');
});

afterEach(async () => {
  process.env['PATH'] = savedPath;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

it('gives the commit, branch and origin of a repository with two git processes', async () => {
  const r = await repo({ 'a.txt': 'a\n' });
  await r.git('remote', 'add', 'origin', 'https://example.test/org/project.git');
  gitCommands();
  const sha = (await r.git('rev-parse', 'HEAD')).trim();
  gitCommands();
  expect(await gitInfoOf(r.dir)).toEqual({ sha, branch: 'main', originUrl: 'https://example.test/org/project.git' });
  expect(gitCommands().length).toBeLessThanOrEqual(2);
});

it('takes the origin the last config scope names, as git config --get does', async () => {
  const r = await repo({ 'a.txt': 'a\n' });
  await r.git('config', '--add', 'remote.origin.url', 'https://example.test/first.git');
  await r.git('config', '--add', 'remote.origin.url', 'https://example.test/second.git');
  const expected = (await r.git('config', '--get', 'remote.origin.url')).trim();
  const info = await gitInfoOf(r.dir);
  expect(info?.originUrl).toBe(expected);
});

it('has no origin where none is set, and "HEAD" as the branch of a detached head', async () => {
  const r = await repo({ 'a.txt': 'a\n' });
  await r.git('checkout', '--quiet', '--detach');
  const sha = (await r.git('rev-parse', 'HEAD')).trim();
  expect(await gitInfoOf(r.dir)).toEqual({ sha, branch: 'HEAD', originUrl: null });
});

it('knows a repository with no commit yet: no commit and no branch', async () => {
  const r = await repo({ 'a.txt': 'a\n' }, { commit: false });
  await r.git('remote', 'add', 'origin', 'git@example.test:org/project.git');
  expect(await gitInfoOf(r.dir)).toEqual({ sha: null, branch: null, originUrl: 'git@example.test:org/project.git' });
});

it('is null outside a repository', async () => {
  const plain = await folder();
  expect(await gitInfoOf(plain.dir)).toBeNull();
});
