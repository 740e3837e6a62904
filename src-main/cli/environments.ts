// `weft environments`: lists, adds, removes and checks the remote environments of WEFT_HOME/config.toml
// (`[environments.NAME]`), editing the file in place so its comments and order survive.
import { parseArgs } from 'node:util';
import { userConfigFile, writeConfigValue } from '../config';
import { resolveWeftHome } from '../config/home';
import type { EnvironmentConfig } from '../config/environments';
import { formatKeyPath } from '../config/toml-keys';
import { connectHostClient } from '../faces/host-client';
import { RemoteHost } from '../faces/remote/relay-host';
import {
  checkNode,
  describeUpdate,
  installOnEnvironment,
  pointEnvironmentAt,
  requiredNode,
} from '../server/remote-install';
import { remoteWeftVersion } from '../faces/remote/version-check';
import { errorMessage } from '../util/errors';
import { VERSION } from '../version';
import { configuredEnvironments, environmentTarget } from './environment-host';
import { dispatchSubCommand } from './sub-commands';

const USAGE = `Usage: weft environments list [--json]
       weft environments add <name> --ssh <host> [--port N] [--ssh-arg=ARG]… [--weft CMD]
       weft environments add <name> -- <command> [args…]
       weft environments remove <name>
       weft environments check <name>
       weft environments install <name> [--package FILE] [--keep-config]

An environment is a machine or container where Weft runs your project: a host reached with ssh, or
any command whose stdin and stdout reach \`weft app-server\` there (docker exec -i, kubectl exec -i).
They live in [environments.<name>] tables of ~/.weft/config.toml (WEFT_HOME). Use one with
\`weft app-server --env <name>\`, \`weft serve --env <name> --cd <remote dir>\` or \`weft exec --env <name>\`.

  list     Show every environment and how it is reached
  add      Add (or replace) an environment
  remove   Remove the environment's table from config.toml
  check    Connect: is it reachable, which Weft and Node run there, does its sandbox work
  install  Install this Weft's version there: the package \`npm pack\` makes of this installation (or
           --package, a tarball made so) is copied over the environment's pipe and installed with npm in
           ~/.weft/remote/<version> there (Node and npm there are checked first); then the environment's
           \`weft\` (or \`command\`) in config.toml is pointed at it, unless --keep-config (then the
           line to set is printed)
`;

export async function runEnvironmentsCommand(argv: string[]): Promise<number> {
  const weftHome = resolveWeftHome(process.env);
  return dispatchSubCommand(
    {
      command: 'environments',
      usage: USAGE,
      verbs: {
        list: { aliases: ['ls'], run: (rest) => list(rest) },
        add: { run: (rest) => add(weftHome, rest) },
        remove: { aliases: ['rm'], run: (rest) => remove(weftHome, rest) },
        check: { run: (rest) => check(rest) },
        install: { run: (rest) => install(weftHome, rest) },
      },
    },
    argv,
  );
}

function describe(environment: EnvironmentConfig): string {
  if (environment.command !== undefined) return environment.command.join(' ');
  const port = environment.port === undefined ? '' : ` port ${environment.port}`;
  return `${environment.ssh ?? ''}${port} (weft: ${environment.weft ?? 'weft'})`;
}

async function list(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' } } });
  const all = await configuredEnvironments();
  if (values.json) {
    process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
    return 0;
  }
  const names = Object.keys(all).sort();
  if (names.length === 0) {
    process.stdout.write('No environments configured. Add one with `weft environments add <name> --ssh <host>`.\n');
    return 0;
  }
  const width = Math.max(4, ...names.map((n) => n.length));
  const rows = names.map((name) => {
    const environment = all[name] ?? {};
    return `${name.padEnd(width)}  ${environment.command !== undefined ? 'command' : 'ssh    '}  ${describe(environment)}`;
  });
  process.stdout.write(`${'Name'.padEnd(width)}  Type     Reached through\n${rows.join('\n')}\n`);
  return 0;
}

async function add(weftHome: string, argv: string[]): Promise<number> {
  const dash = argv.indexOf('--');
  const own = dash >= 0 ? argv.slice(0, dash) : argv;
  const command = dash >= 0 ? argv.slice(dash + 1) : [];
  const { values, positionals } = parseArgs({
    args: own,
    options: {
      ssh: { type: 'string' },
      port: { type: 'string' },
      'ssh-arg': { type: 'string', multiple: true },
      weft: { type: 'string' },
    },
    allowPositionals: true,
  });
  const name = positionals[0];
  if (name === undefined || positionals.length > 1) {
    process.stderr.write(`weft environments add: give one name, then \`--ssh <host>\` or \`-- <command>\`\n\n${USAGE}`);
    return 2;
  }
  if ((values.ssh === undefined) === (command.length === 0)) {
    process.stderr.write(`weft environments add: give either \`--ssh <host>\` or \`-- <command> [args…]\`\n\n${USAGE}`);
    return 2;
  }
  const table: Record<string, unknown> = {};
  if (values.ssh !== undefined) {
    table['ssh'] = values.ssh;
    if (values.port !== undefined) {
      if (!/^\d{1,5}$/.test(values.port)) {
        process.stderr.write(`weft environments add: --port must be a whole number, got "${values.port}"\n`);
        return 2;
      }
      table['port'] = Number(values.port);
    }
    if (values['ssh-arg'] !== undefined) table['ssh_args'] = values['ssh-arg'];
    if (values.weft !== undefined) table['weft'] = values.weft;
  } else {
    table['command'] = command;
  }
  const file = userConfigFile(weftHome);
  // The write is refused, leaving the file as it was, when the table would not validate.
  await writeConfigValue(file, formatKeyPath(['environments', name]), table);
  process.stdout.write(`Added environment "${name}" to ${file}. Check it with \`weft environments check ${name}\`.\n`);
  return 0;
}

