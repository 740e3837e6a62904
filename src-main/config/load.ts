/**
 * Loading the effective config. Layers, lowest first: built-in defaults < WEFT_HOME/config.toml <
 * the project's `.weft/config.toml` files, root down to the cwd (trusted projects only, and only the
 * files the user accepted as they are: see project.ts and project-files.ts) < the selected profile
 * (profile.ts) < `-c` overrides (the CLI's flags and a thread's overrides from the protocol). Layers
 * are deep-merged (tables merge, anything else is replaced), each validated with messages that point
 * at the file position or flag that set the value.
 */
import { readFile } from 'node:fs/promises';
import { ConfigError } from './errors';
import type { WeftConfig } from './schema';
import { getPath, isTable, leafPaths, mergeDocuments } from './document';
import type { TomlDocument } from './document';
import { defaultLayer, emptyFileLayer, fileLayer, overrideLayer, sortLayers } from './layers';
import type { ConfigLayer, LayerSource } from './layers';
import { parseOverrides, type ParsedOverride } from './overrides';
import { checkLayer, mergeLayers } from './validate';
import { formatKeyPath } from './toml-keys';
import { userConfigFile } from './home';
import {
  findProjectRoot,
  projectConfigFiles,
  realpathOr,
  restrictProjectLayer,
  rootMarkers,
  trustRecordOf,
} from './project';
import type { ProjectTrust } from './project';
import { readProjectFiles, trustedConfigDirs } from './project-files';
import type { ReadProjectFile, TrustRecord } from './project-files';
import { holdBackProjectMcpServers } from './project-mcp';
import type { HeldBackMcpServer } from './project-mcp';
import { chosenProfile, profileLayer } from './profile';

export interface LoadConfigOptions {
  /** The folder holding config.toml (see `resolveWeftHome`). */
  weftHome: string;
  /** The working directory of the session: its project's `.weft/config.toml` files are layers. */
  cwd: string;
  /**
   * `-c key.path=value` flags, in command-line order (later wins), or overrides given as values
   * (`overrideValue`). `profile=<name>` selects a profile.
   */
  overrides?: readonly (string | ParsedOverride)[];
  /** Reserved for env-dependent layers; not read yet (provider env vars are read by `resolveProvider`). */
  env?: NodeJS.ProcessEnv;
  /**
   * The cwd is in a git worktree Weft made of the project at `projectRoot` (a worktree thread): when the
   * cwd's project root is that worktree's folder (`path`), the project's trust record applies to its
   * config files (accepted by content, as always: a file with other bytes waits for the user's yes).
   */
  worktreeOf?: { path: string; projectRoot: string } | null;
}

export interface LoadedConfigLayer {
  source: LayerSource;
  /** For the user layer, the config file path even when it does not exist (it is where writes go). */
  file: string | null;
  /** For file layers: the version of the text read, to pass as `expectedVersion` to a write. */
  version?: string;
  /** For the profile layer: the profile's name. */
  profile?: string;
}

export interface LoadedConfig {
  /** Typed, with defaults applied. Unknown keys are dropped. */
  config: WeftConfig;
  /** For people: unknown keys, ignored tables. Loading never fails because of these. */
  warnings: string[];
  /** The layers applied, lowest precedence first. */
  layers: LoadedConfigLayer[];
  /**
   * Dotted key of each value set by some layer (`sandbox_workspace_write.network_access`) →
   * `default`, the file path, `profile <name>`, or `-c <key>`.
   */
  origins: Map<string, string>;
  /** The same keys as `origins`, with the line for files: `/home/me/.weft/config.toml:12`. */
  originPlaces: Map<string, string>;
  /** The project of the cwd, its trust, and each project file with whether it applied. */
  projectTrust: ProjectTrust;
  /**
   * Project MCP servers left out because the session's own flags (`-c`, `--sandbox`, a thread's
   * `sandbox`) ask for a read-only sandbox: such servers are commands that run outside it.
   */
  heldBackMcpServers: HeldBackMcpServer[];
}

/** The project of a cwd: its root, what the user recorded about it, and its config files as read now. */
export interface ProjectState {
  root: string;
  record: TrustRecord;
  files: ReadProjectFile[];
}

