// `weft exec` built as one file (dist/cli/weft-exec.js), which bin/weft.js starts instead of cli.js: the
// split build's chunks, about 40 on this command's way to its model request, are each resolved, read and
// linked as a module of their own, which cost a run 15–25 ms (bench/PROFILES.md).
import './exec-jitless';
import { runExecCommand } from './exec';
import { runToExit } from './start';

// argv: node, bin/weft.js, exec, …
runToExit(() => runExecCommand(process.argv.slice(3)));
