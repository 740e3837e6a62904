/**
 * The config room: loading the layers (defaults, WEFT_HOME/config.toml, trusted project files,
 * the profile, `-c` overrides), comment-preserving writes, project trust, providers, redaction.
 */
export { loadConfig, projectState } from './load';
export type { LoadConfigOptions, LoadedConfig, ProjectState } from './load';
export { deleteConfigValue, setProjectTrust, validateConfigValue, writeConfigValue } from './write';
export type { WriteConfigOptions } from './write';
export { configVersion } from './layers';
export { resolveWeftHome, userConfigFile } from './home';
export { overrideValue, parseOverride, parseTomlValue } from './overrides';
export type { ParsedOverride } from './overrides';
export { missingKeyMessage, resolveProvider } from './providers';
export { redactConfig } from './redact';
export { ConfigError } from './errors';
export { DEFAULTS } from './schema';
export type { WeftConfig } from './schema';
