// `weft sandbox`: runs one command under a sandbox policy, the way Weft runs the model's commands. For
// people checking their setup, and for tests.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { constants } from 'node:os';
import { parseArgs } from 'node:util';
import type { SandboxPolicy } from '../../src-preload/protocol';
import { resolveWeftHome } from '../config/home';
import { loadConfig } from '../config/load';
import { commandEnv, commandEnvPolicy } from '../safety/command-env';
import { createSandboxLauncher } from '../safety/sandbox/launcher';
import { errorMessage } from '../util/errors';

const USAGE = `Usage: weft sandbox [options] -- <command> [args…]

Runs one command inside the sandbox Weft uses for the model's commands, in the current directory (the
workspace), with the same environment filter (config \`shell_environment_policy\`). The exit status is
the command's.

Options:
      --mode <mode>           read-only | workspace-write (default) | danger-full-access
  -C, --cd <dir>              Work in <dir> instead of the current directory
      --writable-root <dir>   Another writable folder (workspace-write; repeatable)
      --network               Allow network access (off by default)
  -h, --help                  Show this help

Examples:
  weft sandbox -- touch inside.txt          (works: the workspace is writable)
  weft sandbox -- touch /etc/outside.txt    (fails: Read-only file system)
  weft sandbox --mode read-only -- ls -la
`;

const MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
type Mode = (typeof MODES)[number];

function isMode(value: string): value is Mode {
  return (MODES as readonly string[]).includes(value);
}

export async function runSandboxCommand(argv: string[]): Promise<number> {
  const dashes = argv.indexOf('--');
  const optionArgs = dashes === -1 ? argv : argv.slice(0, dashes);
  let parsed;
  try {
    parsed = parseArgs({
      args: optionArgs,
      allowPositionals: dashes === -1,
      options: {
        mode: { type: 'string' },
        cd: { type: 'string', short: 'C' },
        'writable-root': { type: 'string', multiple: true },
        network: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    process.stderr.write(`weft sandbox: ${errorMessage(error)}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  const command = dashes === -1 ? positionals : argv.slice(dashes + 1);
  if (command.length === 0) {
    process.stderr.write(`weft sandbox: no command given\n\n${USAGE}`);
    return 2;
  }
  const mode = values.mode ?? 'workspace-write';
  if (!isMode(mode)) {
    process.stderr.write(`weft sandbox: --mode must be one of ${MODES.join(', ')} (got "${mode}")\n`);
    return 2;
  }
  const cwd = resolve(values.cd ?? process.cwd());
  const policy = policyFor(
    mode,
    values.network === true,
    (values['writable-root'] ?? []).map((dir) => resolve(dir)),
  );
  let envPolicy;
  try {
    const loaded = await loadConfig({ weftHome: resolveWeftHome(process.env), cwd, env: process.env });
    envPolicy = commandEnvPolicy(loaded.config.shell_environment_policy);
  } catch (error) {
    process.stderr.write(`weft sandbox: ${errorMessage(error)}\n`);
    return 2;
  }
  const env = commandEnv(process.env, envPolicy);

  const sandbox = await createSandboxLauncher(policy, cwd, env);
  if (!sandbox.available) {
    process.stderr.write(
      `weft sandbox: no sandbox is available, so the command was not run.\n` +
        `  Problem: ${sandbox.reason}\n  Fix: ${sandbox.fix}\n` +
        `Run \`weft doctor\` after fixing it to check.\n`,
    );
    return 1;
  }
  const launched = await sandbox.launcher(command, { cwd, env });
  const [program, ...args] = launched.argv;
  const status = await new Promise<number>((done) => {
    if (program === undefined) {
      done(2);
      return;
    }
    const child = spawn(program, args, { cwd, env: launched.env ?? env, stdio: 'inherit' });
    child.on('error', (error) => {
      process.stderr.write(`weft sandbox: could not start ${program}: ${error.message}\n`);
      done(1);
    });
    child.on('exit', (code, signal) => {
      done(code ?? 128 + (signal === null ? 0 : (constants.signals[signal] ?? 0)));
    });
  });
  await launched.release?.();
  return status;
}

function policyFor(mode: Mode, network: boolean, writableRoots: string[]): SandboxPolicy {
  switch (mode) {
    case 'read-only':
      return { type: 'readOnly', networkAccess: network };
    case 'workspace-write':
      return { type: 'workspaceWrite', writableRoots, networkAccess: network };
    case 'danger-full-access':
      return { type: 'dangerFullAccess' };
  }
}
