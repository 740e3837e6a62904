/**
 * `weft serve`: the web runtime. Serves the built renderer and the protocol over a WebSocket on
 * loopback, behind a random token carried in the printed URL.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startWebServer, WebServerStartError, type WebServer } from '../server/http-server';
import { resolveWeftHome } from '../config/home';
import { DisposableStore, toDisposable } from '../util/disposable';
import { errorMessage } from '../util/errors';
import {
  badPortMessage,
  openHost,
  parsePort,
  projectDir,
  stderrLog,
  waitForSignal,
  type CliHost,
} from './transport-setup';

export const DEFAULT_PORT = 4280;

const USAGE = `Usage: weft serve [options]

Serves the Weft UI and its WebSocket on this machine and prints the URL to open (it carries a
random token the socket requires). Stop with Ctrl-C.

Options:
      --port <n>      Port to listen on (default ${DEFAULT_PORT}; 0 picks a free port)
      --host <addr>   Address to listen on (default 127.0.0.1). A non-loopback address exposes the UI
                      to your network; the WebSocket still requires the token.
  -C, --cd <dir>      Project the UI opens on (default: the current directory; with --env, a folder
                      there, default the remote user's home)
      --env <name>    Serve the environment <name> of config.toml: the agent runs there (ssh, kubectl
                      exec…), the UI here
      --open          Open the URL in the default browser
      --token-file <f> Keep the token in this file, so a restarted server accepts pages already open
                      (default: WEFT_HOME/serve-token, created with a random token, mode 0600)
      --new-token     Replace the kept token with a new random one (pages opened before stop working)
      --token <t>     Use this token for this run only (for tests)
  -h, --help          Show this help
`;

export async function runServeCommand(
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
        host: { type: 'string' },
        cd: { type: 'string', short: 'C' },
        env: { type: 'string' },
        open: { type: 'boolean' },
        token: { type: 'string' },
        'token-file': { type: 'string' },
        'new-token': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    process.stderr.write(`weft serve: ${errorMessage(error)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const port = parsePort(values.port, DEFAULT_PORT);
  if (port === null) {
    process.stderr.write(badPortMessage('serve', values.port));
    return 2;
  }
  if (values.token !== undefined && values.token.length === 0) {
    process.stderr.write('weft serve: --token must not be empty\n');
    return 2;
  }
  let cwd: string | null;
  if (values.env !== undefined) {
    // The agent runs on the environment: the project is a folder there, and the host the relay to it.
    const remote = await (await import('./serve-remote')).openServeRemote(values.env, values.cd);
    if (remote === null) return 1;
    cwd = remote.cwd;
    createHost = () => Promise.resolve(remote.host);
  } else cwd = projectDir(values.cd);
  if (cwd === null) {
    process.stderr.write(`weft serve: --cd ${values.cd ?? ''}: no such directory\n`);
    return 2;
  }

  let token: string;
  try {
    token =
      values.token ??
      (await keptToken(
        values['token-file'] ?? join(resolveWeftHome(process.env), 'serve-token'),
        values['new-token'] === true,
      ));
  } catch (error) {
    process.stderr.write(`weft serve: ${errorMessage(error)}\n`);
    return 1;
  }

  const created = await openHost('serve', createHost, { cwd });
  if (created === null) return 1;
  // The host, then the server in front of it: released in reverse when `weft serve` stops.
  const owned = new DisposableStore();
  owned.add(
    toDisposable(() => created.close()),
    'the agent host',
  );
  const stop = (): Promise<void> =>
    owned.dispose().catch((error: unknown) => log(`weft serve: shutting down failed: ${errorMessage(error)}`));

  let server: WebServer;
  try {
    server = await startWebServer(created.host, {
      host: values.host ?? '127.0.0.1',
      port,
      hostExplicit: values.host !== undefined,
      staticDir: findRendererDir(),
      log,
      token,
    });
  } catch (error) {
    process.stderr.write(`weft serve: ${startErrorMessage(error, port)}\n`);
    await stop();
    return 1;
  }
  owned.add(server, 'the web server');

  // The page opens on the project: `--cd`'s, else the folder `weft serve` was started in.
  const url = `${server.url}&cwd=${encodeURIComponent(cwd)}`;
  process.stdout.write(`Weft is serving ${url}\n`);
  if (values.open) openInBrowser(url, log);

  await waitForSignal();
  log('weft serve: shutting down');
  await stop();
  return 0;
}

/**
 * The token kept in `file`: read when it holds one, else (or with `renew`) a new random token written
 * there atomically, readable by this user only.
 */
async function keptToken(file: string, renew: boolean): Promise<string> {
  if (!renew) {
    const text = await readFile(file, 'utf8').catch((error: unknown) => {
      if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return null;
      throw new Error(`cannot read the token file ${file}: ${errorMessage(error)}`, { cause: error });
    });
    const kept = text?.trim() ?? '';
    if (/^[A-Za-z0-9_-]{16,}$/.test(kept)) return kept;
  }
  const token = randomBytes(32).toString('base64url');
  const temp = `${file}.${process.pid}.tmp`;
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(temp, `${token}\n`, { mode: 0o600 });
    await chmod(temp, 0o600);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw new Error(`cannot write the token file ${file}: ${errorMessage(error)}`, { cause: error });
  }
  return token;
}

function startErrorMessage(error: unknown, port: number): string {
  if (error instanceof WebServerStartError && error.reason === 'address-in-use') {
    return `${error.message}. Pass --port 0 to pick a free port, or --port <n> to choose another.`;
  }
  if (error instanceof WebServerStartError) return error.message;
  return `cannot start the server on port ${port}: ${errorMessage(error)}`;
}

/**
 * The built renderer: `dist/renderer` in the package root. This module runs either bundled into
 * `dist/cli/` or from source in `src-main/cli/`; the first candidate that exists wins, otherwise the
 * bundled location is used and the server explains that the UI is not built.
 */
export function findRendererDir(): string {
  const candidates = [new URL('../renderer', import.meta.url), new URL('../../dist/renderer', import.meta.url)].map(
    (url) => fileURLToPath(url),
  );
  const existing = candidates.find((dir) => existsSync(resolve(dir, 'index.html')));
  return existing ?? candidates[0] ?? resolve('dist/renderer');
}

export function openInBrowser(url: string, log: (line: string) => void): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['explorer', [url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.on('error', (error) =>
      log(`weft serve: could not open a browser (${command}: ${error.message}); open the URL yourself`),
    );
    child.unref();
  } catch (error) {
    log(`weft serve: could not open a browser (${command}: ${errorMessage(error)}); open the URL yourself`);
  }
}
