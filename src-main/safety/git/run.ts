/**
 * The one way Weft runs git for the user (a unit test fails on any other `git` child process in
 * `src-main`). Each call is one `git` child process with the repository's folder as cwd, never blocking
 * the process; a failure carries the command and git's own message, verbatim.
 *
 * Every call first reads the repository's configuration with its scopes (`git config --list
 * --show-scope`, which runs no program) and runs git with `config-guard.ts`'s overrides: nothing the
 * repository's own config names as a program runs, no fsmonitor, no step into nested repositories, hooks
 * only for commit and push and only from `hooks.ts`'s directory. Diffs get `--no-ext-diff --no-textconv`
 * and status and diffs `--ignore-submodules=dirty` (a submodule's commit is compared, its work tree is not
 * opened). stdin is closed unless the call writes to it.
 */
import {
  configEnv,
  parseConfigList,
  PINNED_CONFIG,
  repositoryOverrides,
  subcommandOverrides,
  type ConfigEntry,
} from './config-guard';
import { spawnHosted } from '../../util/spawn-host/hosted-child';
import { planHooks } from './hooks';

/** A git command that failed: `command` is the argv (starting with `git`), `stderr` git's message. */
export class GitCommandError extends Error {
  constructor(
    readonly command: string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(
      `${command.join(' ')} failed${exitCode === null ? '' : ` (exit ${exitCode})`}: ${stderr.trim() || 'no message'}`,
    );
    this.name = 'GitCommandError';
  }
}

export interface GitRunOptions {
  /** Written to git's stdin (e.g. a patch for `git apply`). */
  input?: string | Buffer;
  /** Exit statuses that are not failures (e.g. 1 for `git diff --no-index`). */
  okExitCodes?: readonly number[];
  /** Each line git writes to stderr, as it arrives (progress). */
  onStderrLine?: (line: string) => void;
  signal?: AbortSignal;
  /** Kills git (and fails the call) after this long. */
  timeoutMs?: number;
  /**
   * `repository`: the hooks of `hooks.ts`'s directory run (commit, push). Default `none`: no hook runs.
   */
  hooks?: 'none' | 'repository';
  /** false: git takes no lock it can do without (`--no-optional-locks`: a status leaves the index alone). */
  optionalLocks?: boolean;
}

export interface GitOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** git's output is bounded only by the repository; 512 MiB keeps a runaway diff from exhausting memory. */
const MAX_OUTPUT = 512 * 1024 * 1024;

/** Where a repository's location would come from instead of the call's cwd; each call names its own. */
const REPOSITORY_ENV = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
  'GIT_EXTERNAL_DIFF',
];

/** Subcommands that diff, and the options that keep their diffs to git's own code. */
const DIFF_COMMANDS = new Set(['diff', 'show', 'log']);
const DIFF_FLAGS = ['--no-ext-diff', '--no-textconv', '--ignore-submodules=dirty'];

/** The environment every call starts from: no prompts, no pager, stable messages, no inherited repository. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!REPOSITORY_ENV.includes(name)) env[name] = value;
  return { ...env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C' };
}

/** The argv after `git`: global options first, then the subcommand with its guard flags. */
function guardedArgs(args: readonly string[], optionalLocks: boolean, entries: readonly ConfigEntry[]): string[] {
  const global = ['--no-pager', ...(optionalLocks ? [] : ['--no-optional-locks']), '-c', 'core.quotepath=off'];
  const [sub, ...rest] = args;
  if (sub === undefined) return global;
  const flags = DIFF_COMMANDS.has(sub) ? DIFF_FLAGS : sub === 'status' ? ['--ignore-submodules=dirty'] : [];
  return [...global, sub, ...flags, ...subcommandOverrides(sub, entries), ...rest];
}

/**
 * Listings in flight, by cwd: calls that start while one is being read share it (a status runs several
 * git commands side by side).
 */
const listings = new Map<string, Promise<ConfigEntry[]>>();

function configListing(cwd: string, env: NodeJS.ProcessEnv): Promise<ConfigEntry[]> {
  const pending = listings.get(cwd);
  if (pending !== undefined) return pending;
  // Not aborted with any one caller's signal: others may share it, and it reads a few small files.
  const listing = spawnGit(cwd, ['--no-pager', 'config', '--list', '--show-scope', '-z'], env, {}).then((out) =>
    parseConfigList(out.stdout),
  );
  listings.set(cwd, listing);
  const forget = () => {
    if (listings.get(cwd) === listing) listings.delete(cwd);
  };
  listing.then(forget, forget);
  return listing;
}

