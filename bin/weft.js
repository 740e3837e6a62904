#!/usr/bin/env node
// The `weft` command. The TypeScript sources are bundled into dist/cli by `npm install` (prepare).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/cli.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('weft: dist/cli/cli.js is missing; run `npm run build` in the Weft checkout.\n');
  process.exit(1);
}
await import(entry.href);
