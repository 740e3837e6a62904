import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, configVersion, loadConfig } from '../../../src-main/config';
import type { LoadedConfig } from '../../../src-main/config';
import { tempTree } from './helpers';
import type { TempTree } from './helpers';

let tree: TempTree;
let home: string;
let userFile: string;
let root: string;
let cwd: string;

beforeEach(async () => {
  tree = await tempTree();
  home = await tree.mkdir('weft-home');
  userFile = join(home, 'config.toml');
  root = await tree.mkdir('proj');
  cwd = await tree.mkdir('proj/sub/deeper');
  await tree.write('proj/.git/HEAD', 'ref: refs/heads/main\n');
});

afterEach(async () => {
  await tree.dispose();
});

const load = (overrides: string[] = [], at = cwd): Promise<LoadedConfig> =>
  loadConfig({ weftHome: home, cwd: at, overrides, env: {} });

async function loadError(overrides: string[] = []): Promise<ConfigError> {
  const error: unknown = await load(overrides).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error;
}

const sha = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** A trust record for the project at `path`, accepting `files` (path from the root → contents) as they are. */
const trust = (level: string, path = root, files: Record<string, string> = {}): string =>
  `[projects."${path}"]\ntrust_level = "${level}"\ntrusted_files = { ${Object.entries(files)
    .map(([rel, text]) => `"${rel}" = "${sha(text)}"`)
    .join(', ')} }\n`;

const ROOT_TEXT =
  'model = "root"\napproval_policy = "untrusted"\nmodel_reasoning_effort = "low"\ndeveloper_instructions = "root"\n[sandbox_workspace_write]\nnetwork_access = true\n';
const SUB_TEXT = 'model = "sub"\napproval_policy = "on-request"\nmodel_reasoning_effort = "high"\n';

/** Each key is set by every layer up to the one that should win. */
async function writeMatrix(trustLevel: string | null): Promise<{ rootFile: string; subFile: string }> {
  await tree.write(
    'weft-home/config.toml',
    [
      'model = "user"',
      'approval_policy = "never"',
      'model_reasoning_effort = "minimal"',
      'developer_instructions = "user"',
      'instructions = "user"',
      'profile = "fast"',
      '',
      '[sandbox_workspace_write]',
      'writable_roots = ["/user"]',
      '',
      '[profiles.fast]',
      'model = "profile"',
      'approval_policy = "on-failure"',
      '',
      trustLevel === null
        ? ''
        : trust(trustLevel, root, { '.weft/config.toml': ROOT_TEXT, 'sub/.weft/config.toml': SUB_TEXT }),
    ].join('\n'),
  );
  // Above the project root: never read.
  await tree.write('.weft/config.toml', 'instructions = "above the root"\n');
  const rootFile = await tree.write('proj/.weft/config.toml', ROOT_TEXT);
  const subFile = await tree.write('proj/sub/.weft/config.toml', SUB_TEXT);
  return { rootFile, subFile };
}

