/**
 * The `weft` command. Each sub-command is loaded on demand so that, for example, `weft apply-patch`
 * never pays for the model client and `weft exec` never loads the server.
 */
import { VERSION } from './version';

const USAGE = `Weft ${VERSION} — a coding agent for your projects.

Usage: weft <command> [options]

Commands:
  exec [options] <prompt|->   Run one task headless in the current directory; the answer goes to stdout
  apply-patch [patch]         Apply a patch (Codex apply_patch format) from the argument or stdin
  help                        Show this help

Run \`weft <command> --help\` for a command's options.
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'exec':
    case 'e':
      return (await import('./cli/exec')).runExecCommand(rest);
    case 'apply-patch':
    case 'apply_patch': {
      const { runApplyPatchCli } = await import('./tools/apply-patch/cli');
      return runApplyPatchCli(rest, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });
    }
    case '--version':
    case '-V':
      process.stdout.write(`weft ${VERSION}\n`);
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`weft: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

/**
 * One-shot commands exit as soon as their output is flushed, rather than waiting for idle keep-alive
 * sockets and timers to wind down. Long-running commands (servers) resolve only when they are done.
 */
function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

main(process.argv.slice(2)).then(exitAfterFlush, (error: unknown) => {
  process.stderr.write(`weft: ${error instanceof Error ? error.message : String(error)}\n`);
  exitAfterFlush(1);
});
