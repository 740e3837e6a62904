/**
 * Model providers: the built-ins plus `[model_providers.<id>]` tables, resolved against the
 * environment into what a model client needs.
 */
import { ConfigError } from './errors';
import { PROVIDER_DEFAULTS } from './schema';
import type { ModelProviderConfig, WeftConfig, WireApi } from './schema';
import { formatKeyPath } from './toml-keys';
import { resolveWeftHome, userConfigFile } from './home';

export interface ResolvedProvider {
  id: string;
  name: string;
  baseUrl: string;
  wireApi: WireApi;
  /** The bearer token: experimental_bearer_token, else the value of envKey; null when neither is set. */
  apiKey: string | null;
  /** Where `apiKey` came from; null when it is null (a saved key may still apply, see key-store.ts). */
  apiKeySource?: 'config' | 'env' | null;
  /** The variable the key is read from; null when the provider needs no key. */
  envKey: string | null;
  envKeyInstructions: string | null;
  /** The user config file, named in advice. */
  configFile?: string;
  /** http_headers, plus env_http_headers whose variables are set (unset ones are left out). */
  headers: Record<string, string>;
  queryParams: Record<string, string>;
  requestMaxRetries: number;
  streamMaxRetries: number;
  streamIdleTimeoutMs: number;
}

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const OPENAI_API_KEY_ENV = 'OPENAI_API_KEY';
export const CODEX_API_KEY_ENV = 'CODEX_API_KEY';

/** Built-in providers. A user table with one of these ids is ignored (with a warning). */
export const BUILTIN_PROVIDERS: Readonly<Record<string, ModelProviderConfig>> = {
  openai: {
    ...PROVIDER_DEFAULTS,
    name: 'OpenAI',
    base_url: OPENAI_BASE_URL,
    env_key: OPENAI_API_KEY_ENV,
    wire_api: 'responses',
    requires_openai_auth: true,
  },
  ollama: { ...PROVIDER_DEFAULTS, name: 'Ollama', base_url: 'http://localhost:11434/v1', wire_api: 'chat' },
  lmstudio: { ...PROVIDER_DEFAULTS, name: 'LM Studio', base_url: 'http://localhost:1234/v1', wire_api: 'chat' },
};

export const BUILTIN_PROVIDER_IDS: readonly string[] = Object.keys(BUILTIN_PROVIDERS);

/**
 * The provider `config.model_provider` names. `configFile` is where the user is told to add a
 * missing provider table (default: config.toml under the WEFT_HOME of `env`).
 * A missing API key is not an error here; see `missingKeyMessage`.
 */
export function resolveProvider(config: WeftConfig, env: NodeJS.ProcessEnv, configFile?: string): ResolvedProvider {
  const id = config.model_provider;
  const file = configFile ?? userConfigFile(resolveWeftHome(env));
  const builtin = BUILTIN_PROVIDERS[id];
  const custom = config.model_providers[id];
  const entry = builtin ?? custom;
  if (entry === undefined) {
    const known = [...BUILTIN_PROVIDER_IDS, ...Object.keys(config.model_providers)].join(', ');
    throw new ConfigError(
      `model_provider "${id}" is not defined; add a [${formatKeyPath(['model_providers', id])}] table to ${file} or use one of ${known}`,
      { file },
    );
  }
  let baseUrl = entry.base_url;
  if (id === 'openai' && nonEmpty(env['OPENAI_BASE_URL'])) baseUrl = env['OPENAI_BASE_URL'];
  if (id === 'openai' && nonEmpty(config.openai_base_url)) baseUrl = config.openai_base_url;
  if (baseUrl === undefined || baseUrl.trim() === '') {
    const table = formatKeyPath(['model_providers', id]);
    throw new ConfigError(`provider "${id}" has no base_url; add base_url = "https://…/v1" to [${table}] in ${file}`, {
      file,
    });
  }
  const envKey = entry.env_key ?? (entry.requires_openai_auth === true ? OPENAI_API_KEY_ENV : null);
  const envValue = envKey === null ? undefined : env[envKey];
  // As in Codex, CODEX_API_KEY is the key of providers that authenticate like OpenAI, and wins.
  const codexKey = entry.requires_openai_auth === true ? env[CODEX_API_KEY_ENV] : undefined;
  const apiKey = nonEmpty(entry.experimental_bearer_token)
    ? entry.experimental_bearer_token
    : nonEmpty(codexKey)
      ? codexKey
      : nonEmpty(envValue)
        ? envValue
        : null;
  const headers: Record<string, string> = { ...entry.http_headers };
  for (const [header, variable] of Object.entries(entry.env_http_headers ?? {})) {
    const value = env[variable];
    if (nonEmpty(value)) headers[header] = value;
  }
  return {
    id,
    apiKeySource: apiKey === null ? null : nonEmpty(entry.experimental_bearer_token) ? 'config' : 'env',
    configFile: file,
    name: entry.name ?? id,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    wireApi: entry.wire_api,
    apiKey,
    envKey,
    envKeyInstructions: entry.env_key_instructions ?? null,
    headers,
    queryParams: { ...entry.query_params },
    requestMaxRetries: entry.request_max_retries,
    streamMaxRetries: entry.stream_max_retries,
    streamIdleTimeoutMs: entry.stream_idle_timeout_ms,
  };
}

/** What to tell the user when the provider needs a key and has none; null when nothing is missing. */
export function missingKeyMessage(provider: ResolvedProvider): string | null {
  if (provider.envKey === null || provider.apiKey !== null) return null;
  const where = provider.configFile === undefined ? '' : ` in ${provider.configFile}`;
  const advice =
    provider.envKeyInstructions === null
      ? `Set it in your environment (export ${provider.envKey}=…), save a key for "${provider.id}" in Settings, or point model_provider${where} at a provider that needs no key.`
      : `${provider.envKeyInstructions} (provider "${provider.id}"${where})`;
  return `${provider.envKey} is not set. ${advice}`;
}

function nonEmpty(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}
