// The desktop app's main.js (src-main/electron/bootstrap.ts), bundled as scripts/build-electron.mjs bundles
// it and run by Node as Electron runs an ESM main: V8's code cache is on, in WEFT_HOME/cache/compile, by
// the time the app module (app.js beside it) is compiled, and that module runs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** main.js bundled into a new folder, beside an app.js that prints where the code cache is (Node keeps it in a
 * subfolder per Node version there). */
async function bundledMain(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bootstrap-'));
  dirs.push(dir);
  await build({
    entryPoints: { main: join(import.meta.dirname, '../../../src-main/electron/bootstrap.ts') },
    outdir: dir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    logLevel: 'silent',
  });
  writeFileSync(
    join(dir, 'app.js'),
    "import module from 'node:module';\nimport { dirname } from 'node:path';\nconst dir = module.getCompileCacheDir();\nprocess.stdout.write(JSON.stringify({ app: true, cache: dir === undefined ? null : dirname(dir) }));\n",
  );
  return dir;
}

function run(main: string, env: Record<string, string>): unknown {
  const { NODE_COMPILE_CACHE: _ignored, ...rest } = process.env;
  return JSON.parse(execFileSync(process.execPath, [main], { env: { ...rest, ...env }, encoding: 'utf8' }));
}

describe('the desktop main process bootstrap', () => {
  it('turns the code cache on in WEFT_HOME/cache/compile, then runs the app', async () => {
    const dir = await bundledMain();
    const home = join(dir, 'home');
    expect(run(join(dir, 'main.js'), { WEFT_HOME: home })).toEqual({
      app: true,
      cache: join(home, 'cache', 'compile'),
    });
  });

  it('leaves the folder NODE_COMPILE_CACHE names', async () => {
    const dir = await bundledMain();
    const named = join(dir, 'named-cache');
    expect(run(join(dir, 'main.js'), { WEFT_HOME: join(dir, 'home'), NODE_COMPILE_CACHE: named })).toEqual({
      app: true,
      cache: named,
    });
  });
});
