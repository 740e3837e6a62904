// How the `weft` command's entry points end: dist/cli/cli.js (every command), and the one-file builds of
// the commands whose start-up is most of their time (see scripts/build-cli.mjs and bin/weft.js).

/**
 * One-shot commands exit as soon as their output is flushed, rather than waiting for idle keep-alive
 * sockets and timers to wind down. Long-running commands (servers) resolve only when they are done.
 */
function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

/** Runs a command, then exits with its code (1, with the error's message, when it throws). */
export function runToExit(command: () => Promise<number>): void {
  command().then(exitAfterFlush, (error: unknown) => {
    process.stderr.write(`weft: ${error instanceof Error ? error.message : String(error)}\n`);
    exitAfterFlush(1);
  });
}
