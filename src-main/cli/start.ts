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

/**
 * Says that this run went the way a run of its command usually goes (a turn was run, a patch was read), so
 * the code V8 compiled for it is worth keeping for the next run: bin/weft.js saves it at exit when it has
 * none yet for this build. A run that only printed help or refused its arguments says nothing.
 */
export function keepCompiledCode(): void {
  (globalThis as Record<symbol, unknown>)[Symbol.for('weft.keepCompiledCode')] = true;
}
