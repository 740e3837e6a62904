// Packages the desktop app with electron-builder (config: electron-builder.yml), then puts the host's builds
// of the native modules back. electron-builder rebuilds native dependencies IN PLACE in node_modules for
// each target arch; without the restore, `npm test` and the `weft` CLI could load a foreign-arch build.
// Usage (after `npm run build` and scripts/build-electron.mjs): node scripts/dist.mjs [electron-builder
// args], e.g. `--linux`, `--mac`, `--linux deb --arm64`. Needs the network (Electron, headers, prebuilds).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const nativeModules = ['better-sqlite3', 'node-pty', 'tree-sitter-bash'];

for (const required of [
  'dist/electron/main.js',
  'dist/electron/app.js',
  'dist/electron/spawn-host.js',
  'dist/electron/preload.cjs',
  'dist/renderer/index.html',
]) {
  if (!existsSync(new URL(`../${required}`, import.meta.url))) {
    console.error(`${required} is missing: build first (npm run build, then node scripts/build-electron.mjs).`);
    process.exit(1);
  }
}

const builder = spawnSync(
  process.execPath,
  [
    fileURLToPath(new URL('../node_modules/electron-builder/cli.js', import.meta.url)),
    '--publish',
    'never',
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit' },
);

console.log(
  `Rebuilding ${nativeModules.join(', ')} for Node ${process.version} (electron-builder left Electron builds in node_modules)…`,
);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const restore = spawnSync(npm, ['rebuild', ...nativeModules], { cwd: root, stdio: 'inherit' });
if (restore.status !== 0) {
  console.error(
    `Could not rebuild the native modules for Node: run \`npm rebuild ${nativeModules.join(' ')}\` before \`npm test\`.`,
  );
}

process.exit(builder.status ?? 1);
