// `weft mcp-server` built as one CommonJS file (dist/cli/weft-mcp-server.cjs), which bin/weft.js runs with the code
// an earlier run compiled (see scripts/build-cli.mjs and bin/weft.js).
import { mcpServerCommand } from './mcp-server-command';
import { runToExit } from './start';

// argv: node, bin/weft.js, mcp-server, …
runToExit(() => mcpServerCommand(process.argv.slice(3)));