describe('layer precedence', () => {
  it('defaults < user < project root < project subdir < profile < -c override, for a trusted project', async () => {
    const { rootFile, subFile } = await writeMatrix('trusted');
    const loaded = await load(['model=override']);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.config).toMatchObject({
      model: 'override',
      approval_policy: 'on-failure',
      model_reasoning_effort: 'high',
      developer_instructions: 'root',
      instructions: 'user',
      model_reasoning_summary: 'auto',
      sandbox_workspace_write: { writable_roots: ['/user'], network_access: true },
    });
    const rootText = ROOT_TEXT;
    expect(loaded.layers).toEqual([
      { source: 'default', file: null },
      { source: 'user', file: userFile, version: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) },
      { source: 'project', file: rootFile, version: configVersion(rootText) },
      { source: 'project', file: subFile, version: expect.stringMatching(/^sha256:/) },
      { source: 'profile', file: null, profile: 'fast' },
      { source: 'override', file: null },
    ]);
    expect(loaded.projectTrust).toMatchObject({ root, trusted: true, skippedFiles: [] });
    expect(loaded.projectTrust.files.map((f) => [f.path, f.relativePath, f.sha256, f.status])).toEqual([
      [rootFile, '.weft/config.toml', sha(ROOT_TEXT), 'applied'],
      [subFile, 'sub/.weft/config.toml', sha(SUB_TEXT), 'applied'],
    ]);
    expect(Object.fromEntries(loaded.origins)).toMatchObject({
      model: '-c model',
      approval_policy: 'profile fast',
      model_reasoning_effort: subFile,
      developer_instructions: rootFile,
      instructions: userFile,
      model_reasoning_summary: 'default',
      'sandbox_workspace_write.writable_roots': userFile,
      'sandbox_workspace_write.network_access': rootFile,
      profile: userFile,
    });
    expect(Object.fromEntries(loaded.originPlaces)).toMatchObject({
      model: '-c model',
      approval_policy: 'profile fast',
      model_reasoning_effort: `${subFile}:3`,
      developer_instructions: `${rootFile}:4`,
      instructions: `${userFile}:5`,
      model_reasoning_summary: 'default',
      'sandbox_workspace_write.network_access': `${rootFile}:6`,
      'profiles.fast.model': `${userFile}:12`,
    });
  });

  it('skips the project files of an untrusted project and says so', async () => {
    const { rootFile, subFile } = await writeMatrix('untrusted');
    const loaded = await load();
    expect(loaded.config).toMatchObject({
      model: 'profile',
      approval_policy: 'on-failure',
      model_reasoning_effort: 'minimal',
      developer_instructions: 'user',
    });
    expect(loaded.config.sandbox_workspace_write).toEqual({ writable_roots: ['/user'] });
    expect(loaded.layers.map((layer) => layer.source)).toEqual(['default', 'user', 'profile']);
    expect(loaded.projectTrust).toMatchObject({ root, trusted: false, skippedFiles: [rootFile, subFile] });
    expect(loaded.projectTrust.files.map((f) => f.status)).toEqual(['ignored', 'ignored']);
  });

  it('skips them when trust was never decided, reporting a broken one without failing', async () => {
    const { rootFile, subFile } = await writeMatrix(null);
    await tree.write('proj/sub/.weft/config.toml', 'model = = "broken"\n');
    const loaded = await load();
    expect(loaded.config.model).toBe('profile');
    expect(loaded.projectTrust).toMatchObject({ root, trusted: null, skippedFiles: [rootFile, subFile] });
    expect(loaded.projectTrust.files.map((f) => [f.status, f.error])).toEqual([
      ['new', null],
      ['new', `${subFile}:1:9: TOML syntax error: invalid value`],
    ]);
  });

  it('reports a bad value in a trusted project file at its position', async () => {
    const subFile = await tree.write('proj/sub/.weft/config.toml', '\nsandbox_mode = "full"\n');
    await tree.write(
      'weft-home/config.toml',
      trust('trusted', root, { 'sub/.weft/config.toml': '\nsandbox_mode = "full"\n' }),
    );
    const error = await loadError();
    expect(error.message).toBe(
      `${subFile}:2:1: \`sandbox_mode\` must be one of read-only, workspace-write, danger-full-access (got "full")`,
    );
  });

  it('finds trust through a symlinked or differently written project path', async () => {
    await tree.write('proj/.weft/config.toml', 'model = "root"\n');
    const files = { '.weft/config.toml': 'model = "root"\n' };
    await tree.write('weft-home/config.toml', trust('trusted', `${root}/sub/..`, files));
    expect((await load()).config.model).toBe('root');
    const link = join(tree.dir, 'link');
    await symlink(root, link);
    await tree.write('weft-home/config.toml', trust('trusted', link, files));
    expect((await load()).config.model).toBe('root');
    // Loading through the link finds the same (realpath'd) project.
    expect((await load([], join(link, 'sub'))).projectTrust).toMatchObject({ root, trusted: true, skippedFiles: [] });
  });

  it('counts a .git file (a worktree) as the root marker', async () => {
    const worktree = await tree.mkdir('proj/worktree');
    await tree.write('proj/worktree/.git', 'gitdir: ../.git/worktrees/w\n');
    const inner = await tree.mkdir('proj/worktree/src');
    await tree.write(
      'weft-home/config.toml',
      trust('trusted', worktree, { '.weft/config.toml': 'instructions = "worktree"\n' }),
    );
    await tree.write('proj/.weft/config.toml', 'model = "outer project"\n');
    const file = await tree.write('proj/worktree/.weft/config.toml', 'instructions = "worktree"\n');
    const loaded = await load([], inner);
    expect(loaded.projectTrust).toMatchObject({ root: worktree, trusted: true, skippedFiles: [] });
    expect(loaded.config.model).toBe('gpt-5.1-codex');
    expect(loaded.origins.get('instructions')).toBe(file);
  });

  it('uses project_root_markers from the user config and -c, and the cwd when no marker is found', async () => {
    await tree.write('proj/sub/weft.root', '');
    await tree.write('weft-home/config.toml', 'project_root_markers = ["weft.root"]\n');
    expect((await load()).projectTrust.root).toBe(join(root, 'sub'));
    expect((await load(['project_root_markers=[".git"]'])).projectTrust.root).toBe(root);
    expect((await load(['project_root_markers=["no-such-marker"]'])).projectTrust.root).toBe(cwd);
    expect((await load(['project_root_markers=[]'])).projectTrust.root).toBe(cwd);
  });

  it('ignores project_root_markers and projects set by a project file, with warnings', async () => {
    const text = `model = "root"\nproject_root_markers = ["sub"]\n[projects."${join(root, 'sub')}"]\ntrust_level = "trusted"\n`;
    await tree.write('weft-home/config.toml', trust('trusted', root, { '.weft/config.toml': text }));
    const rootFile = await tree.write('proj/.weft/config.toml', text);
    const loaded = await load();
    expect(loaded.projectTrust.root).toBe(root);
    expect(loaded.config.model).toBe('root');
    expect(loaded.config.project_root_markers).toBeUndefined();
    expect(loaded.config.projects).toEqual({
      [root]: { trust_level: 'trusted', trusted_files: { '.weft/config.toml': sha(text) } },
    });
    expect(loaded.warnings).toEqual([
      `${rootFile}:2: \`project_root_markers\` is ignored in a project's config (it decides where the project starts); set it in ${userFile}`,
      `${rootFile}:3: \`projects\` is ignored in a project's config: a project cannot change trust; trust it in ${userFile} or with \`weft config trust\``,
    ]);
  });

  it('does not take WEFT_HOME for a project config folder', async () => {
    const userHome = await tree.mkdir('me');
    await tree.write('me/.git/HEAD', 'ref: refs/heads/main\n');
    const weftHome = await tree.mkdir('me/.weft');
    await tree.write('me/.weft/config.toml', `model = "user"\n${trust('trusted', userHome)}`);
    const loaded = await loadConfig({ weftHome, cwd: userHome, env: {} });
    expect(loaded.layers.map((layer) => layer.source)).toEqual(['default', 'user']);
    expect(loaded.projectTrust).toEqual({
      root: userHome,
      trusted: true,
      skippedFiles: [],
      files: [],
      trustedConfigDirs: [],
    });
  });
});

