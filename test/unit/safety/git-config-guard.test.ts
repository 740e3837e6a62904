// Which overrides a git call gets for what a repository's own config names, from a real listing.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  configEnv,
  parseConfigList,
  repositoryOverrides,
  subcommandOverrides,
} from '../../../src-main/safety/git/config-guard';
import { planHooks } from '../../../src-main/safety/git/hooks';

const run = promisify(execFile);
let dir: string | undefined;

afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A repository whose local config is `local` (and work-tree `files`), listed with a global config `global`. */
async function listing(local: string, global: string, files: Record<string, string> = {}) {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'weft-guard-')));
  const env = { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: join(dir, 'global') };
  await writeFile(join(dir, 'global'), global);
  await run('git', ['init', '--quiet', 'repo'], { cwd: dir, env });
  const repo = join(dir, 'repo');
  await writeFile(join(repo, '.git/config'), `${await readFile(join(repo, '.git/config'), 'utf8')}${local}`);
  for (const [name, text] of Object.entries(files)) await writeFile(join(repo, name), text);
  const { stdout } = await run('git', ['config', '--list', '--show-scope', '-z'], { cwd: repo, env });
  return { entries: parseConfigList(stdout), repo };
}

describe('repositoryOverrides', () => {
  it("keeps the user's own values, neutralises the repository's, and ignores keys that name no program", async () => {
    const { entries } = await listing(
      [
        '[filter "lfs"]',
        '\tclean = evil-clean',
        '\tprocess = evil-process',
        '\trequired = true',
        '[filter "a=b"]',
        '\tsmudge = evil-smudge',
        '[diff "x"]',
        '\ttextconv = evil-textconv',
        '[core]',
        '\tsshCommand = evil-ssh',
        '\tfsmonitor = evil-fsmonitor',
        '[credential]',
        '\thelper = evil-helper',
        '[credential "https://example.test"]',
        '\thelper = evil-url-helper',
        '[gpg "ssh"]',
        '\tprogram = evil-keygen',
        '[user]',
        '\tname = Someone',
        '[include]',
        '\tpath = ../included',
        '',
      ].join('\n'),
      '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tprocess = git-lfs filter-process\n[credential]\n\thelper = store\n\thelper = cache\n',
      // A file of the work tree that the repository's config includes: its scope is the includer's.
      { included: '[diff]\n\texternal = evil-external\n' },
    );
    expect(repositoryOverrides(entries, {})).toEqual([
      ['filter.lfs.clean', 'git-lfs clean -- %f'],
      ['filter.lfs.process', 'git-lfs filter-process'],
      ['filter.lfs.required', 'false'],
      ['filter.a=b.smudge', ''],
      ['diff.x.textconv', ''],
      ['core.sshcommand', 'ssh'],
      ['credential.helper', ''],
      ['credential.helper', 'store'],
      ['credential.helper', 'cache'],
      ['credential.https://example.test.helper', ''],
      ['gpg.ssh.program', 'ssh-keygen'],
      ['diff.external', ''],
    ]);
  });

  it('passes the overrides after the ones the environment already has, key and value apart', () => {
    expect(
      configEnv(
        [
          ['filter.a=b.clean', ''],
          ['core.fsmonitor', 'false'],
        ],
        { GIT_CONFIG_COUNT: '1' },
      ),
    ).toEqual({
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_1: 'filter.a=b.clean',
      GIT_CONFIG_VALUE_1: '',
      GIT_CONFIG_KEY_2: 'core.fsmonitor',
      GIT_CONFIG_VALUE_2: 'false',
    });
  });

  it('tells a push which receive-pack to run when the repository names one (git keeps the first it reads)', async () => {
    const { entries } = await listing('[remote "origin"]\n\turl = /x\n\treceivepack = evil\n', '');
    expect(subcommandOverrides('push', entries)).toEqual(['--receive-pack=git-receive-pack']);
    expect(subcommandOverrides('status', entries)).toEqual([]);
  });
});

describe('planHooks', () => {
  it("uses the git directory's hooks, not a core.hooksPath the repository sets", async () => {
    const { entries, repo } = await listing('[core]\n\thooksPath = .husky/_\n', '');
    expect(await planHooks(entries, repo, join(repo, '.git'))).toEqual({
      directory: join(repo, '.git/hooks'),
      ignored:
        "this repository's own config sets core.hooksPath to .husky/_; Weft does not run hooks from a path the repository chose.",
    });
  });

  it("uses the user's own core.hooksPath, unless it lies in the work tree", async () => {
    const outside = await listing('', '[core]\n\thooksPath = /opt/hooks\n');
    expect(await planHooks(outside.entries, outside.repo, join(outside.repo, '.git'))).toEqual({
      directory: '/opt/hooks',
      ignored: null,
    });
    await rm(dir ?? '', { recursive: true, force: true });
    const inside = await listing('', '[core]\n\thooksPath = .githooks\n');
    expect(await planHooks(inside.entries, inside.repo, join(inside.repo, '.git'))).toEqual({
      directory: null,
      ignored:
        'your core.hooksPath .githooks is inside the work tree, which the agent can write; its hooks do not run.',
    });
  });

  it('runs no hooks from a git directory inside the work tree', async () => {
    const { entries, repo } = await listing('', '');
    expect(await planHooks(entries, repo, join(repo, 'vendor/g'))).toEqual({
      directory: null,
      ignored: `the git directory ${join(repo, 'vendor/g')} is inside the work tree, which the agent can write; its hooks do not run.`,
    });
  });
});
