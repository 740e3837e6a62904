// `weft config`: the effective config with where each value came from; get, set, unset, trust.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  deleteConfigValue,
  loadConfig,
  parseTomlValue,
  projectState,
  redactConfig,
  resolveWeftHome,
  setProjectTrust,
  userConfigFile,
  validateConfigValue,
  writeConfigValue,
} from '../config';
import type { LoadConfigOptions, LoadedConfig } from '../config';
import { getPath, isTable, leafPaths } from '../config/document';
import { realpathOr } from '../config/project';
import { projectConfigNotes, settingLines } from '../config/project-report';
import { knownKeysAt } from '../config/schema';
import { closestMatch } from '../config/suggest';
import { formatKeyPath, parseKeyPath } from '../config/toml-keys';
import { tomlValue } from '../config/toml-value';
import { errorMessage } from '../util/errors';

const USAGE = `Usage: weft config [show] [--json] [--cd DIR] [-c key=value]… [--profile NAME]
       weft config get KEY [--json] [--cd DIR] [-c key=value]… [--profile NAME]
       weft config set KEY VALUE
       weft config unset KEY
       weft config trust [DIR]
       weft config untrust [DIR]

  show     Every effective key with its value and where it came from: default, file:line,
           profile NAME or -c KEY (secrets redacted). --json for machine output.
  get      The effective value of one key (a table prints as key = value lines).
  set      Write KEY = VALUE to WEFT_HOME/config.toml, keeping its comments. VALUE is read as TOML,
           else taken as a string: \`weft config set model gpt-5\`, \`… sandbox_workspace_write.network_access true\`.
  unset    Remove KEY (a key or a whole table) from WEFT_HOME/config.toml.
  trust    Apply the .weft/config.toml files of the project holding DIR (default: the current folder),
           from its root down to DIR, as they are now (each file's contents are recorded; a file
           that appears or changes later waits for \`weft config trust\` again). Prints what they set.
  untrust  Stop applying them.

  --cd DIR        Resolve the project config of DIR instead of the current folder
  -c key=value    Override a value for this command (repeatable)
  --profile NAME  Apply [profiles.NAME]
`;

/** Where the command reads and writes; the process's own by default (tests pass their own). */
export interface ConfigCommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

class UsageError extends Error {}
class HelpRequested extends Error {}

export async function runConfigCommand(argv: string[], io: ConfigCommandIo = processIo()): Promise<number> {
  const sub = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : 'show';
  const rest = sub === argv[0] ? argv.slice(1) : argv;
  try {
    switch (sub) {
      case 'show':
        return await show(parse(rest), io);
      case 'get':
        return await get(parse(rest), io);
      case 'set':
        return await set(parse(rest), io);
      case 'unset':
        return await unset(parse(rest), io);
      case 'trust':
      case 'untrust':
        return await trust(parse(rest), io, sub === 'trust' ? 'trusted' : 'untrusted');
      case 'help':
        io.stdout.write(USAGE);
        return 0;
      default:
        throw new UsageError(`unknown sub-command "${sub}"`);
    }
  } catch (error) {
    if (error instanceof HelpRequested) {
      io.stdout.write(USAGE);
      return 0;
    }
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.stderr.write(`weft config: ${errorMessage(error)}\n\n${USAGE}`);
      return 2;
    }
    io.stderr.write(`weft config: ${errorMessage(error)}\n`);
    return 1;
  }
}

function processIo(): ConfigCommandIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

interface Args {
  positionals: string[];
  json: boolean;
  cd: string | undefined;
  overrides: string[];
}

function parse(argv: string[]): Args {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      cd: { type: 'string' },
      config: { type: 'string', short: 'c', multiple: true },
      profile: { type: 'string', short: 'p' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true) throw new HelpRequested();
  const overrides = [...(values.config ?? [])];
  if (values.profile !== undefined) overrides.push(`profile=${JSON.stringify(values.profile)}`);
  return { positionals, json: values.json === true, cd: values.cd, overrides };
}