describe('profiles', () => {
  it('applies the profile named by the highest layer, merging its table across files', async () => {
    await tree.write(
      'weft-home/config.toml',
      `profile = "fast"\nmodel = "top"\n[profiles.fast]\nmodel = "fast-model"\nweb_search = "cached"\n[profiles.slow]\nmodel = "slow-model"\n${trust(
        'trusted',
        root,
        {
          '.weft/config.toml': '[profiles.fast]\nweb_search = "live"\n',
          'sub/.weft/config.toml': 'profile = "slow"\n',
        },
      )}`,
    );
    await tree.write('proj/.weft/config.toml', '[profiles.fast]\nweb_search = "live"\n');
    const loaded = await load();
    expect(loaded.config).toMatchObject({ profile: 'fast', model: 'fast-model', web_search: 'live' });
    expect(loaded.origins.get('web_search')).toBe('profile fast');

    await tree.write('proj/sub/.weft/config.toml', 'profile = "slow"\n');
    expect((await load()).config).toMatchObject({ profile: 'slow', model: 'slow-model', web_search: 'disabled' });
    expect((await load(['profile=fast', 'model=flag'])).config).toMatchObject({
      profile: 'fast',
      model: 'flag',
      web_search: 'live',
    });
  });

  it('rejects an unknown profile, naming the known ones', async () => {
    await tree.write(
      'weft-home/config.toml',
      'model = "m"\nprofile = "fsat"\n[profiles.fast]\nmodel = "x"\n[profiles.slow]\n',
    );
    const error = await loadError();
    expect(error.message).toBe(
      `${userFile}:2:1: profile "fsat" is not defined; defined profiles: fast, slow (did you mean "fast"?)`,
    );
    expect([error.file, error.line, error.column]).toEqual([userFile, 2, 1]);
    expect((await loadError(['profile=nope'])).message).toBe(
      '-c profile: profile "nope" is not defined; defined profiles: fast, slow',
    );
  });

  it('says how to define a profile when there are none', async () => {
    expect((await loadError(['profile=work'])).message).toBe(
      `-c profile: profile "work" is not defined; no profiles are defined: add a [profiles.work] table to ${userFile}, or remove \`profile\``,
    );
  });
});
