// Runs the built `weft` command once, as a person's shell would: a small environment (PATH, HOME, bash),
// the given WEFT_HOME and the mock provider's key, stdin closed. Resolves with its exit code and output.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const WEFT = resolve(__dirname, '../../bin/weft.js');

/**
 * The compile cache folder `npm test` gives every process it starts (scripts/test.mjs), for the `weft`s a test
 * starts with an environment of its own: they share Node's cache and the code kept by one-file commands
 * (bin/weft.js) instead of compiling afresh in each test's home. A test that looks at a home's own cache
 * passes `NODE_COMPILE_CACHE: ''`.
 */
export function sharedCompileCache(): Record<string, string> {
  const folder = process.env['NODE_COMPILE_CACHE'];
  return folder ? { NODE_COMPILE_CACHE: folder } : {};
}

export interface WeftRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `nodeArgs`: options for Node before the script (`--import …`); `env`: added to the environment; `stdin`: its text. */
export interface WeftRunOptions {
  nodeArgs?: readonly string[];
  env?: Record<string, string>;
  stdin?: string;
}

export function runWeftCli(
  args: readonly string[],
  where: { cwd: string; weftHome: string },
  options: WeftRunOptions = {},
): Promise<WeftRun> {
  return new Promise((resolveRun, reject) => {
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      SHELL: '/bin/bash',
      WEFT_HOME: where.weftHome,
      MOCK_API_KEY: 'sk-test',
      ...sharedCompileCache(),
      ...options.env,
    };
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), WEFT, ...args], { cwd: where.cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
