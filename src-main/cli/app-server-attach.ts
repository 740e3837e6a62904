/**
 * `weft app-server --attach`: this user's app server, reached through a unix socket and bridged to stdio,
 * so that what a pipe (ssh, kubectl exec) carries reaches a server that outlives the pipe: when the link
 * drops, turns keep running and approvals keep waiting for the next client. The server is started on the
 * first attach (`weft app-server --daemon`, in its own session, logging to a file beside its socket) and
 * leaves on its own once nobody is connected and no thread is loaded for a while.
 *
 * Each version has its own socket: an attach of a new Weft (installed there) starts a server of its own,
 * which tells the servers of other versions for the same WEFT_HOME to make way (SIGUSR2): such a server
 * stops listening (the clients it has stay, its turns run to their end), unloads each thread as soon as
 * nobody watches it (so its lock is free for the new one), and leaves once nobody is connected and no thread
 * is loaded (checked every RETIRED_CHECK_MS).
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { connect, type Socket } from 'node:net';
import { resolveWeftHome } from '../config/home';
import { connectHostClient } from '../faces/host-client';
import { listenOnSocket, type SocketServer } from '../server/socket-server';
import { ensurePrivateDir, otherServers, userSocketPaths, type UserSocketPaths } from '../server/user-socket';
import { errorMessage } from '../util/errors';
import { VERSION } from '../version';
import { closeHost, openHost, type CliHost } from './transport-setup';

/** How long the attach waits for a server it started to listen. */
const START_TIMEOUT_MS = 30_000;
/** A server nobody is connected to, with no thread loaded, leaves after this long (WEFT_APP_SERVER_IDLE_MS). */
const DEFAULT_IDLE_MS = 15 * 60_000;
/** A server that made way for another version checks this often whether it is idle, to leave. */
const RETIRED_CHECK_MS = 2000;

function connectTo(path: string): Promise<Socket | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') resolve(null);
      else reject(new Error(`cannot connect to ${path}: ${error.message}`));
    });
  });
}

async function logTail(file: string): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').slice(-8).join('\n');
}

