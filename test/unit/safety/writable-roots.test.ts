import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isPathWritable, resolveForWrite, writableRootsFor } from '../../../src-main/safety/sandbox/writable-roots';
import type { WorkspaceWriteSandboxPolicy } from '../../../src-preload/protocol';

let base: string;
let ws: string;
let outside: string;
const noTmp: WorkspaceWriteSandboxPolicy = { type: 'workspaceWrite', excludeSlashTmp: true, excludeTmpdirEnvVar: true };
const env = { HOME: '/nonexistent-home' };

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'weft-roots-')));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  await mkdir(join(ws, '.git', 'hooks'), { recursive: true });
  await mkdir(join(ws, '.agents'), { recursive: true });
  await mkdir(outside);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('writableRootsFor', () => {
  it('read-only has no roots; full access has /', () => {
    expect(writableRootsFor({ type: 'readOnly' }, ws, env)).toEqual([]);
    expect(writableRootsFor({ type: 'dangerFullAccess' }, ws, env)).toEqual([{ root: '/', readOnlySubpaths: [] }]);
  });

  it('workspace-write: cwd with .git, .agents and (even missing) .weft protected', () => {
    expect(writableRootsFor(noTmp, ws, env)).toEqual([
      { root: ws, readOnlySubpaths: [join(ws, '.agents'), join(ws, '.git'), join(ws, '.weft')] },
    ]);
  });

  it('protects the extra paths it is given that exist (a nested trusted .weft, also through a link)', async () => {
    const nested = join(ws, 'pkg', '.weft');
    await mkdir(nested, { recursive: true });
    await mkdir(join(ws, 'lib'));
    await symlink(join(ws, 'pkg'), join(ws, 'pkg-link'));
    const extra = [nested, join(ws, 'pkg-link', '.weft'), join(ws, 'lib', '.weft'), join(outside, '.weft')];
    expect(writableRootsFor(noTmp, ws, env, extra)).toEqual([
      {
        root: ws,
        readOnlySubpaths: [
          join(ws, '.agents'),
          join(ws, '.git'),
          join(ws, '.weft'),
          join(ws, 'pkg-link', '.weft'),
          nested,
        ],
      },
    ]);
    const roots = writableRootsFor(noTmp, ws, env, extra);
    expect(isPathWritable(join(nested, 'config.toml'), roots)).toBe(false);
    expect(isPathWritable(join(ws, 'pkg', 'index.js'), roots)).toBe(true);
    // A missing one is not protected (nor given a placeholder): a file created there is held back by the trust check.
    expect(isPathWritable(join(ws, 'lib', '.weft', 'config.toml'), roots)).toBe(true);
  });

  it('adds configured roots (relative to cwd, missing ones left out), /tmp and $TMPDIR unless excluded', async () => {
    const extra = join(base, 'extra');
    const tmpdirEnv = join(base, 'tmpdir');
    await mkdir(extra);
    await mkdir(tmpdirEnv);
    const roots = writableRootsFor({ type: 'workspaceWrite', writableRoots: ['../extra', join(base, 'missing')] }, ws, {
      ...env,
      TMPDIR: tmpdirEnv,
    }).map((r) => r.root);
    expect(roots).toEqual([ws, extra, await realpath('/tmp'), tmpdirEnv]);
    const excluded = writableRootsFor({ ...noTmp, writableRoots: [extra] }, ws, { ...env, TMPDIR: tmpdirEnv }).map(
      (r) => r.root,
    );
    expect(excluded).toEqual([ws, extra]);
  });

  it('protects the folder a .git pointer file names, and a protected path in a nested root', async () => {
    const wt = join(base, 'worktree');
    await mkdir(wt);
    const gitdir = join(ws, '.git', 'worktrees', 'wt');
    await mkdir(gitdir, { recursive: true });
    await writeFile(join(wt, '.git'), `gitdir: ${gitdir}\n`);
    const roots = writableRootsFor({ ...noTmp, writableRoots: [wt] }, ws, env);
    const wtRoot = roots.find((r) => r.root === wt);
    expect(wtRoot?.readOnlySubpaths).toEqual([join(wt, '.agents'), join(wt, '.git'), join(wt, '.weft')]);
    expect(roots.find((r) => r.root === ws)?.readOnlySubpaths).toContain(join(ws, '.git'));
    expect(isPathWritable(join(gitdir, 'HEAD'), roots)).toBe(false);
  });

  it('protects the Weft home when it lies inside a root', async () => {
    const weftHome = join(ws, 'home', '.weft');
    await mkdir(weftHome, { recursive: true });
    const roots = writableRootsFor(noTmp, ws, { ...env, WEFT_HOME: weftHome });
    expect(isPathWritable(join(weftHome, 'rules', 'default.toml'), roots)).toBe(false);
    expect(isPathWritable(join(ws, 'home', 'other.txt'), roots)).toBe(true);
  });
});

