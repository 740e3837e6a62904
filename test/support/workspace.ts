// Throwaway folders for tests: a workspace with files in it, and a Weft home with a config.toml.
// Both live under the OS temp folder, resolved through symlinks so paths compare equal to what a
// child process reports as its cwd.
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export interface TempWorkspace {
  /** Absolute, symlink-free path of the workspace root. */
  readonly dir: string;
  /** Absolute path of `rel` inside the workspace; throws if `rel` leads outside it. */
  path(rel: string): string;
  /** The UTF-8 text of `rel` inside the workspace. */
  read(rel: string): Promise<string>;
  /** Removes the workspace and everything in it. Safe to call twice. */
  cleanup(): Promise<void>;
}

export interface WeftHome {
  /** Absolute, symlink-free path to use as the Weft home folder. */
  readonly dir: string;
  cleanup(): Promise<void>;
}

/** A fresh workspace holding `files` (relative path → UTF-8 content); parent folders are created. */
export async function makeTempWorkspace(files: Record<string, string> = {}): Promise<TempWorkspace> {
  const dir = await makeTempDir('weft-ws-');
  const path = (rel: string): string => inside(dir, rel);
  for (const [rel, content] of Object.entries(files)) {
    const target = path(rel);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content, 'utf8');
  }
  return {
    dir,
    path,
    read: (rel) => readFile(path(rel), 'utf8'),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A fresh Weft home folder; writes `config` to `config.toml` in it when given. */
export async function makeWeftHome(config?: string): Promise<WeftHome> {
  const dir = await makeTempDir('weft-home-');
  if (config !== undefined) await writeFile(join(dir, 'config.toml'), config, 'utf8');
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

async function makeTempDir(prefix: string): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

function inside(root: string, rel: string): string {
  const target = resolve(root, rel);
  const fromRoot = relative(root, target);
  if (isAbsolute(rel) || fromRoot.split(sep)[0] === '..' || isAbsolute(fromRoot)) {
    throw new Error(`test workspace: "${rel}" is not a relative path inside ${root}`);
  }
  return target;
}
