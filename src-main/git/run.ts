// Runs git asynchronously (never blocking the process): each call is one `git` child process with the
// repository's folder as cwd. A failure carries the command and git's own message, verbatim.
import { execFile, spawn } from 'node:child_process';

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
  /** Extra environment (over the process's). */
  env?: NodeJS.ProcessEnv;
  /** Each line git writes to stderr, as it arrives (progress). */
  onStderrLine?: (line: string) => void;
  signal?: AbortSignal;
}

export interface GitOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** git's output is bounded only by the repository; 512 MiB keeps a runaway diff from exhausting memory. */
const MAX_BUFFER = 512 * 1024 * 1024;

/** Environment every call gets: no pager, no prompts on a terminal, stable messages. */
function gitEnv(extra: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  return { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C', ...extra };
}

export async function git(cwd: string, args: readonly string[], options: GitRunOptions = {}): Promise<GitOutput> {
  const command = ['git', ...args];
  if (options.onStderrLine !== undefined || options.input !== undefined) return gitStreaming(cwd, args, options);
  return new Promise<GitOutput>((resolve, reject) => {
    execFile(
      'git',
      ['-c', 'core.quotepath=off', ...args],
      { cwd, env: gitEnv(options.env), maxBuffer: MAX_BUFFER, encoding: 'utf8', signal: options.signal },
      (error, stdout, stderr) => {
        if (error === null) {
          resolve({ stdout, stderr, exitCode: 0 });
          return;
        }
        const code = typeof error.code === 'number' ? error.code : null;
        if (code !== null && (options.okExitCodes ?? []).includes(code)) {
          resolve({ stdout, stderr, exitCode: code });
          return;
        }
        if (error.code === 'ENOENT') {
          reject(new GitCommandError(command, null, 'git is not installed (or not on PATH)'));
          return;
        }
        // Some commands (commit) say why they refused on stdout.
        reject(
          new GitCommandError(
            command,
            code,
            stderr.trim() !== '' ? stderr : stdout.trim() !== '' ? stdout : error.message,
          ),
        );
      },
    );
  });
}

function gitStreaming(cwd: string, args: readonly string[], options: GitRunOptions): Promise<GitOutput> {
  const command = ['git', ...args];
  return new Promise<GitOutput>((resolve, reject) => {
    const child = spawn('git', ['-c', 'core.quotepath=off', ...args], {
      cwd,
      env: gitEnv(options.env),
      signal: options.signal,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let pendingLine = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      err.push(chunk);
      if (options.onStderrLine === undefined) return;
      // Progress is redrawn with \r; each redraw is a line for the listener.
      const parts = (pendingLine + chunk.toString('utf8')).split(/\r\n|\r|\n/);
      pendingLine = parts.pop() ?? '';
      for (const line of parts) if (line.trim() !== '') options.onStderrLine(line);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(
        new GitCommandError(
          command,
          null,
          error.code === 'ENOENT' ? 'git is not installed (or not on PATH)' : error.message,
        ),
      );
    });
    child.on('close', (code) => {
      if (pendingLine.trim() !== '') options.onStderrLine?.(pendingLine);
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      const exitCode = code ?? -1;
      if (exitCode === 0 || (options.okExitCodes ?? []).includes(exitCode)) resolve({ stdout, stderr, exitCode });
      else reject(new GitCommandError(command, code, stderr.trim() !== '' ? stderr : stdout));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}
