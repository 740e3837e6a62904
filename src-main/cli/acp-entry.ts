// `weft acp` built as one CommonJS file (dist/cli/weft-acp.cjs), which bin/weft.js runs with the code
// an earlier run compiled (see scripts/build-cli.mjs and bin/weft.js).
import { acpCommand } from './acp-command';
import { runToExit } from './start';

// argv: node, bin/weft.js, acp, …
runToExit(() => acpCommand(process.argv.slice(3)));
