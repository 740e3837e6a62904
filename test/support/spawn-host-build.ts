// Builds the spawn host (src-main/util/spawn-host/host-main.ts) as the real build does, for tests that
// drive it from source: inside the repository (node_modules/.cache), so that it finds node-pty.
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const ROOT = resolve(__dirname, '../..');

/** Builds it into a folder of its own and returns the script's path and a clean-up. */
export async function buildSpawnHost(
  label: string,
): Promise<{ script: string; dir: string; remove: () => Promise<void> }> {
  const dir = join(ROOT, 'node_modules', '.cache', `weft-${label}-${process.pid}`);
  await mkdir(dir, { recursive: true });
  const script = join(dir, 'spawn-host.js');
  await build({
    entryPoints: [join(ROOT, 'src-main/util/spawn-host/host-main.ts')],
    outfile: script,
    bundle: true,
    platform: 'node',
    format: 'esm',
    external: ['node-pty'],
    logLevel: 'warning',
  });
  return { script, dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
