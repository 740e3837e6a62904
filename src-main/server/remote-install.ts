/**
 * Installs this Weft on an environment whose Weft is missing or cannot serve this one: the package `npm
 * pack` makes of this installation (or a tarball made the same way) is streamed over the environment's own
 * pipe (ssh, or the program before `weft` in its `command`), installed with the remote's npm under
 * `~/.weft/remote/<version>` (npm fetches the dependencies there, native ones included, so nothing built
 * here for this machine is copied), and the environment's `weft` (or `command`) is pointed at it.
 *
 * Steps, each told through `onProgress`: pack → node (Node and npm there, against package.json's
 * `engines`) → upload → install → verify (`weft --version` there). Each remote step has a time limit, and
 * an abort signal stops the one running (its process is killed); nothing is left half-written under the
 * final name (the upload is checked by size before it is used).
 */
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { userConfigFile, writeConfigValue } from '../config';
import { DEFAULT_REMOTE_WEFT, sshArgv, type EnvironmentConfig } from '../config/environments';
import { formatKeyPath } from '../config/toml-keys';

export type InstallStage = 'pack' | 'node' | 'upload' | 'install' | 'verify' | 'config';

export interface InstallProgress {
  stage: InstallStage;
  /** One line for people ("Checking Node on box…", a line of npm's output). */
  message: string;
}

export interface InstallOptions {
  name: string;
  environment: EnvironmentConfig;
  /** The version to install (this Weft's). */
  version: string;
  /** A tarball made by `npm pack`; default: one packed now from this installation. */
  packagePath?: string | undefined;
  onProgress?: (progress: InstallProgress) => void;
  signal?: AbortSignal;
  /** Limits for the remote steps (tests shorten them). */
  probeTimeoutMs?: number;
  installTimeoutMs?: number;
}

export interface InstallResult {
  version: string;
  /** Where it was installed there (absolute). */
  directory: string;
  /** The Node version there. */
  node: string;
  /** What the environment should now run: the new `weft` string (ssh) or `command` argv. */
  update: { key: 'weft'; value: string } | { key: 'command'; value: string[] };
}

/** An install that failed, for people; `stage` is the step that failed. */
export class InstallError extends Error {
  constructor(
    readonly stage: InstallStage,
    message: string,
  ) {
    super(message);
    this.name = 'InstallError';
  }
}

// ---------------------------------------------------------------------------------------------------------
// The remote shell

/** Quotes `text` as one word for a POSIX shell. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The words of a shell command as written (quotes kept), split on unquoted blanks. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i] ?? '';
    if (quote !== null) {
      word += c;
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < command.length) word += command[++i] ?? '';
    } else if (c === "'" || c === '"') {
      quote = c;
      word += c;
    } else if (c === '\\' && i + 1 < command.length) {
      word += c + (command[++i] ?? '');
    } else if (/\s/.test(c)) {
      if (word !== '') words.push(word);
      word = '';
    } else word += c;
  }
  if (word !== '') words.push(word);
  return words;
}

/**
 * The variable assignments a `weft` command starts with (`WEFT_HOME=/data PATH=/opt/node/bin:$PATH weft`),
 * as written: the install runs with them, and the new command keeps them.
 */
export function leadingAssignments(weft: string): string[] {
  const out: string[] = [];
  for (const word of shellWords(weft)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) break;
    out.push(word);
  }
  return out;
}

/**
 * How to run a shell script on the environment: ssh with the environment's own arguments and `sh -c
 * SCRIPT` as the remote command; for a `command`, the program before its `weft … app-server` (such as
 * `docker exec -i box` or `kubectl exec -i pod --`) with `sh -c SCRIPT`. `at` is the index of the `weft`
 * word in `command`, replaced when the environment is pointed at the new install.
 */
