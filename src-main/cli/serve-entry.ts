// `weft serve` built as one CommonJS file (dist/cli/weft-serve.cjs), which bin/weft.js runs with the code an
// earlier run compiled (see scripts/build-cli.mjs and bin/weft.js).
import { serveCommand } from './serve-command';
import { runToExit } from './start';

// argv: node, bin/weft.js, serve, …
runToExit(() => serveCommand(process.argv.slice(3)));