async function remove(weftHome: string, argv: string[]): Promise<number> {
  const name = argv[0];
  if (name === undefined || argv.length > 1) {
    process.stderr.write(`weft environments remove: name one environment\n\n${USAGE}`);
    return 2;
  }
  const file = userConfigFile(weftHome);
  const result = await writeConfigValue(file, formatKeyPath(['environments', name]), null);
  process.stdout.write(
    result.changed ? `Removed environment "${name}" from ${file}.\n` : `No environment named "${name}" in ${file}.\n`,
  );
  return result.changed ? 0 : 1;
}

/** Connects through the relay as every face does, then asks the remote what runs there. */
async function check(argv: string[]): Promise<number> {
  const name = argv[0];
  if (name === undefined || argv.length > 1) {
    process.stderr.write(`weft environments check: name one environment\n\n${USAGE}`);
    return 2;
  }
  const target = await environmentTarget(name);
  process.stdout.write(`${name}: ${target.argv.join(' ')}\n`);
  let gaveUp: string | null = null;
  let installable = false;
  const host = new RemoteHost({
    target,
    log: () => undefined,
    maxAttempts: 0,
    onGiveUp: (why, install) => {
      gaveUp = why;
      installable = install !== undefined;
    },
  });
  const started = Date.now();
  let client;
  try {
    client = await connectHostClient(host, {
      label: `check ${name}`,
      clientInfo: { name: 'weft-environments-check', version: VERSION },
      log: () => undefined,
    });
  } catch (error) {
    process.stdout.write(`  reachable: no — ${gaveUp ?? errorMessage(error)}\n`);
    if (installable) {
      const environment = (await configuredEnvironments())[name];
      const node =
        environment === undefined
          ? null
          : await checkNode(name, environment, VERSION, { timeoutMs: 30_000 }).then(
              (found) => `yes, ${found.node} with npm ${found.npm}`,
              (error: unknown) => `no — ${errorMessage(error)}`,
            );
      if (node !== null)
        process.stdout.write(`  node for Weft ${VERSION} (${(await requiredNode()).join('.')} or later): ${node}\n`);
      process.stdout.write(`  fix: \`weft environments install ${name}\` installs Weft ${VERSION} there\n`);
    }
    return 1;
  }
  try {
    process.stdout.write(`  reachable: yes (${Date.now() - started} ms to the handshake)\n`);
    const info = client.serverInfo;
    if (info !== null) {
      const node = /node (\S+?)\)/.exec(info.userAgent)?.[1] ?? 'unknown';
      const remote = remoteWeftVersion(info);
      process.stdout.write(
        `  weft: ${remote ?? 'unknown'} (this one: ${VERSION}); node ${node}; WEFT_HOME ${info.codexHome}\n`,
      );
      if (remote !== VERSION) {
        process.stdout.write(
          `  note: the versions differ (they can work together); \`weft environments install ${name}\` installs ${VERSION} there\n`,
        );
      }
    }
    const sandbox = await client
      .request('command/exec', { command: ['true'], sandboxPolicy: { type: 'readOnly' }, timeoutMs: 20_000 })
      .then(
        (result) =>
          result.exitCode === 0 ? 'works (a read-only command ran in it)' : `failed: ${result.stderr.trim()}`,
        (error: unknown) => `does not work: ${errorMessage(error)}`,
      );
    process.stdout.write(`  sandbox: ${sandbox}\n`);
    return sandbox.startsWith('works') ? 0 : 1;
  } finally {
    client.close();
  }
}

/** Installs this Weft's version on the environment, telling each step; then points the environment at it. */
async function install(weftHome: string, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { package: { type: 'string' }, 'keep-config': { type: 'boolean' } },
    allowPositionals: true,
  });
  const name = positionals[0];
  if (name === undefined || positionals.length > 1) {
    process.stderr.write(`weft environments install: name one environment\n\n${USAGE}`);
    return 2;
  }
  const environment = (await configuredEnvironments())[name];
  if (environment === undefined) {
    await environmentTarget(name); // throws naming the configured ones
    return 2;
  }
  // Ctrl-C stops the step running there (its ssh ends) instead of leaving it behind.
  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.once('SIGINT', onSignal);
  try {
    const result = await installOnEnvironment({
      name,
      environment,
      version: VERSION,
      packagePath: values.package,
      signal: abort.signal,
      onProgress: (p) => process.stdout.write(`  ${p.message}\n`),
    });
    const line = describeUpdate(result.update);
    if (values['keep-config'] === true) {
      process.stdout.write(
        `Installed. To use it, set in [environments.${name}] of ${userConfigFile(weftHome)}:\n  ${line}\n`,
      );
      return 0;
    }
    const file = await pointEnvironmentAt(weftHome, name, result.update);
    process.stdout.write(
      `Installed. [environments.${name}] of ${file} now says ${line}. Check it with \`weft environments check ${name}\`.\n`,
    );
    return 0;
  } catch (error) {
    process.stderr.write(`weft environments install: ${errorMessage(error)}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
  }
}
