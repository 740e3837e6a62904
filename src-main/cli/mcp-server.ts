/**
 * `weft mcp-server`: Weft as an MCP server, on stdio (default) or on streamable HTTP with `--port`
 * (127.0.0.1 only, behind a token).
 */
import { parseArgs } from 'node:util';
import { errorMessage } from '../util/errors';
import {
  badPortMessage,
  closeHost,
  openHost,
  parsePort,
  projectDir,
  routeConsoleToStderr,
  serveUntilStdinCloses,
  stderrLog,
  waitForSignal,
  type CliHost,
} from './transport-setup';

const USAGE = `Usage: weft mcp-server [options]

Serves Weft as an MCP server with two tools: \`weft\` (start a thread and run a prompt) and
\`weft-reply\` (continue a thread). Threads are normal Weft threads. Approvals are asked through MCP
elicitation; the agent's text streams as progress notifications.

Without --port it speaks MCP on stdio (for hosts that start it as a command). With --port it serves
streamable HTTP at http://127.0.0.1:PORT/mcp and prints the URL; every request must carry the token
(\`Authorization: Bearer TOKEN\` or \`?token=TOKEN\`).

Options:
      --port <n>     Serve streamable HTTP on this port of 127.0.0.1 (0 picks a free port)
      --token <t>    Use this token instead of a random one
  -C, --cd <dir>     Project new threads open on when a call names no cwd (default: the current directory)
  -h, --help         Show this help
`;

export async function runMcpServerCommand(
  argv: string[],
  createHost: (opts: { cwd: string }) => Promise<CliHost>,
): Promise<number> {
  const log = stderrLog;
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        token: { type: 'string' },
        cd: { type: 'string', short: 'C' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    process.stderr.write(`weft mcp-server: ${errorMessage(error)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  // Without --port: stdio.
  const port = parsePort(values.port, null);
  if (port === null && values.port !== undefined) {
    process.stderr.write(badPortMessage('mcp-server', values.port));
    return 2;
  }
  if (values.token !== undefined && (port === null || values.token.length === 0)) {
    process.stderr.write(
      values.token.length === 0
        ? 'weft mcp-server: --token must not be empty\n'
        : 'weft mcp-server: --token only applies with --port\n',
    );
    return 2;
  }
  const cwd = projectDir(values.cd);
  if (cwd === null) {
    process.stderr.write(`weft mcp-server: --cd ${values.cd ?? ''}: no such directory\n`);
    return 2;
  }

  // On stdio, stdout belongs to the protocol: anything that would print there goes to stderr.
  const restoreConsole = port === null ? routeConsoleToStderr() : () => undefined;
  const created = await openHost('mcp-server', createHost, { cwd });
  if (created === null) {
    restoreConsole();
    return 1;
  }
  const transports = await import('../faces/mcp-server/transports');
  try {
    if (port === null) {
      await serveUntilStdinCloses(() =>
        transports.serveMcpStdio({ host: created.host, stdin: process.stdin, stdout: process.stdout, log }),
      );
    } else {
      let server;
      try {
        server = await transports.startMcpHttpServer({ host: created.host, port, token: values.token, log });
      } catch (error) {
        process.stderr.write(
          `weft mcp-server: cannot listen on 127.0.0.1:${port}: ${errorMessage(error)}${port === 0 ? '' : '. Pass --port 0 to pick a free port.'}\n`,
        );
        return 1;
      }
      process.stdout.write(
        `Weft MCP server at ${server.url}\nToken: ${server.token}\nURL with the token: ${server.url}?token=${encodeURIComponent(server.token)}\n`,
      );
      await waitForSignal();
      log('weft mcp-server: shutting down');
      await server.close();
    }
  } finally {
    await closeHost('mcp-server', created, log);
    restoreConsole();
  }
  return 0;
}
