#!/usr/bin/env node
// The `weft` command. The TypeScript sources are bundled into dist/cli by `npm install` (prepare).
// Node's built-in modules through getBuiltinModule, not `import`: the ES facade of `node:fs` reads every export,
// and its lazy ones load Node's streams (about 4 ms of every command's start, which `weft apply-patch` never needs).
const { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } = process.getBuiltinModule('node:fs');
const module = process.getBuiltinModule('node:module');
const { createRequire } = module;
const { homedir } = process.getBuiltinModule('node:os');
const { dirname, isAbsolute, join } = process.getBuiltinModule('node:path');
const { fileURLToPath } = process.getBuiltinModule('node:url');

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `weft: Node ${process.versions.node} is too old; Weft needs Node 22.12 or later (24 is the LTS line).\n`,
  );
  process.exit(1);
}

// V8's compiled code of the bundle is kept on disk between runs (Node's compile cache): in
// WEFT_HOME/cache/compile, made on the first run, unless NODE_COMPILE_CACHE names another folder (then Node
// has enabled it already). A WEFT_HOME that is not an absolute path leaves the choice to Node (its temp folder).
const weftHome = process.env.WEFT_HOME?.trim() || join(homedir(), '.weft');
const { directory: cacheFolder } = module.enableCompileCache(
  process.env.NODE_COMPILE_CACHE || !isAbsolute(weftHome) ? undefined : join(weftHome, 'cache', 'compile'),
);

// `weft exec`, the hosts (`app-server`, `serve`, `mcp-server`, `acp`) and `weft apply-patch` start from a
// file of their own (see scripts/build-cli.mjs); every other command from cli.js.
const command = process.argv[2] ?? '';
if (command === 'exec' || command === 'e') {
  runWithKeptCode('weft-exec');
} else if (['app-server', 'serve', 'mcp-server', 'acp'].includes(command)) {
  runWithKeptCode(`weft-${command}`);
} else if (command === 'apply-patch' || command === 'apply_patch') {
  const entry = fileURLToPath(new URL('../dist/cli/weft-apply-patch.cjs', import.meta.url));
  if (!existsSync(entry)) missing('weft-apply-patch.cjs');
  createRequire(import.meta.url)(entry);
} else {
  const entry = new URL('../dist/cli/cli.js', import.meta.url);
  if (!existsSync(entry)) missing('cli.js');
  await import(entry.href);
}

function crc(bytes) {
  return process.getBuiltinModule('node:zlib').crc32(bytes).toString(16);
}

function missing(file) {
  process.stderr.write(`weft: dist/cli/${file} is missing; run \`npm run build\` in the Weft checkout.\n`);
  process.exit(1);
}

/**
 * Runs a one-file command with V8's code for every function an earlier run of it compiled. Node's compile
 * cache keeps only the code compiled when a module is loaded, so each run compiled again, one by one, the
 * functions it calls: about 60 ms of `weft exec`, 25–30 ms of the app server's start, 65 ms of `weft
 * serve`'s (`weft apply-patch`, whose file is small, was slower this way and is loaded as a module). Here
 * the code is taken from the script once a run has done its work (the command says so: `keepCompiledCode`
 * and `saveCompiledCode` in src-main/util/compiled-code.ts) and kept beside Node's cache as `<name>.code`,
 * under the build's hash (the bundle's last line) and this Node. A cache that is missing, from another
 * build, damaged, or rejected by V8 is made again by the next such run, and never stops a command.
 */
function runWithKeptCode(name) {
  const file = fileURLToPath(new URL(`../dist/cli/${name}.cjs`, import.meta.url));
  let source;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    missing(`${name}.cjs`);
  }
  const build = /\/\/# weftBuild=(\w+)\s*$/.exec(source.slice(-200))?.[1] ?? 'unknown';
  const key = `${build} ${process.version} ${process.arch}`;
  const codeFile = cacheFolder === undefined ? null : join(cacheFolder, `${name}.code`);
  let cachedData;
  try {
    const saved = codeFile === null ? null : readFileSync(codeFile);
    const header = saved?.indexOf(10) ?? -1;
    // V8 checks the code's version, flags and length but not its bytes: the header carries their CRC-32.
    if (saved && header > 0 && saved.toString('latin1', 0, header) === `${key} ${crc(saved.subarray(header + 1))}`)
      cachedData = saved.subarray(header + 1);
  } catch {
    // None yet, or unreadable: this run compiles as it goes.
  }
  const vm = process.getBuiltinModule('node:vm');
  const script = new vm.Script(module.wrap(source), {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (codeFile !== null && (cachedData === undefined || script.cachedDataRejected)) {
    let saved = false;
    const save = () => {
      if (saved) return;
      saved = true;
      const tmp = `${codeFile}.${process.pid}.tmp`;
      try {
        mkdirSync(dirname(codeFile), { recursive: true });
        const code = script.createCachedData();
        writeFileSync(tmp, Buffer.concat([Buffer.from(`${key} ${crc(code)}\n`, 'latin1'), code]));
        renameSync(tmp, codeFile);
      } catch {
        // A cache folder that cannot be written (or a full disk): the next run compiles as this one did.
        try {
          rmSync(tmp, { force: true });
        } catch {
          // Nothing more to do from here.
        }
      }
    };
    // `saveCompiledCode` (a host, once assembled and quiet) saves now; `keepCompiledCode`, at exit.
    globalThis[Symbol.for('weft.saveCompiledCode')] = save;
    process.once('exit', () => {
      if (globalThis[Symbol.for('weft.keepCompiledCode')] === true) save();
    });
  }
  // The script's `import()`s (web-tree-sitter, node-pty…) go to Node's own loader, which Node calls an
  // experimental feature of `vm` and warns about on stderr at the first; that one warning is left out.
  for (const print of process.listeners('warning')) {
    process.off('warning', print);
    process.on('warning', (warning) => {
      if (!warning.message.startsWith('vm.USE_MAIN_CONTEXT_DEFAULT_LOADER')) print(warning);
    });
  }
  const cjs = { exports: {} };
  script.runInThisContext().call(cjs.exports, cjs.exports, createRequire(file), cjs, file, dirname(file));
}