export function environmentShell(
  name: string,
  environment: EnvironmentConfig,
  script: string,
): { argv: string[]; assignments: string[]; replace: [number, number] | null } {
  if (environment.command === undefined) {
    const assignments = leadingAssignments(environment.weft ?? DEFAULT_REMOTE_WEFT);
    const exports = assignments.length === 0 ? '' : `export ${assignments.join(' ')}\n`;
    return { argv: sshArgv(environment, `sh -c ${shellQuote(exports + script)}`), assignments, replace: null };
  }
  const command = environment.command;
  const at = command.findIndex((word, i) => command[i + 1] === 'app-server' && /(^|\/)weft(\.js)?$/.test(word));
  if (at < 0) {
    throw new InstallError(
      'node',
      `cannot tell where the command of environment "${name}" starts Weft (no \`weft app-server\` in it): install Weft there yourself (\`npm pack\` here, copy the tarball, \`npm install --prefix ~/.weft/remote/VERSION ./weft-VERSION.tgz\` there) and point \`command\` at it`,
    );
  }
  // `node /path/bin/weft.js app-server`: the program before is `node`, which the new command drops too.
  const start = at > 0 && /(^|\/)node$/.test(command[at - 1] ?? '') && command[at]?.endsWith('.js') ? at - 1 : at;
  return { argv: [...command.slice(0, start), 'sh', '-c', script], assignments: [], replace: [start, at + 1] };
}

interface RunOptions {
  stdinFile?: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  onLine?: (line: string) => void;
  what: string;
  stage: InstallStage;
}

/** Runs `argv`, its output kept (and told line by line); killed on timeout or abort, which throw. */
function run(argv: string[], options: RunOptions): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const [program = '', ...args] = argv;
    const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let partial = '';
    let settled = false;
    const finish = (error: Error | null, code: number | null = null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (error !== null) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 2000).unref();
        }
        reject(error);
      } else resolve({ code, stdout, stderr });
    };
    const onAbort = (): void => finish(new InstallError(options.stage, `cancelled while ${options.what}`));
    const timer = setTimeout(
      () => finish(new InstallError(options.stage, `${options.what} took longer than ${options.timeoutMs / 1000} s`)),
      options.timeoutMs,
    );
    timer.unref();
    if (options.signal?.aborted === true) {
      onAbort();
      return;
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const lines = (chunk: string): void => {
      partial += chunk;
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) if (line.trim() !== '') options.onLine?.(line.trimEnd());
    };
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      stdout += text;
      lines(text);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      stderr = (stderr + text).slice(-8192);
      lines(text);
    });
    child.stdin.on('error', () => undefined);
    child.once('error', (error) =>
      finish(new InstallError(options.stage, `cannot start ${program}: ${error.message}`)),
    );
    child.once('close', (code) => finish(null, code));
    if (options.stdinFile === undefined) child.stdin.end();
    else {
      const input = createReadStream(options.stdinFile);
      input.once('error', (error) => finish(new InstallError(options.stage, error.message)));
      input.pipe(child.stdin);
    }
  });
}

function lastLines(text: string, count = 3): string {
  return text
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(-count)
    .join(' | ');
}

// ---------------------------------------------------------------------------------------------------------
// This installation: its package root, its `engines`, its package

/** The folder of this Weft's package.json (a checkout or an npm install), or null (a desktop app bundle). */
export async function packageRoot(from = fileURLToPath(import.meta.url)): Promise<string | null> {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const json = await readFile(join(dir, 'package.json'), 'utf8').then(
      (text) => JSON.parse(text) as { name?: unknown; engines?: { node?: unknown } },
      () => null,
    );
    if (json?.name === 'weft') return dir;
    if (dirname(dir) === dir) return null;
  }
}

/** The lowest Node version package.json's `engines.node` (`>=22.12.0`) accepts; [22, 12, 0] when unreadable. */
export async function requiredNode(root?: string | null): Promise<[number, number, number]> {
  const folder = root === undefined ? await packageRoot() : root;
  if (folder !== null) {
    const json = await readFile(join(folder, 'package.json'), 'utf8').then(
      (text) => JSON.parse(text) as { engines?: { node?: unknown } },
      () => null,
    );
    const match = /^>=\s*(\d+)\.(\d+)\.(\d+)/.exec(String(json?.engines?.node ?? ''));
    if (match !== null) return [Number(match[1]), Number(match[2]), Number(match[3])];
  }
  return [22, 12, 0];
}

/** Whether `version` (`v24.1.0`) is at least `least`. */
export function nodeAtLeast(version: string, least: [number, number, number]): boolean {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (match === null) return false;
  const have = [Number(match[1]), Number(match[2]), Number(match[3])];
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) !== (least[i] ?? 0)) return (have[i] ?? 0) > (least[i] ?? 0);
  }
  return true;
}

/**
 * The folder to pack: the installation itself when it carries its dependency tree (`npm-shrinkwrap.json`)
 * or has none to give; a checkout's copy (package.json's `files`) with its `package-lock.json` as the
 * shrinkwrap otherwise. With the tree in the package, npm there installs exactly the versions this Weft
 * was built and tested with, by their integrity, without asking the registry which versions to take (and
 * from its cache alone when it has them).
 */
