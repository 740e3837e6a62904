// Builds the renderer (src-renderer) into dist/renderer. `base: './'` makes every asset URL relative, so
// the same build works under app://weft/ (Electron) and http://127.0.0.1:PORT/ (`weft serve`). The
// bundle needs nothing beyond the app's CSP: no inline scripts, no eval, workers from our own origin.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const packageJson: unknown = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const version =
  typeof packageJson === 'object' &&
  packageJson !== null &&
  'version' in packageJson &&
  typeof packageJson.version === 'string'
    ? packageJson.version
    : '0.0.0';

export default defineConfig({
  root: fileURLToPath(new URL('./src-renderer', import.meta.url)),
  base: './',
  plugins: [react()],
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
