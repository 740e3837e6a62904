// The package `npm pack` makes of this checkout (what a remote environment gets installed, see
// docs/environments.md): the `weft` command and what it runs (the bundled CLI, its spawn host and worker,
// the page `weft serve` serves), and none of the sources, tests, benchmarks or tooling.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');

interface PackEntry {
  path: string;
}

/** The files `npm pack` would put in the package (no build: dist/ is the one the tests run). */
async function packedFiles(): Promise<string[]> {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [pack] = JSON.parse(stdout) as { files: PackEntry[] }[];
  if (pack === undefined) throw new Error(`npm pack printed no package: ${stdout.slice(0, 500)}`);
  return pack.files.map((f) => f.path);
}

describe('the package npm pack makes', () => {
  it('holds the weft command and what it runs, and no tests, sources or tooling', async () => {
    const files = await packedFiles();
    for (const needed of [
      'package.json',
      'README.md',
      'bin/weft.js',
      'dist/cli/cli.js',
      'dist/cli/weft-exec.cjs',
      'dist/cli/weft-apply-patch.cjs',
      'dist/cli/weft-app-server.cjs',
      'dist/cli/weft-serve.cjs',
      'dist/cli/weft-mcp-server.cjs',
      'dist/cli/weft-acp.cjs',
      'dist/cli/spawn-host.js',
      'dist/cli/index-check-worker.js',
      'dist/renderer/index.html',
    ])
      expect(files, `${needed} (run npm run build first when dist/ is missing)`).toContain(needed);
    expect(files.some((f) => /^dist\/renderer\/assets\/.+\.js$/.test(f))).toBe(true);
    const tops = [...new Set(files.map((f) => (f.includes('/') ? `${f.split('/')[0]}/` : f)))].sort();
    expect(tops).toEqual(['README.md', 'bin/', 'dist/', 'package.json']);
    expect(files.filter((f) => f.startsWith('dist/') && !/^dist\/(cli|renderer)\//.test(f))).toEqual([]);
  });
});
