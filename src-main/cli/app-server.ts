/**
 * `weft app-server`: serves the JSON-RPC protocol to one client on stdio (one JSON object per line).
 * `weft app-server generate-json-schema --out DIR`: writes the protocol's JSON Schema.
 */
import { resolve } from 'node:path';
import { runStdioServer } from '../server/stdio';
import { errorMessage } from '../util/errors';
import {
  closeHost,
  openHost,
  routeConsoleToStderr,
  serveUntilStdinCloses,
  stderrLog,
  type CliHost,
} from './transport-setup';

const USAGE = `Usage: weft app-server                                  Serve the protocol on stdio
       weft app-server --env <name>                        Relay stdio to the app server of environment <name>
       weft app-server --attach                            Bridge stdio to this user's app server (started if
                                                           needed), which keeps running when stdio closes
       weft app-server generate-json-schema --out <dir>    Write the protocol's JSON Schema to <dir>

The stdio server reads one JSON-RPC message per line on stdin and writes one per line on stdout;
logs go to stderr. It exits when stdin closes.
`;

export async function runAppServerCommand(argv: string[], createHost: () => Promise<CliHost>): Promise<number> {
  const [first, ...rest] = argv;
  if (first === 'generate-json-schema') return generateJsonSchema(rest);
  if (first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (first === '--attach' && rest.length === 0) return (await import('./app-server-attach')).runAttach();
  if (first === '--daemon' && rest.length === 0) return (await import('./app-server-attach')).runDaemon(createHost);
  if (first === '--env') return relayStdio(rest);
  if (first !== undefined) {
    process.stderr.write(`weft app-server: unexpected argument "${first}"\n\n${USAGE}`);
    return 2;
  }
  return serveStdio(createHost);
}

async function generateJsonSchema(argv: string[]): Promise<number> {
  let out: string | undefined;
  try {
    // node:util through getBuiltinModule: importing it runs its lazy getters (parseArgs, diff), which
    // the server itself never uses.
    const { values } = process.getBuiltinModule('node:util').parseArgs({
      args: argv,
      options: { out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    out = values.out;
  } catch (error) {
    process.stderr.write(`weft app-server generate-json-schema: ${errorMessage(error)}\n\n${USAGE}`);
    return 2;
  }
  if (out === undefined) {
    process.stderr.write(`weft app-server generate-json-schema: --out <dir> is required\n\n${USAGE}`);
    return 2;
  }
  const dir = resolve(out);
  try {
    const { writeProtocolJsonSchema } = await import('../server/json-schema');
    const files = await writeProtocolJsonSchema(dir);
    process.stdout.write(`Wrote ${files.length} JSON Schema files to ${dir}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`weft app-server generate-json-schema: cannot write to ${dir}: ${errorMessage(error)}\n`);
    return 1;
  }
}

/** `--env NAME`: the protocol on stdio, relayed to the environment's app server. */
async function relayStdio(argv: string[]): Promise<number> {
  const [name, ...extra] = argv;
  if (name === undefined || extra.length > 0) {
    process.stderr.write(`weft app-server: --env takes one environment name\n\n${USAGE}`);
    return 2;
  }
  let failed = false;
  const { openRemoteHost } = await import('./environment-host');
  return serveStdio(() =>
    openRemoteHost(name, {
      log: stderrLog,
      onGiveUp: (why) => {
        failed = true;
        stderrLog(`weft app-server --env ${name}: ${why}`);
        process.stdin.destroy();
      },
    }),
  ).then((code) => (failed ? 1 : code));
}

async function serveStdio(createHost: () => Promise<CliHost>): Promise<number> {
  const restoreConsole = routeConsoleToStderr();
  const created = await openHost('app-server', createHost, undefined);
  if (created === null) {
    restoreConsole();
    return 1;
  }
  try {
    await serveUntilStdinCloses(() =>
      runStdioServer(created.host, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }),
    );
  } finally {
    await closeHost('app-server', created, stderrLog);
    restoreConsole();
  }
  return 0;
}
