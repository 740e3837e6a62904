import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temporary WEFT_HOME; `write` puts a config.toml in it. Call `dispose` after the test. */
export async function tempWeftHome(): Promise<{ home: string; file: string; write(text: string): Promise<void>; dispose(): Promise<void> }> {
  const home = await mkdtemp(join(tmpdir(), 'weft-config-'));
  const file = join(home, 'config.toml');
  return {
    home,
    file,
    write: (text) => writeFile(file, text),
    dispose: () => rm(home, { recursive: true, force: true }),
  };
}