function isParseArgsError(error: unknown): boolean {
  return (
    error instanceof Error &&
    'code' in error &&
    typeof error.code === 'string' &&
    error.code.startsWith('ERR_PARSE_ARGS')
  );
}

function loadOptions(args: Args, io: ConfigCommandIo): LoadConfigOptions {
  return {
    weftHome: resolveWeftHome(io.env),
    cwd: resolve(io.cwd, args.cd ?? '.'),
    overrides: args.overrides,
    env: io.env,
  };
}

async function loadAndReport(args: Args, io: ConfigCommandIo): Promise<LoadedConfig> {
  const loaded = await loadConfig(loadOptions(args, io));
  for (const warning of loaded.warnings) io.stderr.write(`weft: warning: ${warning}\n`);
  for (const line of projectConfigNotes(loaded.projectTrust, loadOptions(args, io).cwd)) io.stderr.write(`${line}\n`);
  return loaded;
}

interface Entry {
  path: string[];
  key: string;
  value: unknown;
  origin: string;
}

/** Every leaf of the effective (redacted) config under `prefix`, sorted by key. */
function entries(loaded: LoadedConfig, prefix: string[] = []): Entry[] {
  const redacted = redactConfig(loaded.config);
  const base = getPath(redacted, prefix);
  if (!isTable(base)) return [];
  return leafPaths(base)
    .map((path) => [...prefix, ...path])
    .map((path) => ({ path, value: getPath(redacted, path) }))
    .filter((entry) => entry.value !== undefined)
    .map(({ path, value }) => {
      const key = formatKeyPath(path);
      return { path, key, value, origin: loaded.originPlaces.get(key) ?? 'default' };
    })
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** `key = value  # origin` lines, the comments aligned. */
function lines(list: readonly Entry[], relativeTo = 0): string {
  const texts = list.map((e) => `${formatKeyPath(e.path.slice(relativeTo))} = ${tomlValue(e.value)}`);
  const width = Math.min(56, Math.max(0, ...texts.map((t) => t.length)));
  return texts.map((text, i) => `${text.padEnd(width)}  # ${list[i]?.origin ?? ''}\n`).join('');
}

async function show(args: Args, io: ConfigCommandIo): Promise<number> {
  if (args.positionals.length > 0)
    throw new UsageError(`show takes no arguments (got "${args.positionals.join(' ')}")`);
  const loaded = await loadAndReport(args, io);
  const list = entries(loaded);
  if (args.json) {
    const output = {
      config: redactConfig(loaded.config),
      origins: Object.fromEntries(list.map((e) => [e.key, e.origin])),
      layers: loaded.layers,
      projectTrust: loaded.projectTrust,
      warnings: loaded.warnings,
    };
    io.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
  } else {
    io.stdout.write(lines(list));
  }
  return 0;
}

async function get(args: Args, io: ConfigCommandIo): Promise<number> {
  const [keyText, ...extra] = args.positionals;
  if (keyText === undefined || extra.length > 0)
    throw new UsageError('get takes one KEY, e.g. `weft config get model`');
  const path = keyPath(keyText);
  const loaded = await loadAndReport(args, io);
  const value = getPath(redactConfig(loaded.config), path);
  const key = formatKeyPath(path);
  if (value === undefined) {
    const parent = path.slice(0, -1);
    const last = path[path.length - 1] ?? '';
    const keys = knownKeysAt(parent);
    if (keys.length > 0 && !keys.includes(last)) {
      const suggestion = closestMatch(last, keys);
      const full = suggestion === null ? null : formatKeyPath([...parent, suggestion]);
      io.stderr.write(`weft config: unknown key \`${key}\`${full === null ? '' : ` (did you mean \`${full}\`?)`}\n`);
      return 1;
    }
    io.stderr.write(`weft config: \`${key}\` is not set; the built-in default applies\n`);
    return 1;
  }
  if (args.json) io.stdout.write(`${JSON.stringify(value)}\n`);
  else if (typeof value === 'string') io.stdout.write(`${value}\n`);
  else if (isTable(value)) io.stdout.write(lines(entries(loaded, path), path.length));
  else io.stdout.write(`${tomlValue(value)}\n`);
  return 0;
}

async function set(args: Args, io: ConfigCommandIo): Promise<number> {
  const [keyText, valueText, ...extra] = args.positionals;
  if (keyText === undefined || valueText === undefined || extra.length > 0) {
    throw new UsageError('set takes KEY and VALUE, e.g. `weft config set model gpt-5` (quote a VALUE with spaces)');
  }
  const path = keyPath(keyText);
  const key = formatKeyPath(path);
  const value = parseTomlValue(valueText);
  validateConfigValue(key, value);
  const options = loadOptions(args, io);
  const file = userConfigFile(options.weftHome);
  const result = await writeConfigValue(file, key, value, { check: options });
  for (const warning of result.warnings) io.stderr.write(`weft: warning: ${warning}\n`);
  io.stdout.write(`Set ${key} = ${tomlValue(value)} in ${file}\n`);
  if (result.overriddenMetadata !== null) io.stderr.write(`weft: note: ${result.overriddenMetadata.message}\n`);
  return 0;
}

async function unset(args: Args, io: ConfigCommandIo): Promise<number> {
  const [keyText, ...extra] = args.positionals;
  if (keyText === undefined || extra.length > 0)
    throw new UsageError('unset takes one KEY, e.g. `weft config unset model`');
  const key = formatKeyPath(keyPath(keyText));
  const file = userConfigFile(resolveWeftHome(io.env));
  const result = await deleteConfigValue(file, key);
  io.stdout.write(result.changed ? `Removed ${key} from ${file}\n` : `${key} is not set in ${file}; nothing changed\n`);
  return 0;
}

async function trust(args: Args, io: ConfigCommandIo, level: 'trusted' | 'untrusted'): Promise<number> {
  const [dirText, ...extra] = args.positionals;
  if (extra.length > 0) throw new UsageError(`${level === 'trusted' ? 'trust' : 'untrust'} takes at most one DIR`);
  const dir = resolve(io.cwd, dirText ?? args.cd ?? '.');
  const info = await stat(dir).catch(() => null);
  if (info === null || !info.isDirectory()) {
    io.stderr.write(`weft config: ${dir} is not a folder; give the project's folder (or one inside it)\n`);
    return 1;
  }
  const options = loadOptions(args, io);
  const project = await projectState({ ...options, cwd: dir });
  const accepted = Object.fromEntries(project.files.map((f) => [f.info.relativePath, f.info.sha256]));
  const result = await setProjectTrust(options.weftHome, project.root, level, accepted);
  if (level === 'untrusted') {
    io.stdout.write(
      `Untrusted ${project.root}: its .weft/config.toml files are ignored (recorded in ${result.filePath})\n`,
    );
    return 0;
  }
  // Only the files on the way to DIR were seen and recorded: say so, so a file elsewhere is not thought accepted.
  const which =
    (await realpathOr(dir)) === project.root
      ? 'its .weft/config.toml applies as it is now'
      : `its .weft/config.toml files from the root down to ${dir} apply as they are now`;
  io.stdout.write(`Trusted ${project.root}: ${which} (recorded in ${result.filePath})\n`);
  // What was accepted now, so the person sees what they said yes to.
  for (const { info } of project.files) {
    if (info.status === 'applied') continue;
    const state = info.status === 'ignored' ? 'untrusted until now' : info.status;
    if (info.error !== null) {
      io.stdout.write(`  ${info.path} (${state}), which cannot be read yet: ${info.error}\n`);
      continue;
    }
    const lines = settingLines(info);
    io.stdout.write(`  ${info.path} (${state}), which sets:\n${lines.length > 0 ? lines.join('\n') : '    nothing'}\n`);
  }
  return 0;
}

function keyPath(text: string): string[] {
  const path = parseKeyPath(text);
  if (path === null)
    throw new UsageError(
      `"${text}" is not a key path; write dotted keys such as sandbox_workspace_write.network_access`,
    );
  return path;
}
