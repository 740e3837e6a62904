// `weft app-server` built as one CommonJS file (dist/cli/weft-app-server.cjs), which bin/weft.js runs with
// the code an earlier run compiled (see scripts/build-cli.mjs and bin/weft.js).
import { appServerCommand } from './app-server-command';
import { runToExit } from './start';

// argv: node, bin/weft.js, app-server, …
runToExit(() => appServerCommand(process.argv.slice(3)));
