// Bundles the `weft` command (src-main/cli.ts) into dist/ with esbuild.
// Code splitting keeps each sub-command's imports in its own chunk, so `weft apply-patch` never loads
// the model client and `weft exec` never loads the server. Native addons stay external.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * zod re-exports every locale's messages (about 330 KB) through `z.locales` and `z.core.locales`; Weft
 * only uses English, which zod installs by default. Replacing the locale index with English alone (for
 * both importers, classic and core) trims start-up.
 */
const englishOnlyZodLocales = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]zod[\\/]v4[\\/](classic|core|mini)[\\/]/.test(args.importer)) return undefined;
      return { path: join(dirname(args.importer), '../locales/index.js'), namespace: 'zod-locales' };
    });
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), 'en.js'))};`,
      resolveDir: dirname(args.path),
    }));
  },
};

rmSync(new URL('../dist/cli', import.meta.url), { recursive: true, force: true });
/**
 * What the builds share: ES modules for Node (unless a build says otherwise), minified with names kept,
 * native addons left outside.
 */
const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  minify: true,
  keepNames: true,
  // Native addons, web-tree-sitter (its wasm loader finds its files relative to its own module) and
  // playwright-core (it loads its own files and browser-side scripts at run time).
  external: ['node-pty', 'better-sqlite3', 'electron', 'web-tree-sitter', 'playwright-core'],
  banner: {
    js: "import { createRequire as __weftCreateRequire } from 'node:module'; const require = __weftCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
  plugins: [englishOnlyZodLocales],
};

await build({
  ...common,
  // The spawn host (src-main/util/spawn-host/host-main.ts) is a program of its own, beside the CLI; the
  // start-up index check's worker thread (src-main/store/index-check-worker.ts) too (see
  // src-main/util/worker-thread.ts, which finds it beside the chunk that starts it).
  entryPoints: {
    cli: 'src-main/cli.ts',
    'spawn-host': 'src-main/util/spawn-host/host-main.ts',
    'index-check-worker': 'src-main/store/index-check-worker.ts',
  },
  outdir: 'dist/cli',
  splitting: true,
});

// The one-shot commands whose start-up is most of their time, each as one file that bin/weft.js runs instead
// of cli.js: Node resolves, reads and links every chunk of the split build as a module of its own, which cost
// `weft exec` 15–25 ms and `weft apply-patch` about 15 ms (bench/PROFILES.md). Without splitting, what they
// import on demand is in the same file and still evaluated only when first imported.
// `weft apply-patch` is CommonJS, required by bin/weft.js: an ES module's imports of Node's modules go through
// their ES facades, and that of `node:fs` reads every export, lazy ones too, which loads Node's streams.
await build({
  ...common,
  entryPoints: { 'weft-apply-patch': 'src-main/cli/apply-patch-entry.ts' },
  outdir: 'dist/cli',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  target: 'node22',
  banner: { js: '"use strict";' },
  splitting: false,
});

// `weft exec` and the hosts (`app-server`, `serve`, `mcp-server`, `acp`) are CommonJS: bin/weft.js runs each
// as a `vm.Script`, whose code cache can hold every function a run compiled (an ES module's holds only what
// was compiled at load; see bin/weft.js), and `import.meta.url` becomes the file's URL. The last line names
// the build (a hash of the rest), which keys that cache. The app server's host, which answers before it is
// whole (server/app-host.ts), then takes the rest from the same file.
const kept = await build({
  ...common,
  entryPoints: {
    'weft-exec': 'src-main/cli/exec-entry.ts',
    'weft-app-server': 'src-main/cli/app-server-entry.ts',
    'weft-serve': 'src-main/cli/serve-entry.ts',
    'weft-mcp-server': 'src-main/cli/mcp-server-entry.ts',
    'weft-acp': 'src-main/cli/acp-entry.ts',
  },
  outdir: 'dist/cli',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  target: 'node22',
  splitting: false,
  define: { 'import.meta.url': '__weftModuleUrl' },
  banner: {
    js: '"use strict";\nconst __weftModuleUrl = require("node:url").pathToFileURL(__filename).href;',
  },
  write: false,
});
for (const file of kept.outputFiles) {
  if (!file.path.endsWith('.cjs')) {
    writeFileSync(file.path, file.contents);
    continue;
  }
  const hash = createHash('sha256').update(file.contents).digest('hex').slice(0, 32);
  writeFileSync(file.path, Buffer.concat([file.contents, Buffer.from(`\n//# weftBuild=${hash}\n`)]));
}
