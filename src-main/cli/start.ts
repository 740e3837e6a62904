// How the `weft` command's entry points end: dist/cli/cli.js (every command), and the one-file builds of
// the commands whose start-up is most of their time (see scripts/build-cli.mjs and bin/weft.js).

/**
 * One-shot commands exit as soon as their output is flushed, rather than waiting for idle keep-alive
 * sockets and timers to wind down. Long-running commands (servers) resolve only when they are done.
 */
export function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

/** How a command's end is told and done: by default on process.stderr, exiting once stdio is flushed. */
export interface CommandEnd {
  /** Writes `text` to standard error, then calls `done`. */
  report(text: string, done: () => void): void;
  exit(code: number): void;
}

const STREAM_END: CommandEnd = {
  report: (text, done) => {
    process.stderr.write(text);
    done();
  },
  exit: exitAfterFlush,
};

/** Runs a command, then exits with its code (1, with the error's message, when it throws). */
export function runToExit(command: () => Promise<number>, end: CommandEnd = STREAM_END): void {
  command().then(end.exit, (error: unknown) => {
    end.report(`weft: ${error instanceof Error ? error.message : String(error)}\n`, () => end.exit(1));
  });
}