/** Throws ConfigError (never anything else for bad input) when a layer cannot be read or is invalid. */
export async function loadConfig(opts: LoadConfigOptions): Promise<LoadedConfig> {
  const overrides = parseOverrides(opts.overrides ?? []);
  const userFile = userConfigFile(opts.weftHome);
  const warningsOf = new Map<ConfigLayer, string[]>();
  const check = (
    layer: ConfigLayer,
    restrict?: (checked: ConfigLayer) => { layer: ConfigLayer; warnings: string[] },
  ): ConfigLayer => {
    const checked = checkLayer(layer);
    const restricted = restrict === undefined ? { layer: checked.layer, warnings: [] } : restrict(checked.layer);
    warningsOf.set(restricted.layer, [...checked.warnings, ...restricted.warnings]);
    return restricted.layer;
  };

  const user = check(await readFileLayer('user', userFile));
  const override = overrides.length > 0 ? check(overrideLayer(overrides)) : null;

  const project = await readProject(opts, user, override);
  const projectLayers: ConfigLayer[] = [];
  for (const file of project.files) {
    if (file.info.status !== 'applied') continue;
    if (file.layer === null) throw file.parseError;
    projectLayers.push(check(file.layer, (l) => restrictProjectLayer(l, userFile)));
  }

  const fileLayers = sortLayers([
    check(defaultLayer()),
    user,
    ...projectLayers,
    ...(override === null ? [] : [override]),
  ]);
  const choice = chosenProfile(fileLayers);
  const layers =
    choice === null ? fileLayers : sortLayers([...fileLayers, check(profileLayer(choice, fileLayers, userFile))]);

  const held = holdBackProjectMcpServers(mergeLayers(layers), projectLayers, override);
  return {
    config: held.config,
    warnings: layers.flatMap((layer) => warningsOf.get(layer) ?? []),
    layers: layers.map(describeLayer),
    origins: originsOf(layers, (layer, path) => layer.origin(path)),
    originPlaces: originsOf(layers, (layer, path) => layer.originPlace(path)),
    projectTrust: {
      root: project.root,
      trusted: project.record.level === null ? null : project.record.level === 'trusted',
      skippedFiles: project.files.filter((f) => f.info.status !== 'applied').map((f) => f.info.path),
      files: project.files.map((f) => f.info),
      trustedConfigDirs: trustedConfigDirs(project.root, project.record),
    },
    heldBackMcpServers: held.heldBack,
  };
}

/**
 * The project of `opts.cwd` without applying anything: what `weft config trust` and
 * `weft/projectConfig/list` show. A project file with a syntax error is listed with its error.
 */
export async function projectState(opts: LoadConfigOptions): Promise<ProjectState> {
  const overrides = parseOverrides(opts.overrides ?? []);
  const user = checkLayer(await readFileLayer('user', userConfigFile(opts.weftHome))).layer;
  const override = overrides.length > 0 ? checkLayer(overrideLayer(overrides)).layer : null;
  return readProject(opts, user, override);
}

async function readProject(
  opts: LoadConfigOptions,
  user: ConfigLayer,
  override: ConfigLayer | null,
): Promise<ProjectState> {
  const markers = rootMarkers(user, override);
  const root = await findProjectRoot(opts.cwd, markers);
  const worktree = opts.worktreeOf ?? null;
  const trustRoot =
    worktree !== null && root === (await realpathOr(worktree.path))
      ? await findProjectRoot(worktree.projectRoot, markers)
      : root;
  const record = await trustRecordOf(user, override, trustRoot);
  const paths = await projectConfigFiles(root, opts.cwd, opts.weftHome);
  return { root, record, files: await readProjectFiles(root, paths, record) };
}

/** A config file as a layer; a missing file is an empty layer. */
export async function readFileLayer(source: LayerSource, file: string): Promise<ConfigLayer> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : null;
    if (code === 'ENOENT') return emptyFileLayer(source, file);
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`${file}: cannot read the config file (${reason}); check that it is a readable file`, {
      file,
    });
  }
  return fileLayer(source, file, text);
}

function describeLayer(layer: ConfigLayer): LoadedConfigLayer {
  const out: LoadedConfigLayer = { source: layer.source, file: layer.file };
  if (layer.version !== undefined) out.version = layer.version;
  if (layer.profile !== undefined) out.profile = layer.profile;
  return out;
}

function originsOf(
  layers: readonly ConfigLayer[],
  describe: (layer: ConfigLayer, path: string[]) => string,
): Map<string, string> {
  const merged = layers.reduce<TomlDocument>((doc, layer) => mergeDocuments(doc, layer.doc), {});
  const origins = new Map<string, string>();
  for (const path of leafPaths(merged)) {
    const owner = [...layers].reverse().find((layer) => {
      const value = getPath(layer.doc, path);
      return value !== undefined && !isTable(value);
    });
    if (owner) origins.set(formatKeyPath(path), describe(owner, path));
  }
  return origins;
}
