/** `weft acp`: Weft as an Agent Client Protocol agent on stdio, for editors such as Zed. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ConnectionHost } from '../server/transport';
import { errorMessage } from '../util/errors';

const USAGE = `Usage: weft acp [options]

Speaks the Agent Client Protocol (ACP) on stdio, so an editor such as Zed can use Weft as its agent.
Every ACP session is a Weft thread: listed, searchable and resumable in the app. The editor starts
this command itself; see the README for the Zed settings.

Modes (the editor's mode picker): read-only, auto (the project sandbox, asks to go beyond it) and
full-access (no sandbox, never asks).

Options:
  -C, --cd <dir>   Folder to fall back on when the editor names none (default: the current directory)
  -h, --help       Show this help
`;

export interface AcpHost {
  host: ConnectionHost;
  close(): Promise<void>;
}

export async function runAcpCommand(
  argv: string[],
  createHost: (opts: { cwd: string }) => Promise<AcpHost>,
): Promise<number> {
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: { cd: { type: 'string', short: 'C' }, help: { type: 'boolean', short: 'h' } },
    }).values;
  } catch (error) {
    process.stderr.write(`weft acp: ${errorMessage(error)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const cwd = resolve(values.cd ?? process.cwd());
  if (!existsSync(cwd)) {
    process.stderr.write(`weft acp: --cd ${values.cd ?? ''}: no such directory\n`);
    return 2;
  }
  // stdout belongs to the protocol: anything that would print there goes to stderr.
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  let created: AcpHost | null = null;
  const stop = (): void => {
    process.stdin.destroy();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    created = await createHost({ cwd });
    const { serveAcpStdio } = await import('../faces/acp/stdio');
    await serveAcpStdio({ host: created.host, stdin: process.stdin, stdout: process.stdout, log });
    return 0;
  } catch (error) {
    process.stderr.write(`weft acp: ${errorMessage(error)}\n`);
    return 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    if (created)
      await created.close().catch((error: unknown) => log(`weft acp: shutting down failed: ${errorMessage(error)}`));
    Object.assign(console, saved);
  }
}
