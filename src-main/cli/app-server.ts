/**
 * `weft app-server`: serves the JSON-RPC protocol to one client on stdio (one JSON object per line).
 * `weft app-server generate-json-schema --out DIR`: writes the protocol's JSON Schema.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { writeProtocolJsonSchema } from '../server/json-schema';
import { runStdioServer } from '../server/stdio';
import type { ConnectionHost } from '../server/transport';
import { errorMessage } from '../util/errors';

const USAGE = `Usage: weft app-server                                  Serve the protocol on stdio
       weft app-server generate-json-schema --out <dir>    Write the protocol's JSON Schema to <dir>

The stdio server reads one JSON-RPC message per line on stdin and writes one per line on stdout;
logs go to stderr. It exits when stdin closes.
`;

export interface AppServerHost {
  host: ConnectionHost;
  close(): Promise<void>;
}

export async function runAppServerCommand(argv: string[], createHost: () => Promise<AppServerHost>): Promise<number> {
  const [first, ...rest] = argv;
  if (first === 'generate-json-schema') return generateJsonSchema(rest);
  if (first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (first !== undefined) {
    process.stderr.write(`weft app-server: unexpected argument "${first}"\n\n${USAGE}`);
    return 2;
  }
  return serveStdio(createHost);
}

async function generateJsonSchema(argv: string[]): Promise<number> {
  let out: string | undefined;
  try {
    const { values } = parseArgs({ args: argv, options: { out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } } });
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
    const files = await writeProtocolJsonSchema(dir);
    process.stdout.write(`Wrote ${files.length} JSON Schema files to ${dir}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`weft app-server generate-json-schema: cannot write to ${dir}: ${errorMessage(error)}\n`);
    return 1;
  }
}

async function serveStdio(createHost: () => Promise<AppServerHost>): Promise<number> {
  // stdout belongs to the protocol: anything else that would print there goes to stderr instead.
  const restoreConsole = routeConsoleToStderr();
  let created: AppServerHost;
  try {
    created = await createHost();
  } catch (error) {
    process.stderr.write(`weft app-server: ${errorMessage(error)}\n`);
    restoreConsole();
    return 1;
  }
  // A signal ends the session the same way as closing stdin does.
  const stop = (): void => {
    process.stdin.destroy();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await runStdioServer(created.host, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    try {
      await created.close();
    } catch (error) {
      process.stderr.write(`weft app-server: shutting down failed: ${errorMessage(error)}\n`);
    }
    restoreConsole();
  }
  return 0;
}

function routeConsoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  return () => {
    console.log = saved.log;
    console.info = saved.info;
    console.debug = saved.debug;
  };
}