describe('isPathWritable', () => {
  it('allows the workspace, refuses outside and protected paths', () => {
    const roots = writableRootsFor(noTmp, ws, env);
    expect(isPathWritable(join(ws, 'src', 'new', 'file.ts'), roots)).toBe(true);
    expect(isPathWritable(ws, roots)).toBe(true);
    expect(isPathWritable(join(outside, 'x'), roots)).toBe(false);
    expect(isPathWritable(join(ws, '..', 'outside', 'x'), roots)).toBe(false);
    expect(isPathWritable(join(ws, '.git', 'hooks', 'pre-commit'), roots)).toBe(false);
    expect(isPathWritable(join(ws, '.git'), roots)).toBe(false);
    expect(isPathWritable(join(ws, '.agents', 'x.md'), roots)).toBe(false);
    expect(isPathWritable(join(ws, '.weft', 'config.toml'), roots)).toBe(false);
    expect(isPathWritable(join(ws, '.github', 'x'), roots)).toBe(true);
    expect(isPathWritable(join(`${ws}-sibling`, 'x'), roots)).toBe(false);
  });

  it('a symlink inside the workspace pointing outside is outside (existing, dangling, as a parent)', async () => {
    await symlink(outside, join(ws, 'link-dir'));
    await symlink(join(outside, 'not-yet'), join(ws, 'dangling'));
    await symlink(join(ws, 'loop-b'), join(ws, 'loop-a'));
    await symlink(join(ws, 'loop-a'), join(ws, 'loop-b'));
    await symlink(join(ws, 'src'), join(ws, 'inner-link'));
    const roots = writableRootsFor(noTmp, ws, env);
    expect(isPathWritable(join(ws, 'link-dir', 'x'), roots)).toBe(false);
    expect(isPathWritable(join(ws, 'link-dir', 'deep', 'x'), roots)).toBe(false);
    expect(isPathWritable(join(ws, 'dangling'), roots)).toBe(false);
    expect(isPathWritable(join(ws, 'loop-a'), roots)).toBe(false);
    expect(isPathWritable(join(ws, 'inner-link', 'x'), roots)).toBe(true);
    expect(resolveForWrite(join(ws, 'dangling'))).toBe(join(outside, 'not-yet'));
  });

  it('a symlink pointing into .git is protected', async () => {
    await symlink(join(ws, '.git', 'hooks'), join(ws, 'hooks'));
    const roots = writableRootsFor(noTmp, ws, env);
    expect(isPathWritable(join(ws, 'hooks', 'pre-commit'), roots)).toBe(false);
  });

  it('a workspace reached through a symlink is still the workspace', async () => {
    await symlink(ws, join(base, 'ws-link'));
    const roots = writableRootsFor(noTmp, join(base, 'ws-link'), env);
    expect(roots.map((r) => r.root)).toEqual([ws]);
    expect(isPathWritable(join(base, 'ws-link', 'a.txt'), roots)).toBe(true);
    expect(isPathWritable(join(base, 'ws-link', '.git', 'config'), roots)).toBe(false);
  });
});
