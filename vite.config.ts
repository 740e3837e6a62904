// Builds the renderer (src-renderer) into dist/renderer. `base: './'` makes every asset URL relative, so
// the same build works under app://weft/ (Electron) and http://127.0.0.1:PORT/ (`weft serve`). The
// bundle needs nothing beyond the app's CSP: no inline scripts, no eval, workers from our own origin.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const packageJson: unknown = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const version =
  typeof packageJson === 'object' &&
  packageJson !== null &&
  'version' in packageJson &&
  typeof packageJson.version === 'string'
    ? packageJson.version
    : '0.0.0';

/**
 * Marks the entry chunk (React and the whole app but Monaco and xterm, run on every start) with V8's
 * `//# allFunctionsCalledOnLoad`: Chromium 136+ (Electron 36+) then compiles its functions on the thread
 * that streams the script in, instead of on the main thread the first time each is called (opening the
 * first conversation compiled about 80 ms of code in the click's task).
 */
function compileHints(): Plugin {
  return {
    name: 'weft-compile-hints',
    apply: 'build',
    enforce: 'post',
    // At the very top of the file, so after Vite's own prelude (added once plugins' bundle hooks have run).
    writeBundle(options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || !chunk.isEntry || options.dir === undefined) continue;
        const file = join(options.dir, chunk.fileName);
        writeFileSync(file, `//# allFunctionsCalledOnLoad\n${readFileSync(file, 'utf8')}`);
      }
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('./src-renderer', import.meta.url)),
  base: './',
  plugins: [react(), compileHints()],
  define: {
    __WEFT_VERSION__: JSON.stringify(version),
  },
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Monaco's editor core is one large chunk by nature; it loads only when a diff is shown.
    chunkSizeWarningLimit: 5000,
    // Vite's module-preload polyfill would be an inline script, which the CSP forbids.
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  worker: {
    format: 'es',
  },
});