async function withLockedTree(root: string, dir: string): Promise<string> {
  const has = async (name: string): Promise<boolean> => (await stat(join(root, name)).catch(() => null)) !== null;
  if ((await has('npm-shrinkwrap.json')) || !(await has('package-lock.json'))) return root;
  const staging = join(dir, 'package');
  const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { files?: unknown };
  const files = Array.isArray(manifest.files) ? manifest.files.filter((f): f is string => typeof f === 'string') : [];
  await mkdir(staging, { recursive: true });
  for (const entry of [...files, 'README.md', 'LICENSE']) {
    const from = join(root, entry);
    if ((await stat(from).catch(() => null)) === null) continue;
    await cp(from, join(staging, entry), { recursive: true });
  }
  // npm pack leaves the shrinkwrap out of a package whose `files` does not name it (npm 9 and later), so
  // the staged package.json names it.
  const staged = Array.isArray(manifest.files) ? { ...manifest, files: [...files, 'npm-shrinkwrap.json'] } : manifest;
  await writeFile(join(staging, 'package.json'), `${JSON.stringify(staged, null, 2)}\n`);
  await cp(join(root, 'package-lock.json'), join(staging, 'npm-shrinkwrap.json'));
  return staging;
}

/** `npm pack` of this installation into a new temporary folder (its install scripts not run: it is built). */
export async function packThis(signal?: AbortSignal): Promise<string> {
  const root = await packageRoot();
  if (root === null) {
    throw new InstallError(
      'pack',
      'this Weft is not an npm package on disk (a desktop app bundle?), so it cannot be packed: run `npm pack` in a Weft checkout and pass the tarball (`weft environments install NAME --package FILE`)',
    );
  }
  if ((await stat(join(root, 'dist', 'cli')).catch(() => null)) === null) {
    throw new InstallError('pack', `${root} has no dist/cli: build it first (\`npm run build\`)`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'weft-pack-'));
  const source = await withLockedTree(root, dir).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw new InstallError('pack', `could not stage ${root} for packing: ${String(error)}`);
  });
  const result = await run(['npm', 'pack', '--ignore-scripts', '--silent', '--pack-destination', dir, source], {
    timeoutMs: 120_000,
    signal,
    what: 'packing Weft with npm',
    stage: 'pack',
  }).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  if (source !== root) await rm(source, { recursive: true, force: true });
  const made = (await readdir(dir)).find((f) => f.endsWith('.tgz'));
  if (result.code !== 0 || made === undefined) {
    await rm(dir, { recursive: true, force: true });
    throw new InstallError('pack', `npm pack failed in ${root}: ${lastLines(result.stderr) || `exit ${result.code}`}`);
  }
  return join(dir, made);
}

// ---------------------------------------------------------------------------------------------------------
// The install

const MARK = 'weft-install:';

function probeScript(): string {
  return [
    `printf '${MARK} home %s\\n' "$HOME"`,
    `if command -v node >/dev/null 2>&1; then printf '${MARK} node %s\\n' "$(node --version)"; else echo '${MARK} node none'; fi`,
    `if command -v npm >/dev/null 2>&1; then printf '${MARK} npm %s\\n' "$(npm --version)"; else echo '${MARK} npm none'; fi`,
  ].join('\n');
}

/** Removes a package.json's build and publish scripts (argv[1]: its path), which `npm ci` would run. */
const DROP_BUILD_SCRIPTS = [
  'const file = process.argv[1];',
  "const pkg = JSON.parse(require('fs').readFileSync(file, 'utf8'));",
  "for (const name of ['prepare', 'preprepare', 'postprepare', 'prepublish']) delete (pkg.scripts ?? {})[name];",
  "require('fs').writeFileSync(file, JSON.stringify(pkg, null, 2));",
].join(' ');