/**
 * The configuration a call runs with: the pinned keys, the hooks directory and the overrides of what
 * the repository's config names.
 */
async function guardConfig(
  cwd: string,
  hooks: 'none' | 'repository',
  env: NodeJS.ProcessEnv,
  signal: AbortSignal | undefined,
): Promise<{ entries: ConfigEntry[]; config: (readonly [string, string])[] }> {
  const entries = await configListing(cwd, env);
  let hooksPath = '/dev/null';
  if (hooks === 'repository') {
    const { top, commonDir } = await repositoryDirs(cwd, env, signal);
    hooksPath = (await planHooks(entries, top, commonDir)).directory ?? '/dev/null';
  }
  return { entries, config: [...PINNED_CONFIG, ['core.hooksPath', hooksPath], ...repositoryOverrides(entries, env)] };
}

async function repositoryDirs(
  cwd: string,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal | undefined,
): Promise<{ top: string; commonDir: string }> {
  const out = await spawnGit(
    cwd,
    ['--no-pager', 'rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir'],
    env,
    { okExitCodes: [], signal },
  );
  const [top = '', commonDir = ''] = out.stdout.split('\n');
  return { top, commonDir };
}

/** The repository's configuration with scopes, as the guard reads it (for the hooks the UI announces). */
export async function gitConfigEntries(cwd: string): Promise<ConfigEntry[]> {
  return configListing(cwd, baseEnv());
}

export async function git(cwd: string, args: readonly string[], options: GitRunOptions = {}): Promise<GitOutput> {
  const signal =
    options.timeoutMs === undefined
      ? options.signal
      : options.signal === undefined
        ? AbortSignal.timeout(options.timeoutMs)
        : AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]);
  const env = baseEnv();
  const { entries, config } = await guardConfig(cwd, options.hooks ?? 'none', env, signal);
  return spawnGit(
    cwd,
    guardedArgs(args, options.optionalLocks !== false, entries),
    { ...env, ...configEnv(config, env) },
    { ...options, signal },
    ['git', ...args],
  );
}

function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}

function spawnGit(
  cwd: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  options: GitRunOptions,
  command: string[] = ['git', ...argv],
): Promise<GitOutput> {
  return new Promise<GitOutput>((resolve, reject) => {
    const child = spawnHosted('git', argv, {
      cwd,
      env: definedEnv(env),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      stdin: options.input === undefined ? 'ignore' : 'pipe',
    });
    const { stdout: childOut, stderr: childErr } = child;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let pendingLine = '';
    const tooBig = () => {
      size = -1;
      child.kill('SIGKILL');
    };
    childOut.on('data', (chunk: Buffer) => {
      if (size < 0) return;
      size += chunk.length;
      if (size > MAX_OUTPUT) tooBig();
      else out.push(chunk);
    });
    childErr.on('data', (chunk: Buffer) => {
      err.push(chunk);
      if (options.onStderrLine === undefined) return;
      // Progress is redrawn with \r; each redraw is a line for the listener.
      const parts = (pendingLine + chunk.toString('utf8')).split(/\r\n|\r|\n/);
      pendingLine = parts.pop() ?? '';
      for (const line of parts) if (line.trim() !== '') options.onStderrLine(line);
    });
    let failed = false;
    child.on('error', (error: NodeJS.ErrnoException) => {
      failed = true;
      reject(
        new GitCommandError(
          command,
          null,
          error.code === 'ENOENT'
            ? 'git is not installed (or not on PATH)'
            : error.name === 'AbortError'
              ? `stopped: ${error.message}`
              : error.message,
        ),
      );
    });
    child.on('close', (code) => {
      if (failed) return;
      if (pendingLine.trim() !== '') options.onStderrLine?.(pendingLine);
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (size < 0) {
        reject(new GitCommandError(command, null, `git wrote more than ${MAX_OUTPUT / 1048576} MiB; stopped`));
        return;
      }
      const exitCode = code ?? -1;
      if (exitCode === 0 || (options.okExitCodes ?? []).includes(exitCode)) resolve({ stdout, stderr, exitCode });
      // Some commands (commit) say why they refused on stdout.
      else reject(new GitCommandError(command, code, stderr.trim() !== '' ? stderr : stdout));
    });
    if (options.input !== undefined && child.stdin !== null) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input);
    }
  });
}
