/** The config room: loading WEFT_HOME/config.toml with `-c` overrides, providers, redaction. */
export { loadConfig } from './load';
export type { LoadConfigOptions, LoadedConfig, LoadedConfigLayer } from './load';
export { resolveWeftHome, userConfigFile } from './home';
export { parseOverride, parseOverrides } from './overrides';
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
