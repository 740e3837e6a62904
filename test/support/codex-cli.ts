// Driving the real Codex CLI from the fixture tools (make-codex-fixtures.ts, check-codex-resume.ts): a
// Codex home pointed at a model on 127.0.0.1, `codex exec` runs, and app-server requests.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface CodexEnv {
  /** The codex binary. */
  codex: string;
  /** CODEX_HOME. */
  home: string;
  /** The project folder commands run in. */
  work: string;
}

/**
 * `text` with this machine's paths replaced by the ones fixtures keep: the Codex home, the project, the
 * scratch folder around them and the user's home (in that order: the longest first).
 */
export function scrubPaths(text: string, c: CodexEnv, scratch: string): string {
  return text
    .split(c.home)
    .join('/home/dev/.codex')
    .split(c.work)
    .join('/home/dev/src/demo')
    .split(scratch)
    .join('/home/dev')
    .split(`${homedir()}/`)
    .join('/home/dev/');
}

/** config.toml for a Codex home that talks to the mock model at `url` only. */
export function writeCodexConfig(c: CodexEnv, url: string, compactLimit: number | null = null): void {
  const lines = [
    'model = "mock-model"',
    'model_provider = "mock"',
    'approval_policy = "never"',
    'sandbox_mode = "workspace-write"',
    'model_reasoning_summary = "auto"',
    ...(compactLimit === null ? [] : [`model_auto_compact_token_limit = ${compactLimit}`]),
    '',
    '[model_providers.mock]',
    'name = "mock"',
    `base_url = "${url}"`,
    'wire_api = "responses"',
    'env_key = "MOCK_API_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    `[projects."${c.work}"]`,
    'trust_level = "trusted"',
    '',
  ];
  writeFileSync(join(c.home, 'config.toml'), lines.join('\n'));
}

function env(c: CodexEnv): NodeJS.ProcessEnv {
  return { ...process.env, CODEX_HOME: c.home, MOCK_API_KEY: 'mock-key', RUST_LOG: 'error', NO_COLOR: '1' };
}

export interface CodexRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs codex (asynchronously, so a model served from this process can answer). */
export function runCodex(c: CodexEnv, args: string[], timeoutMs = 120_000): Promise<CodexRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(c.codex, args, { cwd: c.work, env: env(c), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** The `thread.started` id of a `codex exec --json` run, or null. */
export function threadIdOf(stdout: string): string | null {
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const ev: unknown = JSON.parse(line);
    if (
      typeof ev === 'object' &&
      ev !== null &&
      'type' in ev &&
      ev.type === 'thread.started' &&
      'thread_id' in ev &&
      typeof ev.thread_id === 'string'
    ) {
      return ev.thread_id;
    }
  }
  return null;
}

/** `codex exec [resume|fork] --json --skip-git-repo-check …`; returns the thread id, throws on failure. */
export async function codexExec(c: CodexEnv, args: string[]): Promise<string> {
  const sub = args[0] === 'resume' || args[0] === 'fork' ? [args[0]] : [];
  const rest = sub.length > 0 ? args.slice(1) : args;
  const r = await runCodex(c, ['exec', ...sub, '--json', '--skip-git-repo-check', ...rest]);
  const id = threadIdOf(r.stdout);
  if (r.status !== 0 || id === null)
    throw new Error(`codex exec ${args.join(' ')} failed (${r.status}):\n${r.stderr}\n${r.stdout}`);
  return id;
}

/** Sends app-server requests in order (after the handshake); returns each result (or `{error}`). */
export async function codexAppServer(c: CodexEnv, requests: { method: string; params: unknown }[]): Promise<unknown[]> {
  const child = spawn(c.codex, ['app-server'], { cwd: c.work, env: env(c), stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const pending = new Map<number, (v: unknown) => void>();
  lines.on('line', (line) => {
    const msg: unknown = JSON.parse(line);
    if (typeof msg !== 'object' || msg === null || !('id' in msg) || typeof msg.id !== 'number' || 'method' in msg)
      return;
    const done = pending.get(msg.id);
    pending.delete(msg.id);
    done?.('error' in msg ? { error: msg.error } : 'result' in msg ? msg.result : null);
  });
  let id = 0;
  const call = (method: string, params: unknown): Promise<unknown> =>
    new Promise((resolve) => {
      id += 1;
      pending.set(id, resolve);
      child.stdin.write(JSON.stringify({ id, method, params }) + '\n');
    });
  await call('initialize', { clientInfo: { name: 'weft-fixtures', title: null, version: '0' }, capabilities: null });
  child.stdin.write(JSON.stringify({ method: 'initialized' }) + '\n');
  const results: unknown[] = [];
  for (const r of requests) results.push(await call(r.method, r.params));
  child.stdin.end();
  child.kill();
  return results;
}