function installScript(directory: string, version: string, bytes: number): string {
  const dir = shellQuote(directory);
  const tarball = shellQuote(`${directory}/weft-${version}.tgz`);
  return [
    'set -e',
    `mkdir -p ${dir}`,
    `part=${tarball}.part`,
    'cat > "$part"',
    'size=$(wc -c < "$part" | tr -d " ")',
    `if [ "$size" != "${bytes}" ]; then echo "${MARK} upload stopped at $size of ${bytes} bytes" >&2; rm -f "$part"; exit 3; fi`,
    `mv "$part" ${tarball}`,
    // A package that pins its dependency tree (npm-shrinkwrap.json, as a package made of a checkout does)
    // is unpacked where npm would put it and its tree installed by `npm ci` from the shrinkwrap: each
    // dependency at its pinned version, fetched by its integrity from npm's cache there or the registry,
    // native ones built for that machine. (`npm install` of the tarball asked the registry for every
    // dependency's metadata first, even with everything pinned: offline, with a cache that holds the
    // packages but not their metadata, it failed.) The package's own build and publish scripts are left
    // out: it is built, and a dependency's `prepare` is not run by `npm install` either. Without a
    // shrinkwrap, npm resolves what package.json allows. --prefer-offline: what the cache holds is not
    // downloaded again.
    `if tar -xOzf ${tarball} package/npm-shrinkwrap.json >/dev/null 2>&1; then`,
    `  echo "${MARK} uploaded locked"`,
    `  pkg=${dir}/node_modules/weft`,
    `  rm -rf "$pkg" && mkdir -p "$pkg" ${dir}/node_modules/.bin`,
    `  tar -xzf ${tarball} -C "$pkg" --strip-components=1`,
    `  node -e ${shellQuote(DROP_BUILD_SCRIPTS)} "$pkg/package.json"`,
    `  (cd "$pkg" && npm ci --omit=dev --no-audit --no-fund --prefer-offline 2>&1)`,
    `  bin=$(node -p 'require(process.argv[1]).bin.weft' "$pkg/package.json")`,
    `  chmod +x "$pkg/$bin"`,
    `  ln -sfn "../weft/$bin" ${dir}/node_modules/.bin/weft`,
    'else',
    `  echo "${MARK} uploaded"`,
    `  npm install --prefix ${dir} --no-save --no-audit --no-fund --omit=dev --prefer-offline ${tarball} 2>&1`,
    'fi',
    `echo "${MARK} installed"`,
    `printf '${MARK} version %s\\n' "$(${shellQuote(`${directory}/node_modules/.bin/weft`)} --version)"`,
  ].join('\n');
}

function marked(stdout: string, key: string): string | null {
  for (const line of stdout.split('\n')) {
    if (line.startsWith(`${MARK} ${key} `)) return line.slice(MARK.length + key.length + 2).trim();
  }
  return null;
}

/**
 * Node and npm on the environment (through the same shell the install uses), against package.json's
 * `engines`: resolves with them, or throws an `InstallError` saying what is missing or too old there.
 */
export async function checkNode(
  name: string,
  environment: EnvironmentConfig,
  version: string,
  options: { signal?: AbortSignal | undefined; timeoutMs?: number } = {},
): Promise<{ home: string; node: string; npm: string }> {
  // A command whose Weft cannot be told apart fails here, before anything runs.
  const probe = environmentShell(name, environment, probeScript());
  const probed = await run(probe.argv, {
    timeoutMs: options.timeoutMs ?? 60_000,
    signal: options.signal,
    what: `checking Node on ${name}`,
    stage: 'node',
  });
  const home = marked(probed.stdout, 'home');
  const node = marked(probed.stdout, 'node');
  const npm = marked(probed.stdout, 'npm');
  if (probed.code !== 0 || home === null || node === null || npm === null) {
    throw new InstallError(
      'node',
      `cannot run a shell on ${name}: ${lastLines(probed.stderr) || `its pipe exited with ${String(probed.code)}`}`,
    );
  }
  const least = await requiredNode();
  const leastText = least.join('.');
  const where =
    environment.command === undefined
      ? ` (or put its folder on the PATH in \`weft\`, e.g. weft = "PATH=/opt/node/bin:$PATH weft")`
      : '';
  if (node === 'none') {
    throw new InstallError(
      'node',
      `${name} has no \`node\` on its PATH: install Node ${leastText} or later there${where}`,
    );
  }
  if (!nodeAtLeast(node, least)) {
    throw new InstallError(
      'node',
      `${name} runs Node ${node}, and Weft ${version} needs Node ${leastText} or later (package.json's engines): install a newer Node there${where}`,
    );
  }
  if (npm === 'none') {
    throw new InstallError('node', `${name} has Node ${node} but no \`npm\` on its PATH: install npm there${where}`);
  }
  if (!home.startsWith('/')) throw new InstallError('node', `${name}'s shell has no usable $HOME ("${home}")`);
  return { home, node, npm };
}

