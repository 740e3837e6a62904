/**
 * `weft mcp-server`: Weft as an MCP server, on stdio (default) or on streamable HTTP with `--port`
 * (127.0.0.1 only, behind a token).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ConnectionHost } from '../server/transport';
import { errorMessage } from '../util/errors';

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

export interface McpServerHost {
  host: ConnectionHost;
  close(): Promise<void>;
}

export async function runMcpServerCommand(argv: string[], createHost: (opts: { cwd: string }) => Promise<McpServerHost>): Promise<number> {
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: { port: { type: 'string' }, token: { type: 'string' }, cd: { type: 'string', short: 'C' }, help: { type: 'boolean', short: 'h' } },
    }).values;
  } catch (error) {
    process.stderr.write(`weft mcp-server: ${errorMessage(error)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  let port: number | null = null;
  if (values.port !== undefined) {
    port = /^\d{1,5}$/.test(values.port) && Number(values.port) <= 65_535 ? Number(values.port) : null;
    if (port === null) {
      process.stderr.write(`weft mcp-server: --port must be a whole number from 0 to 65535, got "${values.port}"\n`);
      return 2;
    }
  }
  if (values.token !== undefined && (port === null || values.token.length === 0)) {
    process.stderr.write(values.token.length === 0 ? 'weft mcp-server: --token must not be empty\n' : 'weft mcp-server: --token only applies with --port\n');
    return 2;
  }
  const cwd = resolve(values.cd ?? process.cwd());
  if (!existsSync(cwd)) {
    process.stderr.write(`weft mcp-server: --cd ${values.cd ?? ''}: no such directory\n`);
    return 2;
  }

  // On stdio, stdout belongs to the protocol: anything that would print there goes to stderr.
  const restoreConsole = port === null ? routeConsoleToStderr() : () => undefined;
  let created: McpServerHost;
  try {
    created = await createHost({ cwd });
  } catch (error) {
    process.stderr.write(`weft mcp-server: ${errorMessage(error)}\n`);
    restoreConsole();
    return 1;
  }
  const transports = await import('../faces/mcp-server/transports');
  try {
    if (port === null) {
      const stop = (): void => {
        process.stdin.destroy();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        await transports.serveMcpStdio({ host: created.host, stdin: process.stdin, stdout: process.stdout, log });
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    } else {
      let server;
      try {
        server = await transports.startMcpHttpServer({ host: created.host, port, token: values.token, log });
      } catch (error) {
        process.stderr.write(`weft mcp-server: cannot listen on 127.0.0.1:${port}: ${errorMessage(error)}${port === 0 ? '' : '. Pass --port 0 to pick a free port.'}\n`);
        return 1;
      }
      process.stdout.write(`Weft MCP server at ${server.url}\nToken: ${server.token}\nURL with the token: ${server.url}?token=${encodeURIComponent(server.token)}\n`);
      await new Promise<void>((done) => {
        process.once('SIGINT', done);
        process.once('SIGTERM', done);
      });
      log('weft mcp-server: shutting down');
      await server.close();
    }
  } finally {
    try {
      await created.close();
    } catch (error) {
      log(`weft mcp-server: shutting down failed: ${errorMessage(error)}`);
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