/** Starts the server in its own session and waits for its socket; throws with its log when it fails. */
async function startServer(paths: UserSocketPaths): Promise<Socket> {
  const script = process.argv[1];
  if (script === undefined) throw new Error('cannot tell which weft to start (process.argv[1] is missing)');
  const out = openSync(paths.logFile, 'a', 0o600);
  let exited: string | null = null;
  try {
    const child = spawn(process.execPath, [script, 'app-server', '--daemon'], {
      detached: true,
      stdio: ['ignore', out, out],
      cwd: homedir(),
      env: process.env,
    });
    child.once('exit', (code, signal) => (exited = signal ?? `exit code ${String(code)}`));
    child.once('error', (error) => (exited = error.message));
    child.unref();
  } finally {
    closeSync(out);
  }
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const socket = await connectTo(paths.socket);
    if (socket !== null) return socket;
    if (exited !== null || Date.now() > deadline) {
      throw new Error(
        `the app server did not start (${exited ?? 'no socket after 30 s'}); its log, ${paths.logFile}:\n${await logTail(paths.logFile)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Bridges stdio to this user's app server, starting it when none listens; resolves to the exit code. */
export async function runAttach(): Promise<number> {
  const paths = userSocketPaths(resolveWeftHome(process.env));
  let socket: Socket;
  try {
    await ensurePrivateDir(paths.dir);
    socket = (await connectTo(paths.socket)) ?? (await startServer(paths));
  } catch (error) {
    process.stderr.write(`weft app-server --attach: ${errorMessage(error)}\n`);
    return 1;
  }
  return new Promise((resolve) => {
    process.stdin.pipe(socket);
    socket.pipe(process.stdout);
    let done = false;
    const finish = (code: number): void => {
      if (done) return;
      done = true;
      process.stdin.unpipe(socket);
      socket.destroy();
      resolve(code);
    };
    // The pipe's end (ssh gone): the server keeps running; only this bridge leaves.
    process.stdin.once('end', () => socket.end());
    process.stdin.once('close', () => socket.end());
    socket.once('close', () => finish(0));
    socket.once('error', (error) => {
      process.stderr.write(`weft app-server --attach: the connection to the app server failed: ${error.message}\n`);
      finish(1);
    });
  });
}

/** `--daemon`: the per-user server itself. Resolves when it leaves (idle, or SIGTERM/SIGINT). */
export async function runDaemon(createHost: () => Promise<CliHost>): Promise<number> {
  const log = (line: string): void => {
    process.stdout.write(`${new Date().toISOString()} ${line}\n`);
  };
  const paths = userSocketPaths(resolveWeftHome(process.env));
  const idleMs = Number(process.env['WEFT_APP_SERVER_IDLE_MS'] ?? DEFAULT_IDLE_MS);
  await ensurePrivateDir(paths.dir);
  const created = await openHost('app-server --daemon', createHost, undefined);
  if (created === null) return 1;
  let server: SocketServer;
  try {
    server = await listenFresh(created, paths, log);
  } catch (error) {
    await closeHost('app-server --daemon', created, log);
    if (error instanceof AlreadyServed) {
      log('weft app-server --daemon: another server already listens; leaving');
      return 0;
    }
    log(`weft app-server --daemon: ${errorMessage(error)}`);
    return 1;
  }
  // Whole or not at all (a temp file renamed over it): attaches of other versions read it to ask this one
  // to make way, and one reading a half-written file would read no pid.
  const pidTemp = `${paths.pidFile}.${process.pid}.tmp`;
  await writeFile(pidTemp, `${process.pid}\n`, { mode: 0o600 });
  await rename(pidTemp, paths.pidFile);
  log(`weft app-server ${VERSION} listening on ${paths.socket} (pid ${process.pid})`);
  await new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | null = null;
    /** Who this server made way for (`Weft 0.2.0`); null while it serves. */
    let replacedBy: string | null = null;
    let stopped = false;
    const arm = (): void => {
      if (timer !== null) clearTimeout(timer);
      timer =
        server.connections > 0
          ? null
          : setTimeout(() => void checkIdle(), replacedBy === null ? idleMs : RETIRED_CHECK_MS);
    };
    const checkIdle = async (): Promise<void> => {
      if (await nothingLoaded(created)) stop(replacedBy === null ? 'idle' : `replaced by ${replacedBy}`);
      else arm();
    };
    const stop = (why: string): void => {
      if (stopped) return;
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      process.off('SIGUSR2', onMakeWay);
      log(`weft app-server --daemon: leaving (${why})`);
      resolve();
    };
    const onSignal = (): void => stop('signal');
    const makeWay = async (): Promise<void> => {
      if (replacedBy !== null || stopped) return;
      const others = await otherServers(resolveWeftHome(process.env));
      replacedBy = others.length === 0 ? 'another Weft' : others.map((o) => `Weft ${o.version}`).join(', ');
      log(`weft app-server --daemon: ${replacedBy} serves this WEFT_HOME now; taking no new client`);
      server.stopListening();
      // The threads it holds are let go as soon as nobody watches them: the new server can take them.
      created.makeWay?.();
      arm();
    };
    const onMakeWay = (): void => void makeWay();
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    process.on('SIGUSR2', onMakeWay);
    server.onConnectionsChanged(arm);
    arm();
    void askOthersToMakeWay(log);
  });
  await server.close();
  await rm(paths.pidFile, { force: true });
  await closeHost('app-server --daemon', created, log);
  return 0;
}

/**
 * Tells the servers of other versions for this WEFT_HOME to make way for this one (SIGUSR2), each checked
 * to be a `weft app-server --daemon` first (a pid file may outlive its process, and its pid be reused).
 */
async function askOthersToMakeWay(log: (line: string) => void): Promise<void> {
  for (const other of await otherServers(resolveWeftHome(process.env))) {
    const argv = (await readFile(`/proc/${other.pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (!argv.includes('app-server') || !argv.includes('--daemon')) continue;
    try {
      process.kill(other.pid, 'SIGUSR2');
      log(`weft app-server --daemon: asked the server of Weft ${other.version} (pid ${other.pid}) to make way`);
    } catch (error) {
      log(`weft app-server --daemon: could not ask pid ${other.pid} to make way: ${errorMessage(error)}`);
    }
  }
}

class AlreadyServed extends Error {}

/** Listens on the socket; a socket file nobody answers on is a leftover of a server that died, and goes. */
async function listenFresh(
  created: CliHost,
  paths: UserSocketPaths,
  log: (line: string) => void,
): Promise<SocketServer> {
  try {
    return await listenOnSocket(created.host, paths.socket, log);
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'EADDRINUSE')) throw error;
  }
  const live = await connectTo(paths.socket);
  if (live !== null) {
    live.destroy();
    throw new AlreadyServed();
  }
  await rm(paths.socket, { force: true });
  return listenOnSocket(created.host, paths.socket, log);
}

async function nothingLoaded(created: CliHost): Promise<boolean> {
  const client = await connectHostClient(created.host, {
    label: 'idle check',
    clientInfo: { name: 'weft-idle-check', version: VERSION },
    log: () => undefined,
  });
  try {
    return (await client.request('thread/loaded/list', {})).data.length === 0;
  } finally {
    client.close();
  }
}
