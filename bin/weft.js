#!/usr/bin/env node
// The `weft` command. The TypeScript sources are bundled into dist/cli by `npm install` (prepare).
import { existsSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

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
module.enableCompileCache(
  process.env.NODE_COMPILE_CACHE || !isAbsolute(weftHome) ? undefined : join(weftHome, 'cache', 'compile'),
);

// `weft exec` and `weft apply-patch` start from a file of their own, built as one module (see
// scripts/build-cli.mjs); every other command from cli.js.
const ONE_FILE = new Map([
  ['exec', 'weft-exec'],
  ['e', 'weft-exec'],
  ['apply-patch', 'weft-apply-patch'],
  ['apply_patch', 'weft-apply-patch'],
]);
const name = ONE_FILE.get(process.argv[2] ?? '') ?? 'cli';
const entry = new URL(`../dist/cli/${name}.js`, import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(`weft: dist/cli/${name}.js is missing; run \`npm run build\` in the Weft checkout.\n`);
  process.exit(1);
}
await import(entry.href);
