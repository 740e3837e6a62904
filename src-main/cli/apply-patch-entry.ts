// `weft apply-patch` built as one CommonJS file (dist/cli/weft-apply-patch.cjs), which bin/weft.js requires
// instead of cli.js: one module to load instead of ten, no ES facades of Node's modules, and no Node streams
// for its stdio (bench/PROFILES.md).
import { applyPatchCommand } from './apply-patch-command';
import { exitWhenWritten, plainOutput, plainStdin } from './plain-stdio';
import { runToExit } from './start';

const stderr = plainOutput(2);
// argv: node, bin/weft.js, apply-patch, …
runToExit(() => applyPatchCommand(process.argv.slice(3), { stdin: plainStdin(), stdout: plainOutput(1), stderr }), {
  report: (text, done) => stderr.write(text, done),
  exit: exitWhenWritten,
});
