// Stages an Electron-ABI build of better-sqlite3 for `npm start`, without touching node_modules:
//   node_modules/better-sqlite3            Node's build: `npm test`, the `weft` CLI
//   dist/electron/node_modules/better-sqlite3   Electron's build: dist/electron/main.js finds this one
//                                               first (Node resolution walks up from the importer)
// better-sqlite3 is not N-API, so a binary built for Node does not load in Electron. node-pty is N-API and
// loads as built. Needs the network once per Electron / better-sqlite3 version (prebuilt download, else
// Electron's headers for a compile); later runs see the stamp and do nothing. Packaging does its own
// per-arch rebuild (electron-builder npmRebuild); see docs/electron.md.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(join(root, 'package.json'));
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

const electronVersion = readJson(join(root, 'node_modules/electron/package.json')).version;
const sourceDir = dirname(require.resolve('better-sqlite3/package.json'));
const moduleVersion = readJson(join(sourceDir, 'package.json')).version;
const arch = process.env.WEFT_ELECTRON_ARCH ?? process.arch;
const stageRoot = join(root, 'dist/electron/node_modules');
const stageDir = join(stageRoot, 'better-sqlite3');
const binary = join(stageDir, 'build/Release/better_sqlite3.node');
const stampFile = join(stageRoot, '.weft-natives.json');
const stamp = { electron: electronVersion, betterSqlite3: moduleVersion, platform: process.platform, arch };

if (existsSync(stampFile) && existsSync(binary) && JSON.stringify(readJson(stampFile)) === JSON.stringify(stamp)) {
  console.log(`better-sqlite3 ${moduleVersion} for Electron ${electronVersion} (${arch}) is already staged.`);
  process.exit(0);
}

rmSync(stageDir, { recursive: true, force: true });
mkdirSync(stageRoot, { recursive: true });
cpSync(sourceDir, stageDir, {
  recursive: true,
  // The copy starts without Node's build output.
  filter: (path) => {
    const rel = relative(sourceDir, path);
    return rel !== 'build' && !rel.startsWith(`build${sep}`);
  },
});

// A `nodedir` from npm's config (set on some machines) would make node-gyp compile against Node's headers
// whatever --target says: drop it so Electron's headers are used.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => key.toLowerCase() !== 'npm_config_nodedir'),
);

function run(label, command, args) {
  console.log(`${label}: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd: stageDir, stdio: 'inherit', env });
  return result.status === 0;
}

// 1. A prebuilt binary for Electron (fast; what better-sqlite3 publishes for each Electron ABI).
const prebuildInstall = createRequire(join(sourceDir, 'package.json')).resolve('prebuild-install/bin.js');
let ok = run('prebuilt', process.execPath, [
  prebuildInstall,
  '--runtime',
  'electron',
  '--target',
  electronVersion,
  '--arch',
  arch,
  '--platform',
  process.platform,
]);

// 2. Else compile against Electron's headers with node-gyp (npm's own, when run through npm).
if (!ok) {
  const nodeGyp =
    process.env.npm_config_node_gyp ??
    (() => {
      try {
        return require.resolve('node-gyp/bin/node-gyp.js');
      } catch {
        return undefined;
      }
    })();
  if (nodeGyp === undefined) {
    console.error(
      'No prebuilt better-sqlite3 for this Electron, and node-gyp was not found. Run this through npm (`npm start`), which provides node-gyp.',
    );
    process.exit(1);
  }
  ok = run('compile', process.execPath, [
    nodeGyp,
    'rebuild',
    '--release',
    `--target=${electronVersion}`,
    `--arch=${arch}`,
    '--dist-url=https://electronjs.org/headers',
  ]);
}

if (!ok || !existsSync(binary)) {
  console.error(
    `Could not build better-sqlite3 for Electron ${electronVersion}. This needs the network (a prebuilt download ` +
      "or Electron's headers) and, for a compile, a C++ toolchain (build-essential / Xcode command line tools).",
  );
  process.exit(1);
}
// An Electron build must NOT load in this Node (different NODE_MODULE_VERSION); one that loads was built
// for Node by mistake.
if (arch === process.arch) {
  const probe = spawnSync(process.execPath, ['-e', 'process.dlopen({ exports: {} }, process.argv[1])', binary], {
    encoding: 'utf8',
  });
  if (probe.status === 0) {
    rmSync(stageDir, { recursive: true, force: true });
    console.error(
      `The staged better-sqlite3 was built for Node ${process.version}, not Electron ${electronVersion}; nothing was staged.`,
    );
    process.exit(1);
  }
}
writeFileSync(stampFile, `${JSON.stringify(stamp, null, 2)}\n`);
console.log(
  `Staged better-sqlite3 ${moduleVersion} for Electron ${electronVersion} (${arch}) in ${relative(root, stageDir)}.`,
);
