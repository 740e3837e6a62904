// What `weft app-server`, `weft serve` and `weft mcp-server` share in setting up a transport: the host
// they serve, `--port` and `--token` checks, the project directory, stdout kept for the protocol on
// stdio, and shutting down on SIGINT/SIGTERM. Loopback-only listening and the token check on every
// request live in the servers themselves (server/http-server.ts, faces/mcp-server/transports.ts).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ConnectionHost } from '../server/transport';
import { errorMessage } from '../util/errors';

/** The agent a transport serves, and how to stop it. */
export interface CliHost {
  host: ConnectionHost;
  close(): Promise<void>;
  /** The host makes way for another Weft on its WEFT_HOME: it lets each thread go once nobody watches it. */
  makeWay?(): void;
}

/** `--port`: a whole number from 0 to 65535 (0 = any free port); `fallback` when absent; null when invalid. */
export function parsePort<F extends number | null>(value: string | undefined, fallback: F): number | F | null {
  if (value === undefined) return fallback;
  if (!/^\d{1,5}$/.test(value)) return null;
  const port = Number(value);
  return port <= 65_535 ? port : null;
}

/** The message for a `--port` parsePort refused. */
export function badPortMessage(command: string, value: string | undefined): string {
  return `weft ${command}: --port must be a whole number from 0 to 65535, got "${value ?? ''}"\n`;
}

/** `--cd`: the project new threads open on (default the current directory); null when it does not exist. */
export function projectDir(cd: string | undefined): string | null {
  const cwd = resolve(cd ?? process.cwd());
  return existsSync(cwd) ? cwd : null;
}

/** Creates the host; on failure prints `weft <command>: <why>` and resolves to null. */
export async function openHost<O>(
  command: string,
  createHost: (options: O) => Promise<CliHost>,
  options: O,
): Promise<CliHost | null> {
  try {
    return await createHost(options);
  } catch (error) {
    process.stderr.write(`weft ${command}: ${errorMessage(error)}\n`);
    return null;
  }
}

/** Closes the host; a failure is logged, never thrown. */
export async function closeHost(command: string, created: CliHost, log: (line: string) => void): Promise<void> {
  try {
    await created.close();
  } catch (error) {
    log(`weft ${command}: shutting down failed: ${errorMessage(error)}`);
  }
}

/** A line to stderr: stdout belongs to the protocol or to the printed URL. */
export function stderrLog(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** On stdio, stdout belongs to the protocol: console output goes to stderr until the returned restore. */
export function routeConsoleToStderr(): () => void {
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

/**
 * Runs a stdio server so that SIGINT/SIGTERM end it the way closing stdin does (stdin is destroyed);
 * the signal handlers are removed when it returns.
 */
export async function serveUntilStdinCloses(serve: () => Promise<void>): Promise<void> {
  const stop = (): void => {
    process.stdin.destroy();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await serve();
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/** Resolves on the first SIGINT or SIGTERM (a network server's way to stop). */
export function waitForSignal(): Promise<void> {
  return new Promise((resolveSignal) => {
    const onSignal = (): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolveSignal();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
