// Bundles the desktop app's main process and preload with esbuild:
//   src-main/electron/bootstrap.ts → dist/electron/main.js ESM (Electron ≥ 28 runs an ESM main): turns on
//                                                          V8's code cache, then imports app.js.
//   src-main/electron/entry.ts → dist/electron/app.js      the main process itself; native addons and
//                                                          `electron` stay external.
//   src-main/store/index-check-worker.ts → dist/electron/index-check-worker.js  a worker thread of app.js.
//   src-preload/index.ts       → dist/electron/preload.cjs CJS: a sandboxed preload is a classic script
//                                                          whose require() knows only `electron` and a few
//                                                          polyfills, so everything else is bundled in.
// The build fails if the preload would require anything but `electron`.
import { build } from 'esbuild';
import { mkdirSync, rmSync } from 'node:fs';

const outdir = new URL('../dist/electron/', import.meta.url);
for (const name of [
  'main.js',
  'main.js.map',
  'app.js',
  'app.js.map',
  'spawn-host.js',
  'spawn-host.js.map',
  'index-check-worker.js',
  'index-check-worker.js.map',
  'preload.cjs',
  'preload.cjs.map',
])
  rmSync(new URL(name, outdir), { force: true });
mkdirSync(outdir, { recursive: true });

const electronMajor = 45;
// Electron 45 ships Chromium 140 and Node 22.
const chromeTarget = 'chrome140';
const nodeTarget = 'node22';

await build({
  // The spawn host (src-main/util/spawn-host/host-main.ts) runs beside main.js, as its own process.
  entryPoints: {
    main: 'src-main/electron/bootstrap.ts',
    app: 'src-main/electron/entry.ts',
    'spawn-host': 'src-main/util/spawn-host/host-main.ts',
    // The start-up index check's worker thread, found beside app.js (src-main/util/worker-thread.ts).
    'index-check-worker': 'src-main/store/index-check-worker.ts',
  },
  outdir: 'dist/electron',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: nodeTarget,
  sourcemap: 'linked',
  external: ['electron', 'node-pty', 'better-sqlite3', 'playwright-core'],
  banner: {
    js: "import { createRequire as __weftCreateRequire } from 'node:module'; const require = __weftCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

const preload = await build({
  entryPoints: ['src-preload/index.ts'],
  outfile: 'dist/electron/preload.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'browser',
  target: chromeTarget,
  sourcemap: 'linked',
  external: ['electron'],
  metafile: true,
  logLevel: 'warning',
});

const preloadImports = new Set(
  Object.values(preload.metafile.outputs).flatMap((output) =>
    output.imports.filter((i) => i.external).map((i) => i.path),
  ),
);
const forbidden = [...preloadImports].filter((path) => path !== 'electron');
if (forbidden.length > 0) {
  console.error(
    `The preload may require only "electron" (it runs sandboxed), but it requires: ${forbidden.join(', ')}.`,
  );
  process.exit(1);
}
console.log(`built dist/electron/main.js and dist/electron/preload.cjs for Electron ${electronMajor}`);
