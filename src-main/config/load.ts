/**
 * Loading the effective config: defaults < WEFT_HOME/config.toml < `-c` overrides, deep-merged
 * (tables merge, anything else is replaced), each layer validated with messages that point at
 * the file position or flag that set the value.
 */
import { readFile } from 'node:fs/promises';
import { ConfigError } from './errors';
import type { WeftConfig } from './schema';
import { getPath, isTable, leafPaths, mergeDocuments } from './document';
import type { TomlDocument } from './document';
import { defaultLayer, emptyFileLayer, fileLayer, overrideLayer, sortLayers } from './layers';
import type { ConfigLayer, LayerSource } from './layers';
import { parseOverrides } from './overrides';
import { checkLayer, mergeLayers } from './validate';
import { formatKeyPath } from './toml-keys';
import { userConfigFile } from './home';

export interface LoadConfigOptions {
  /** The folder holding config.toml (see `resolveWeftHome`). */
  weftHome: string;
  /** The working directory of the session; project layers will be looked up from here (not read yet). */
  cwd: string;
  /** `-c key.path=value` flags, in command-line order (later wins). */
  overrides?: readonly string[];
  /** Reserved for env-dependent layers; not read yet (provider env vars are read by `resolveProvider`). */
  env?: NodeJS.ProcessEnv;
}

export interface LoadedConfigLayer {
  source: LayerSource;
  /** For the user layer, the config file path even when it does not exist (it is where writes go). */
  file: string | null;
}

export interface LoadedConfig {
  /** Typed, with defaults applied. Unknown keys are dropped. */
  config: WeftConfig;
  /** For people: unknown keys, ignored tables. Loading never fails because of these. */
  warnings: string[];
  /** Lowest precedence first. */
  layers: LoadedConfigLayer[];
  /** Dotted key of each value set by some layer (`sandbox_workspace_write.network_access`) → `default`, the file path, or `-c <key>`. */
  origins: Map<string, string>;
}

/** Throws ConfigError (never anything else for bad input) when a layer cannot be read or is invalid. */
export async function loadConfig(opts: LoadConfigOptions): Promise<LoadedConfig> {
  const overrides = parseOverrides(opts.overrides ?? []);
  const found: ConfigLayer[] = [defaultLayer(), await readFileLayer('user', userConfigFile(opts.weftHome))];
  if (overrides.length > 0) found.push(overrideLayer(overrides));

  const warnings: string[] = [];
  const layers = sortLayers(found).map((layer) => {
    const checked = checkLayer(layer);
    warnings.push(...checked.warnings);
    return checked.layer;
  });
  const config = mergeLayers(layers);
  return {
    config,
    warnings,
    layers: layers.map((layer) => ({ source: layer.source, file: layer.file })),
    origins: originsOf(layers),
  };
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
    throw new ConfigError(`${file}: cannot read the config file (${reason}); check that it is a readable file`, { file });
  }
  return fileLayer(source, file, text);
}

function originsOf(layers: readonly ConfigLayer[]): Map<string, string> {
  const merged = layers.reduce<TomlDocument>((doc, layer) => mergeDocuments(doc, layer.doc), {});
  const origins = new Map<string, string>();
  for (const path of leafPaths(merged)) {
    const owner = [...layers].reverse().find((layer) => {
      const value = getPath(layer.doc, path);
      return value !== undefined && !isTable(value);
    });
    if (owner) origins.set(formatKeyPath(path), owner.origin(path));
  }
  return origins;
}
