// `weft apply-patch` built as one file (dist/cli/weft-apply-patch.js), which bin/weft.js starts instead of
// cli.js: one module to load instead of ten (bench/PROFILES.md).
import { applyPatchCommand } from './apply-patch-command';
import { runToExit } from './start';

// argv: node, bin/weft.js, apply-patch, …
runToExit(() => applyPatchCommand(process.argv.slice(3)));
