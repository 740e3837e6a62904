import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A temporary WEFT_HOME; `write` puts a config.toml in it. Call `dispose` after the test. */
export async function tempWeftHome(): Promise<{
  home: string;
  file: string;
  write(text: string): Promise<void>;
  dispose(): Promise<void>;
}> {
  const home = await mkdtemp(join(tmpdir(), 'weft-config-'));
  const file = join(home, 'config.toml');
  return {
    home,
    file,
    write: (text) => writeFile(file, text),
    dispose: () => rm(home, { recursive: true, force: true }),
  };
}

/** A temporary folder (realpath'd) to lay out a WEFT_HOME and projects in. */
export interface TempTree {
  dir: string;
  /** Writes `text` to `dir/rel` (folders created); returns the absolute path. */
  write(rel: string, text: string): Promise<string>;
  /** Creates the folder `dir/rel`; returns the absolute path. */
  mkdir(rel: string): Promise<string>;
  dispose(): Promise<void>;
}

export async function tempTree(): Promise<TempTree> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'weft-config-tree-')));
  return {
    dir,
    async write(rel, text) {
      const path = join(dir, rel);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
      return path;
    },
    async mkdir(rel) {
      const path = join(dir, rel);
      await mkdir(path, { recursive: true });
      return path;
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