export async function installOnEnvironment(options: InstallOptions): Promise<InstallResult> {
  const { name, environment, version, signal } = options;
  const say = (stage: InstallStage, message: string): void => options.onProgress?.({ stage, message });
  if (!/^\d+\.\d+\.\d+[0-9A-Za-z.+-]*$/.test(version)) throw new InstallError('pack', `"${version}" is not a version`);

  const probe = environmentShell(name, environment, probeScript());
  say('node', `Checking Node and npm on ${name}…`);
  const { home, node, npm } = await checkNode(name, environment, version, {
    signal,
    timeoutMs: options.probeTimeoutMs ?? 60_000,
  });
  say('node', `${name} runs Node ${node} and npm ${npm}.`);

  let packed: string | null = null;
  try {
    let tarball = options.packagePath;
    if (tarball === undefined) {
      say('pack', `Packing Weft ${version} (npm pack)…`);
      packed = await packThis(signal);
      tarball = packed;
    }
    const bytes = (
      await stat(tarball).catch(() => {
        throw new InstallError('pack', `no package at ${tarball}`);
      })
    ).size;
    const directory = `${home.replace(/\/+$/, '')}/.weft/remote/${version}`;
    say('upload', `Copying ${basename(tarball)} (${(bytes / 1e6).toFixed(1)} MB) to ${name}:${directory}…`);
    let uploaded = false;
    const installed = await run(environmentShell(name, environment, installScript(directory, version, bytes)).argv, {
      stdinFile: tarball,
      timeoutMs: options.installTimeoutMs ?? 20 * 60_000,
      signal,
      what: `installing Weft on ${name}`,
      stage: 'install',
      onLine: (line) => {
        if (line === `${MARK} uploaded` || line === `${MARK} uploaded locked`) {
          uploaded = true;
          say(
            'install',
            line.endsWith(' locked')
              ? `Installing with npm on ${name}: the dependency versions this Weft was tested with (its npm-shrinkwrap.json), from npm's cache there or the registry…`
              : `Installing with npm on ${name}: the newest dependency versions package.json allows (the package pins none), from npm's cache there or the registry…`,
          );
        } else if (line === `${MARK} installed`) say('verify', `Checking the installed Weft…`);
        else if (!line.startsWith(MARK)) say(uploaded ? 'install' : 'upload', line);
      },
    });
    const installedVersion = marked(installed.stdout, 'version');
    if (installed.code !== 0 || installedVersion === null) {
      const stage: InstallStage = !uploaded
        ? 'upload'
        : installed.stdout.includes(`${MARK} installed`)
          ? 'verify'
          : 'install';
      const tail = lastLines(`${installed.stdout}\n${installed.stderr}`.replaceAll(`${MARK} `, ''), 4);
      throw new InstallError(
        stage,
        stage === 'upload'
          ? `copying the package to ${name} failed: ${tail || `exit ${String(installed.code)}`}`
          : stage === 'install'
            ? `npm install failed on ${name}: ${tail || `exit ${String(installed.code)}`}`
            : `the installed Weft does not start on ${name}: ${tail}`,
      );
    }
    if (!installedVersion.includes(version)) {
      throw new InstallError('verify', `the installed Weft on ${name} says "${installedVersion}", not ${version}`);
    }
    const bin = `${directory}/node_modules/.bin/weft`;
    const update: InstallResult['update'] =
      environment.command === undefined || probe.replace === null
        ? { key: 'weft', value: [...probe.assignments, shellQuote(bin)].join(' ') }
        : {
            key: 'command',
            value: [
              ...environment.command.slice(0, probe.replace[0]),
              bin,
              ...environment.command.slice(probe.replace[1]),
            ],
          };
    say('verify', `Weft ${version} is installed on ${name} in ${directory}.`);
    return { version, directory, node, update };
  } finally {
    if (packed !== null) await rm(dirname(packed), { recursive: true, force: true });
  }
}

/** `[environments.NAME]`'s new `weft` or `command` written to the user's config.toml (its comments kept). */
export async function pointEnvironmentAt(
  weftHome: string,
  name: string,
  update: InstallResult['update'],
): Promise<string> {
  const file = userConfigFile(weftHome);
  await writeConfigValue(file, formatKeyPath(['environments', name, update.key]), update.value);
  return file;
}

/** How `update` reads in config.toml, for people: `weft = "…"` or `command = […]`. */
export function describeUpdate(update: InstallResult['update']): string {
  return `${update.key} = ${JSON.stringify(update.value)}`;
}
