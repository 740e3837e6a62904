#!/usr/bin/env node
// The `weft` command. The TypeScript sources are bundled into dist/cli by `npm install` (prepare).
import { existsSync } from 'node:fs';
import module from 'node:module';

// Node 22.1 and later keep V8's compiled code of the bundle on disk between runs (the compile cache);
// Node 20 has no such API, and then nothing changes.
module.enableCompileCache?.();

const entry = new URL('../dist/cli/cli.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('weft: dist/cli/cli.js is missing; run `npm run build` in the Weft checkout.\n');
  process.exit(1);
}
await import(entry.href);
