/**
 * The config room: loading the layers (defaults, WEFT_HOME/config.toml, trusted project files,
 * the profile, `-c` overrides), comment-preserving writes, project trust, providers, redaction.
 */
export { loadConfig, projectRootFor } from './load';
export type { LoadConfigOptions, LoadedConfig, LoadedConfigLayer } from './load';
export { deleteConfigValue, setProjectTrust, validateConfigValue, writeConfigValue } from './write';
export type { WriteConfigOptions, WriteConfigResult } from './write';
export type { MergeStrategy } from './toml-edit';
export { configVersion } from './layers';
export { DEFAULT_PROJECT_ROOT_MARKERS, findProjectRoot, PROJECT_CONFIG_DIR } from './project';
export type { ProjectTrust, TrustLevel } from './project';
export { resolveWeftHome, userConfigFile } from './home';
export { overrideValue, parseOverride, parseOverrides, parseTomlValue } from './overrides';
export type { ParsedOverride } from './overrides';
export { BUILTIN_PROVIDER_IDS, missingKeyMessage, resolveProvider } from './providers';
export type { ResolvedProvider } from './providers';
export { redactConfig, REDACTED } from './redact';
export { ConfigError } from './errors';
export type { ConfigErrorLocation } from './errors';
export type { LayerSource } from './layers';
export {
  APPROVAL_POLICIES,
  DEFAULTS,
  REASONING_EFFORTS,
  REASONING_SUMMARIES,
  SANDBOX_MODES,
  TRUST_LEVELS,
  WEB_SEARCH_MODES,
  WIRE_APIS,
} from './schema';
export type {
  ApprovalPolicy,
  McpServerConfig,
  ModelProviderConfig,
  ProfileConfig,
  ReasoningEffort,
  ReasoningSummary,
  SandboxMode,
  WebSearchMode,
  WeftConfig,
  WireApi,
} from './schema';
